import { createMemorySubscriptionStores } from '../../functions/adapters/memory/subscriptions';
import { subscriptionStoreContract } from './contract';

subscriptionStoreContract('memory subscription stores', async () => createMemorySubscriptionStores());
