import { createMemoryRateBudget } from '../../../functions/core/ratelimit/budget';
import { rateBudgetContract } from './budget-contract';

rateBudgetContract('memory', async (config) => createMemoryRateBudget(config));
