/** The subscription service moved to functions/core/subscriptions/service.ts, the subscriptions' one home. */
export * from '../subscriptions/service';
