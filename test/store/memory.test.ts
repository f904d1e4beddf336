import { createMemoryStores } from '../../functions/core/store/memory';
import { storeContract } from './contract';

storeContract('memory stores', async (options) => createMemoryStores(options));
