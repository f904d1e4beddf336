import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { storeContract } from './contract';

storeContract('memory stores', async (options) => createMemoryStores(options));
