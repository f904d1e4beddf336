export * from './catalogue';
export type { EventDefinition } from './common';
export * from './envelope';
export { eventId } from './ids';
export { allSchemaFiles, eventJsonSchema, schemaFileName } from './json-schema';
export * from './validate';
