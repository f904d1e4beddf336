import * as z from 'zod';
import { FieldError } from '../field-error';
import { pollStrategies, type VehicleResource, vehicleResources } from './config';

/**
 * The messages of the poll job queue (planner → workers). Validated when received: a queue is a
 * boundary, and a malformed message must fail clearly, naming the field, not crash a worker. The
 * schemas are built at the first parse (the planner, which only sends jobs, builds none).
 */
const buildJobSchemas = () => {
  const isoDate = z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be an ISO 8601 UTC date');

  const pollVehicleJobSchema = z.object({
    kind: z.literal('poll-vehicle'),
    vehicleId: z.string().min(1).max(256),
    /** What to read; the worker may add follow-ups the poll reveals (collisions, trips, maintenance…). */
    resources: z.array(z.enum(vehicleResources)).min(1),
    strategy: z.enum(pollStrategies),
    /** The budget was short when planned: record the poll time so the stalest go first next time. */
    rotate: z.boolean().default(false),
    /**
     * `false`: a routine read (an active-alert turn, a periodic read) queued after every poll of the
     * cycle: it reads only `resources`, so the budget left at the end of a cycle is never spent on
     * follow-ups the vehicle's own events poll already made (absent = true).
     */
    followUps: z.boolean().optional(),
    plannedAt: isoDate,
  });

  const pollFleetJobSchema = z.object({
    kind: z.literal('poll-fleet'),
    /** v1 brand group (`C` or `P`) of every vehicle of the batch. */
    brand: z.enum(['C', 'P']),
    vehicleIds: z.array(z.string().min(1).max(256)).min(1),
    rotate: z.boolean().default(false),
    plannedAt: isoDate,
  });

  /** Map update information of many vehicles in one bulk read (POST /mapway/bulk), daily. */
  const pollMapJobSchema = z.object({
    kind: z.literal('poll-map'),
    vehicleIds: z.array(z.string().min(1).max(256)).min(1),
    plannedAt: isoDate,
  });

  const discoverVehiclesJobSchema = z.object({
    kind: z.literal('discover-vehicles'),
    enrollmentId: z.string().min(1).max(256),
    plannedAt: isoDate,
  });

  const pollJobSchema = z.discriminatedUnion('kind', [
    pollVehicleJobSchema,
    pollFleetJobSchema,
    pollMapJobSchema,
    discoverVehiclesJobSchema,
  ]);
  return {
    pollVehicleJobSchema,
    pollFleetJobSchema,
    pollMapJobSchema,
    discoverVehiclesJobSchema,
    pollJobSchema,
  };
};

type JobSchemas = ReturnType<typeof buildJobSchemas>;
let built: JobSchemas | undefined;
/** The job schemas, built once on first use. */
export const jobSchemas = (): JobSchemas => {
  built ??= buildJobSchemas();
  return built;
};

export type PollVehicleJob = z.output<JobSchemas['pollVehicleJobSchema']>;
export type PollFleetJob = z.output<JobSchemas['pollFleetJobSchema']>;
export type PollMapJob = z.output<JobSchemas['pollMapJobSchema']>;
export type DiscoverVehiclesJob = z.output<JobSchemas['discoverVehiclesJobSchema']>;
export type PollJob = z.output<JobSchemas['pollJobSchema']>;

export class InvalidJobError extends FieldError {
  override readonly name = 'InvalidJobError';
  readonly kind = 'InvalidJob';
  constructor(field: string, why: string) {
    super(field, why, 'poll job ');
  }
}

/** Parses a received job body; throws `InvalidJobError` naming the field. */
export function parsePollJob(body: unknown): PollJob {
  const parsed = jobSchemas().pollJobSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // Stryker disable next-line OptionalChaining: a failed zod parse always lists at least one issue
  throw new InvalidJobError(issue?.path.join('.') || 'body', issue?.message ?? 'invalid job');
}

export type { VehicleResource };

/** What the planner books for one cycle. */
export interface Plan {
  /** Most urgent first: guaranteed reads, then baselines, then by index; routine reads last. */
  readonly jobs: readonly (PollVehicleJob | PollFleetJob | PollMapJob)[];
  /** Requests the planned jobs are expected to cost (follow-ups a poll reveals come on top). */
  readonly estimatedRequests: number;
  /** Vehicles whose events are not read this cycle. */
  readonly deferred: readonly string[];
  /** The events guarantee G of this cycle (ms), and the active alerts' one. */
  readonly guaranteeMs: number;
  readonly alertGuaranteeMs: number;
}
