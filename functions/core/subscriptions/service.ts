import { systemDate } from '../clock';
import type { DeliveryEngine } from '../delivery/engine';
import type { RetrySchedule } from '../delivery/retry-schedule';
import { DEFAULT_RETRY_SCHEDULE } from '../delivery/retry-schedule';
import type { SecretBox } from '../delivery/secrets';
import { EVENT_TYPES } from '../events/catalogue';
import type { EventEnvelope } from '../events/envelope';
import { err, ok, type Result } from '../result';
import { StoreError } from '../store/errors';
import { DEFAULT_EVENT_RETENTION_MS } from '../store/logic';
import type { EventLog } from '../store/ports';
import type { Page } from '../store/records';
import {
  generateSecret,
  MAX_RETIRED_SECRETS,
  ROTATION_GRACE_MS,
  retiredSecrets,
  rotateSecrets,
} from '../webhooks/signing';
import { type CheckUrlOptions, checkUrl } from '../webhooks/url-policy';
import { type HealthView, readHealth } from './health';
import { newSubscriptionId } from './logic';
import { eventWithDeliveries } from './lookup';
import type { AttemptFilter, DeliveryStore, SubscriptionStore } from './ports';
import type { AttemptRecord, DeliveryRecord, SubscriptionRecord } from './records';
import { recoveryUseCases } from './recovery';
import { parseBody, subscriptionSchemas, type ValidationError } from './schemas';

/**
 * The management API's use cases for subscriptions, transport-free: the Hono routes in
 * functions/http/subscriptions.ts only map these results to HTTP. Bad input is a ValidationError
 * naming the field (400), an unknown id NotFound (404); only storage failures throw.
 */
export const DEFAULT_MAX_REPLAY_EVENTS = 10_000;
export const MAX_LIST_LIMIT = 100;
const SUBSCRIPTION_ID = /^sub_[0-9a-z]{10}[0-9a-f]{20}$/;

export interface NotFoundError {
  readonly kind: 'NotFound';
  readonly message: string;
  readonly id: string;
}

export interface ConflictError {
  readonly kind: 'Conflict';
  readonly message: string;
}

export type ServiceError = ValidationError | NotFoundError | ConflictError;

/** A subscription as the API shows it: never any secret, never the ciphertext; its health as read now. */
export type PublicSubscription = Omit<SubscriptionRecord, 'secretCiphertext' | 'health'> & {
  readonly health: HealthView;
};

export interface SubscriptionServiceDeps {
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  readonly events: Pick<EventLog, 'listByTime' | 'get'>;
  readonly engine: Pick<
    DeliveryEngine,
    'sendTest' | 'sendSample' | 'enqueueReplay' | 'enqueueRecovery' | 'resume'
  >;
  /** The catalogue's sample of an event type (docs/events.samples.json: what a webhook received). */
  readonly sampleOf?: (type: string) => EventEnvelope | undefined;
  readonly secrets: SecretBox;
  /** The catalogue's types (default EVENT_TYPES). */
  readonly knownTypes?: readonly string[];
  /** URL policy and DNS for subscribe-time checks (local mode: insecure loopback + allow-list). */
  readonly urlPolicy?: CheckUrlOptions;
  readonly now?: () => Date;
  readonly newId?: () => string;
  readonly newSecret?: () => string;
  /** The most events one replay selects, or one `enable` recovers (default 10,000). */
  readonly maxReplayEvents?: number;
  /** How long the event log keeps events (default 30 days): how far back `enable` can recover. */
  readonly eventRetentionMs?: number;
  /** The retry schedule (default `standard`): when a failing endpoint would be disabled. */
  readonly retrySchedule?: Pick<RetrySchedule, 'disableAfterFailingMs'>;
}

