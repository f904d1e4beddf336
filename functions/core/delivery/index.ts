export * from './engine';
export * from './management';
export * from './secrets';
