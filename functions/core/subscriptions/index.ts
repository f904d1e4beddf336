export * from './logic';
export { createMemorySubscriptionStores } from './memory';
export type * from './ports';
export type * from './records';
export { deliveryStatuses } from './records';