export interface PageQuery {
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

function malformed(field: string, reason: string): ValidationError {
  return { kind: 'Malformed', message: `${field}: ${reason}`, issues: [{ field, reason }] };
}

function notFound(id: string): NotFoundError {
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  return { kind: 'NotFound', message: `no subscription ${shown}`, id: shown };
}

function parsePage(query: PageQuery): Result<{ limit: number; cursor?: string }, ValidationError> {
  let limit = 50;
  if (query.limit !== undefined) {
    if (!/^\d{1,4}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_LIST_LIMIT)
      return err(malformed('limit', `must be an integer from 1 to ${MAX_LIST_LIMIT}`));
    limit = Number(query.limit);
  }
  if (query.cursor !== undefined && (query.cursor.length === 0 || query.cursor.length > 2000))
    return err(malformed('cursor', 'is not a cursor this API returned'));
  return ok(query.cursor !== undefined ? { limit, cursor: query.cursor } : { limit });
}

/** Store input errors (a forged cursor, mostly) are the caller's: a 400 naming the field. */
async function guarded<T>(work: () => Promise<T>): Promise<Result<T, ValidationError>> {
  try {
    return ok(await work());
  } catch (error) {
    if (error instanceof StoreError && error.kind === 'InvalidInput') {
      const field = String(error.context.field ?? '(query)');
      return err(malformed(field, field === 'cursor' ? 'is not a cursor this API returned' : error.message));
    }
    throw error;
  }
}

export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const clock = deps.now ?? systemDate;
  const knownTypes = deps.knownTypes ?? EVENT_TYPES;
  const urlPolicy = deps.urlPolicy ?? {};
  const schemas = subscriptionSchemas({ knownTypes, urlPolicy });
  const newId = deps.newId ?? (() => newSubscriptionId(clock().getTime()));
  const newSecret = deps.newSecret ?? (() => generateSecret());
  const maxReplay = deps.maxReplayEvents ?? DEFAULT_MAX_REPLAY_EVENTS;

  async function load(id: string): Promise<Result<SubscriptionRecord, NotFoundError>> {
    if (!SUBSCRIPTION_ID.test(id)) return err(notFound(id));
    const s = await deps.subscriptions.get(id);
    return s ? ok(s) : err(notFound(id));
  }

  const disableAfterFailingMs = (deps.retrySchedule ?? DEFAULT_RETRY_SCHEDULE).disableAfterFailingMs;
  /** The record as the API shows it: no secret, the health read now. */
  async function view(record: SubscriptionRecord): Promise<PublicSubscription> {
    const { secretCiphertext: _secret, health: _stored, ...rest } = record;
    const health = await readHealth(deps.deliveries, record, clock().getTime(), disableAfterFailingMs);
    return { ...rest, health };
  }

  const recovery = recoveryUseCases({
    subscriptions: deps.subscriptions,
    deliveries: deps.deliveries,
    events: deps.events,
    engine: deps.engine,
    schemas,
    clock,
    retentionMs: deps.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS,
    maxEvents: maxReplay,
    load,
    view,
  });

  async function checkDns(url: string): Promise<ValidationError | undefined> {
    const checked = await checkUrl(url, urlPolicy);
    return checked.ok ? undefined : malformed('url', checked.error.message.replace(/^url: /, ''));
  }

  return {
    /** The bodies' schemas, for the HTTP edge to validate with before calling the use cases. */
    schemas,

    async create(body: unknown): Promise<Result<PublicSubscription & { secret: string }, ServiceError>> {
      const parsed = parseBody(schemas.create, body);
      if (!parsed.ok) return parsed;
      const dns = await checkDns(parsed.value.url);
      if (dns) return err(dns);
      const now = clock();
      const id = newId();
      const secret = newSecret();
      const v = parsed.value;
      const record: SubscriptionRecord = {
        id,
        url: v.url,
        ...(v.eventTypes ? { eventTypes: v.eventTypes } : {}),
        ...(v.vehicleIds ? { vehicleIds: v.vehicleIds } : {}),
        ...(v.enrollmentIds ? { enrollmentIds: v.enrollmentIds } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
        status: 'active',
        secretCiphertext: await deps.secrets.seal({ current: secret }, id),
        health: {},
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      if (!(await deps.subscriptions.create(record)))
        return err({ kind: 'Conflict', message: `subscription id ${id} exists already; retry` });
      return ok({ ...(await view(record)), secret });
    },

    async list(query: PageQuery): Promise<Result<Page<PublicSubscription>, ServiceError>> {
      const page = parsePage(query);
      if (!page.ok) return page;
      const listed = await guarded(() => deps.subscriptions.list(page.value));
      if (!listed.ok) return listed;
      return ok({ ...listed.value, items: await Promise.all(listed.value.items.map(view)) });
    },

    async get(id: string): Promise<Result<PublicSubscription, ServiceError>> {
      const s = await load(id);
      return s.ok ? ok(await view(s.value)) : s;
    },

    async patch(id: string, body: unknown): Promise<Result<PublicSubscription, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const parsed = parseBody(schemas.patch, body);
      if (!parsed.ok) return parsed;
      if (parsed.value.url !== undefined) {
        const dns = await checkDns(parsed.value.url);
        if (dns) return err(dns);
      }
      const updated = await deps.subscriptions.update(id, parsed.value, clock().getTime());
      return updated ? ok(await view(updated)) : err(notFound(id));
    },

    async remove(id: string): Promise<Result<void, ServiceError>> {
      if (!SUBSCRIPTION_ID.test(id)) return err(notFound(id));
      return (await deps.subscriptions.delete(id)) ? ok(undefined) : err(notFound(id));
    },

    async rotateSecret(
      id: string,
    ): Promise<Result<{ id: string; secret: string; previousSecretExpiresAt: string }, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const now = clock();
      const current = await deps.secrets.open(s.value.secretCiphertext, id);
      const retired = retiredSecrets(current, now);
      if (retired.length >= MAX_RETIRED_SECRETS) {
        const oldest = retired.at(-1)?.expiresAt ?? '';
        return err({
          kind: 'Conflict',
          message: `subscription ${id} already has ${retired.length} rotated secrets still valid; rotate again after ${oldest}`,
        });
      }
      const secret = newSecret();
      const rotated = rotateSecrets(current, now, secret);
      const updated = await deps.subscriptions.update(
        id,
        { secretCiphertext: await deps.secrets.seal(rotated, id) },
        now.getTime(),
      );
      if (!updated) return err(notFound(id));
      return ok({
        id,
        secret,
        previousSecretExpiresAt: new Date(now.getTime() + ROTATION_GRACE_MS).toISOString(),
      });
    },

    async test(
      id: string,
    ): Promise<Result<{ deliveryId: string; eventId: string; attempt: AttemptRecord }, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      if (s.value.status !== 'active')
        return err({ kind: 'Conflict', message: `subscription ${id} is disabled: enable it first` });
      const { delivery, attempt } = await deps.engine.sendTest(s.value);
      return ok({ deliveryId: delivery.id, eventId: delivery.eventId, attempt });
    },

