import { createMemorySubscriptionStores } from '../../functions/core/subscriptions/memory';
import { subscriptionStoreContract } from './contract';

subscriptionStoreContract('memory subscription stores', async () => createMemorySubscriptionStores());
