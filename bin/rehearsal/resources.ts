/** Every resource type the rehearsal creates or plays, by CloudFormation type. */
import type { ResourceHandler } from './provision';
import { COMPUTE_HANDLERS } from './resources-compute';
import { DATA_HANDLERS } from './resources-data';

export const RESOURCE_HANDLERS: Readonly<Record<string, ResourceHandler>> = {
  ...DATA_HANDLERS,
  ...COMPUTE_HANDLERS,
};
