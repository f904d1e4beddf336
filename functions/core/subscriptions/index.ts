export * from './logic';
export type * from './ports';
export type * from './records';
export { deliveryStatuses } from './records';
export * from './schemas';
export * from './service';
