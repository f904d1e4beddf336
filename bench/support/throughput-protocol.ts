/** The messages between bench/throughput.ts and its runtime process (./throughput-runtime.ts). */

export interface RuntimeConfig {
  readonly dynamoEndpoint: string;
  /** Carhook's table and the local queues' table (created by the first process, reused after). */
  readonly tableName: string;
  readonly queueTableName: string;
  /** The simulator (its control API issues tokens for the `tokens` enrollment). */
  readonly simUrl: string;
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `{"current":"k1","k1":"<base64>"}`: the same for every runtime process of a run (tokens stay readable). */
  readonly keyRingJson: string;
  readonly stateKeyBase64: string;
  /** Requests per 60 s given to Carhook's rate budget (the simulator gets the same). */
  readonly quota: number;
  /** The planner's cycle length as the runtime knows it (cadences are derived from it). */
  readonly cycleSeconds: number;
  /** `runConsumer` concurrency of the poll-jobs queue (`carhook dev`: 4). */
  readonly pollConcurrency: number;
  /** `runConsumer` concurrency of the deliveries queue (`carhook dev`: 8). */
  readonly deliveryConcurrency: number;
  readonly memorySampleMs: number;
  /**
   * `in-process`: poll jobs in the runtime's memory (SQS's role on AWS); `local-queue`: the
   * `LocalQueue` over DynamoDB Local that `carhook dev` uses (three DynamoDB requests per job).
   */
  readonly pollQueue: PollQueueKind;
}

export type PollQueueKind = 'in-process' | 'local-queue';

/** How users are enrolled: the OAuth code flow, or tokens from the simulator's control API. */
export type EnrollmentMode = 'oauth' | 'tokens';

export interface SeedUser {
  readonly id: string;
  /** OAuth segment (`cielo`, `pavo`). */
  readonly brand: string;
  readonly vehicles: readonly { readonly id: string; readonly vin: string; readonly brand: string }[];
}

export type RuntimeCommand =
  | { readonly id: number; readonly cmd: 'start'; readonly config: RuntimeConfig }
  | {
      readonly id: number;
      readonly cmd: 'enroll';
      readonly mode: EnrollmentMode;
      readonly users: readonly SeedUser[];
      readonly concurrency: number;
    }
  | { readonly id: number; readonly cmd: 'subscribe'; readonly url: string }
  | { readonly id: number; readonly cmd: 'cycle'; readonly timeoutMs: number }
  | { readonly id: number; readonly cmd: 'close' };

export interface MemoryPeaks {
  /** Highest `process.memoryUsage().rss` sampled. */
  readonly peakRssMiB: number;
  readonly peakHeapUsedMiB: number;
  readonly peakHeapTotalMiB: number;
  readonly peakExternalMiB: number;
  /** The kernel's figure (`resourceUsage().maxRSS`): catches a peak between two samples. */
  readonly maxRssMiB: number;
}

export type RuntimeReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown; readonly memory: MemoryPeaks }
  | { readonly id: number; readonly ok: false; readonly error: string; readonly memory: MemoryPeaks };

export interface EnrollFigures {
  readonly users: number;
  readonly vehicles: number;
  readonly seconds: number;
  /** DynamoDB requests the enrollments sent. */
  readonly dynamoRequests: number;
}

export interface CycleFigures {
  readonly planned: {
    readonly due: number;
    readonly jobs: number;
    readonly discoveryJobs: number;
    readonly deferred: number;
  };
  readonly plannerSeconds: number;
  /** Planner start → last poll job finished. */
  readonly pollSeconds: number;
  /** Planner start → last poll job finished and every delivery of the cycle attempted. */
  readonly seconds: number;
  /** CPU time of the runtime process over the cycle (user + system). */
  readonly cpuSeconds: number;
  /** False when the cycle's time limit came first: the counts cover what was done. */
  readonly complete: boolean;
  readonly jobsFinished: number;
  readonly jobsFailed: number;
  /** Poll-vehicle jobs done (a vehicle may have two in a cycle: its events poll, then routine reads). */
  readonly polls: number;
  /** Distinct vehicles those jobs polled. */
  readonly vehiclesPolled: number;
  /** Polls that read the vehicle's baseline (its first poll: the daily reads included). */
  readonly firstPolls: number;
  /** API requests the poll and discovery jobs sent. */
  readonly requests: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly events: number;
  readonly eventsByType: Readonly<Record<string, number>>;
  readonly deliveriesCreated: number;
  readonly deliveriesSucceeded: number;
  readonly deliveriesFailedAttempts: number;
  /** Planner start → last successful delivery (NaN when none). */
  readonly deliverySeconds: number;
  /** DynamoDB requests the process sent during the cycle, by command. */
  readonly dynamoCommands: Readonly<Record<string, number>>;
  readonly problems: number;
  readonly firstProblem?: string;
}
