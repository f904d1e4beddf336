/** Subscription schemas moved to functions/core/subscriptions/schemas.ts, the subscriptions' one home. */
export * from '../subscriptions/schemas';