    /** Sends a sample of an event type now, marked `sample: true`, signed like any delivery. */
    async sample(
      id: string,
      body: unknown,
    ): Promise<Result<{ deliveryId: string; eventId: string; attempt: AttemptRecord }, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const parsed = parseBody(schemas.sample, body);
      if (!parsed.ok) return parsed;
      if (s.value.status !== 'active')
        return err({ kind: 'Conflict', message: `subscription ${id} is disabled: enable it first` });
      const sample = deps.sampleOf?.(parsed.value.type);
      if (!sample)
        return err(malformed('type', `no sample of ${parsed.value.type} is known to this runtime`));
      const { delivery, attempt } = await deps.engine.sendSample(s.value, sample);
      return ok({ deliveryId: delivery.id, eventId: delivery.eventId, attempt });
    },

    /**
     * disabled → active. The events its filters match that were detected while it was disabled are
     * delivered from the event log with their own ids (body `{backlog: 'discard'}`: none of them);
     * parked deliveries resume.
     */
    enable: recovery.enable,
    /** What `enable` would deliver now: the window since it was disabled and the matching events. */
    backlog: recovery.backlog,

    /**
     * active → disabled by an operator: nothing is delivered (pending deliveries are parked, events
     * are not fanned out to it) until `enable`. Idempotent.
     */
    async disable(id: string): Promise<Result<PublicSubscription, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      await deps.subscriptions.disable(id, 'disabled by an operator', clock().getTime());
      const after = await load(id);
      return after.ok ? ok(await view(after.value)) : after;
    },

    /** The attempt log, newest first, optionally filtered by time, status, event type or event id. */
    async deliveries(
      id: string,
      query: PageQuery,
      filter: AttemptFilter = {},
    ): Promise<Result<Page<AttemptRecord>, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const page = parsePage(query);
      if (!page.ok) return page;
      return guarded(() => deps.deliveries.listAttempts({ subscriptionId: id, ...filter, ...page.value }));
    },

    async deadLetters(id: string, query: PageQuery): Promise<Result<Page<DeliveryRecord>, ServiceError>> {
      const s = await load(id);
      if (!s.ok) return s;
      const page = parsePage(query);
      if (!page.ok) return page;
      return guarded(() =>
        deps.deliveries.listBySubscription({ subscriptionId: id, status: 'dead', ...page.value }),
      );
    },

    /** Deliver again: chosen events by id, or every matching event of a time range. */
    replay: recovery.replay,
    /** Deliver again what was dead-lettered since a time (the deliveries that gave up). */
    recover: recovery.recover,
    /** One event of the log and its deliveries, one per subscription that has one. */
    event: (eventId: string) =>
      eventWithDeliveries(
        { events: deps.events, subscriptions: deps.subscriptions, deliveries: deps.deliveries },
        eventId,
        clock().getTime(),
      ),
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
