/** Webhook delivery core: pure or node-builtins only; storage and queues plug in behind ports. */
export * from './limiter';
export * from './payload';
export * from './policy';
export type { Result } from './result';
export * from './sender';
export * from './signing';
export * from './ssrf';
export * from './url-policy';
