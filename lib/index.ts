/**
 * What a team imports to put Carhook in its own CDK app (see lib/README.md).
 */
export { type AppSettings, buildCarhookApp, readAppSettings } from './app';
export {
  Carhook,
  type CarhookConfig,
  type CarhookHandlers,
  type CarhookProps,
  type CarhookQueues,
  carhookRuntimeEnvironment,
  resolveCarhookConfig,
} from './carhook';
export { CarhookStack, type CarhookStackProps } from './carhook-stack';
export { CARHOOK_DEFAULTS, CARHOOK_ENV, CARHOOK_METRICS, type CarhookMetricName } from './config';
export { CarhookData, type CarhookDataProps } from './constructs/carhook-data';
export {
  type CarhookBundlingOptions,
  CarhookFunction,
  type CarhookFunctionProps,
  type CarhookLogLevel,
  type QueueAccess,
  type TableAccess,
} from './constructs/carhook-function';
export {
  CARHOOK_HTTP_ROUTES,
  CarhookHttpApi,
  type CarhookHttpApiProps,
  type CarhookRoute,
  type RouteAccess,
} from './constructs/carhook-http-api';
export { CarhookQueue, type CarhookQueueProps, carhookDeadLetterQueue } from './constructs/carhook-queue';
export { CarhookSchedule, type CarhookScheduleProps } from './constructs/carhook-schedule';
export {
  CarhookTable,
  type CarhookTableDefinition,
  type CarhookTableProps,
} from './constructs/carhook-table';
export {
  EventSchemaRegistry,
  type EventSchemaRegistryProps,
  readEventSchemas,
} from './constructs/event-schema-registry';
export { type CarhookAlarmThresholds, CarhookMonitoring, type CarhookMonitoringProps } from './monitoring';
export { CarhookDataStack, type CarhookDataStackProps } from './stateful-stack';
export { CarhookConfigError } from './validation';
