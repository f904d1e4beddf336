export * from './engine';
export * from './secrets';
