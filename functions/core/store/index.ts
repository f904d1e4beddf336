export * from './errors';
export * from './lifecycle';
export * from './logic';
export type * from './ports';
export type * from './records';
export { enrollmentStatuses, pauseReasons } from './records';
export * from './schedule';
