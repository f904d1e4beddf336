import type { EventEnvelope } from '../../core/events/envelope';
import { invalidInput } from '../../core/store/errors';
import { stateKeyOf } from '../../core/store/identity';
import {
  checkStateSize,
  DEFAULT_EVENT_RETENTION_MS,
  eventExpiresAt,
  eventSortKey,
  isExpired,
  iso,
  isTerminalPause,
  liveEventRange,
  matchesTypes,
  newVehicleRecord,
  prepareEvents,
  requireCiphertext,
  requireEpochMs,
  requireId,
  requireIsoDate,
  requirePauseReason,
  requireTypes,
  requireVin,
  validateEnrollment,
  validateScheduleUpdate,
} from '../../core/store/logic';
import type {
  AppendResult,
  CommitPollInput,
  CommitPollResult,
  CreateEnrollmentResult,
  EnrollmentStore,
  EventLog,
  EventTimeQuery,
  LeaseStore,
  SaveTokensResult,
  Stores,
  TokenUpdate,
  VehicleStateStore,
  VehicleStore,
} from '../../core/store/ports';
import {
  type Enrollment,
  enrollmentStatuses,
  type FleetContractEnrollment,
  type NewVehicle,
  type Page,
  type PauseReason,
  type ScheduleUpdate,
  type StoredEvent,
} from '../../core/store/records';
import { applySchedule } from '../../core/store/schedule';
import { clone, copyOf, emptyMemoryData, paginate } from './data';

/**
 * In-memory implementation of every store port, for unit tests of use cases. It follows the same
 * contract as the DynamoDB adapter (test/store/contract.ts runs against both): validation, TTL
 * filtering, idempotent events, version conditions, pagination. Single process only.
 */
export interface MemoryStoreOptions {
  readonly eventRetentionMs?: number;
}

const eventKey = (event: StoredEvent): string => eventSortKey(event.envelope);

export function createMemoryStores(options: MemoryStoreOptions = {}): Stores {
  const retentionMs = options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  const data = emptyMemoryData();

  const liveEvent = (id: string, now: number): StoredEvent | undefined => {
    const event = data.events.get(id);
    return event && !isExpired(event.expiresAt, now) ? event : undefined;
  };

  const appendValidated = (events: readonly EventEnvelope[]): AppendResult => {
    const written: string[] = [];
    const alreadyPresent: string[] = [];
    for (const envelope of events) {
      // An expired event still occupies its id until TTL deletes it, as in DynamoDB.
      if (data.events.has(envelope.id)) {
        alreadyPresent.push(envelope.id);
        continue;
      }
      data.events.set(envelope.id, {
        envelope: clone(envelope),
        published: false,
        expiresAt: eventExpiresAt(envelope, retentionMs),
      });
      written.push(envelope.id);
    }
    return { written, alreadyPresent };
  };

  const enrollments: EnrollmentStore = {
    async create(enrollment: Enrollment): Promise<CreateEnrollmentResult> {
      validateEnrollment(enrollment);
      if (data.enrollments.has(enrollment.id)) return { kind: 'AlreadyExists', enrollmentId: enrollment.id };
      if (enrollment.kind === 'fleet-contract') {
        const existing = data.fleetVins.get(enrollment.vin);
        if (existing !== undefined) {
          return { kind: 'DuplicateFleetVin', vin: enrollment.vin, existingEnrollmentId: existing };
        }
        data.fleetVins.set(enrollment.vin, enrollment.id);
      }
      data.enrollments.set(enrollment.id, clone(enrollment));
      return { kind: 'Created' };
    },
    async get(enrollmentId) {
      return copyOf(data.enrollments, 'enrollmentId', enrollmentId);
    },
    async list(query = {}) {
      if (query.status !== undefined && !enrollmentStatuses.includes(query.status)) {
        throw invalidInput('status', `must be one of ${enrollmentStatuses.join(', ')}`);
      }
      const all = [...data.enrollments.values()].filter(
        (e) => query.status === undefined || e.status === query.status,
      );
      return paginate(all, (e) => e.id, query);
    },
    async findByFleetVin(vin) {
      requireVin('vin', vin);
      const id = data.fleetVins.get(vin);
      const found = id === undefined ? undefined : data.enrollments.get(id);
      return found?.kind === 'fleet-contract' ? (clone(found) as FleetContractEnrollment) : undefined;
    },
    async saveTokens(enrollmentId: string, tokens: TokenUpdate, now: number): Promise<SaveTokensResult> {
      requireId('enrollmentId', enrollmentId);
      requireCiphertext('tokens.tokenCiphertext', tokens.tokenCiphertext);
      requireIsoDate('tokens.tokenExpiresAt', tokens.tokenExpiresAt);
      const found = data.enrollments.get(enrollmentId);
      if (found?.kind !== 'oauth-user') return { kind: 'NotFound' };
      if (found.status === 'unenrolled') return { kind: 'NotAllowed', status: found.status };
      data.enrollments.set(enrollmentId, {
        ...found,
        tokenCiphertext: tokens.tokenCiphertext,
        tokenExpiresAt: tokens.tokenExpiresAt,
        ...(tokens.userId !== undefined ? { userId: tokens.userId } : {}),
        status: 'active',
        updatedAt: iso(now),
      });
      return { kind: 'Saved', reactivated: found.status === 'reauthorization_required' };
    },
    async markReauthorizationRequired(enrollmentId, now, event) {
      requireId('enrollmentId', enrollmentId);
      const events = event ? prepareEvents([event]) : [];
      const found = data.enrollments.get(enrollmentId);
      if (found?.status !== 'active') return false;
      data.enrollments.set(enrollmentId, {
        ...found,
        status: 'reauthorization_required',
        updatedAt: iso(now),
      });
      appendValidated(events);
      return true;
    },
    async unenroll(enrollmentId, now) {
      requireId('enrollmentId', enrollmentId);
      const found = data.enrollments.get(enrollmentId);
      if (!found || found.status === 'unenrolled') return false;
      if (found.kind === 'fleet-contract') {
        if (data.fleetVins.get(found.vin) === found.id) data.fleetVins.delete(found.vin);
        data.enrollments.set(enrollmentId, { ...found, status: 'unenrolled', updatedAt: iso(now) });
      } else {
        const { tokenCiphertext: _dropped, tokenExpiresAt: _alsoDropped, ...rest } = found;
        data.enrollments.set(enrollmentId, { ...rest, status: 'unenrolled', updatedAt: iso(now) });
      }
      return true;
    },
  };

  const vehicles: VehicleStore = {
    async put(vehicle: NewVehicle, now: number) {
      const record = newVehicleRecord(vehicle, now);
      if (data.vehicles.has(vehicle.id)) return { created: false };
      data.vehicles.set(vehicle.id, record);
      return { created: true };
    },
    async get(vehicleId) {
      return copyOf(data.vehicles, 'vehicleId', vehicleId);
    },
    async listByEnrollment(enrollmentId) {
      requireId('enrollmentId', enrollmentId);
      return [...data.vehicles.values()]
        .filter((v) => v.enrollmentId === enrollmentId)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(clone);
    },
    async listDue(query) {
      requireEpochMs('now', query.now);
      const nowIso = iso(query.now);
      const due = [...data.vehicles.values()].filter((v) => !v.paused && v.nextPollAt <= nowIso);
      return paginate(due, (v) => `${v.nextPollAt}#${v.id}`, query);
    },
    async touchSchedule(vehicleId: string, update: ScheduleUpdate, now: number) {
      requireId('vehicleId', vehicleId);
      validateScheduleUpdate(update);
      const found = data.vehicles.get(vehicleId);
      if (!found) return false;
      data.vehicles.set(vehicleId, applySchedule(found, update, now));
      return true;
    },
    async pause(vehicleId: string, reason: PauseReason, now: number) {
      requireId('vehicleId', vehicleId);
      requirePauseReason(reason);
      const found = data.vehicles.get(vehicleId);
      if (!found) return false;
      if (found.paused && !(isTerminalPause(reason) && !isTerminalPause(found.pauseReason))) return false;
      data.vehicles.set(vehicleId, { ...found, paused: true, pauseReason: reason, updatedAt: iso(now) });
      return !found.paused;
    },
    async resume(vehicleId, now, options = {}) {
      requireId('vehicleId', vehicleId);
      if (options.reason !== undefined) requirePauseReason(options.reason);
      if (options.nextPollAt !== undefined) requireIsoDate('nextPollAt', options.nextPollAt);
      const found = data.vehicles.get(vehicleId);
      if (!found?.paused) return false;
      const allowed =
        options.reason !== undefined
          ? found.pauseReason === options.reason
          : !isTerminalPause(found.pauseReason);
      if (!allowed) return false;
      const { pauseReason: _lifted, ...rest } = found;
      data.vehicles.set(vehicleId, {
        ...rest,
        paused: false,
        nextPollAt: options.nextPollAt ?? iso(now),
        updatedAt: iso(now),
      });
      return true;
    },
  };

  const states: VehicleStateStore = {
    async getState(vehicleId) {
      return copyOf(data.states, 'vehicleId', vehicleId);
    },
    async getVehicleWithState(vehicleId) {
      requireId('vehicleId', vehicleId);
      const vehicle = data.vehicles.get(vehicleId);
      // The state of the physical vehicle (its VIN), else one written under the vehicle id before
      // the VIN keying (core/store/identity.ts).
      const state = (vehicle && data.states.get(stateKeyOf(vehicle))) ?? data.states.get(vehicleId);
      return { vehicle: vehicle && clone(vehicle), state: state && clone(state) };
    },
    async commitPoll(input: CommitPollInput): Promise<CommitPollResult> {
      requireId('vehicleId', input.vehicleId);
      requireEpochMs('now', input.now);
      if (!Number.isInteger(input.expectedVersion) || input.expectedVersion < 0) {
        throw invalidInput('expectedVersion', 'must be a non-negative integer (0 before the first commit)');
      }
      requireId('stateFormat', input.stateFormat);
      const stateKey = input.stateKey ?? input.vehicleId;
      requireId('stateKey', stateKey);
      checkStateSize(stateKey, input.state);
      if (input.schedule) validateScheduleUpdate(input.schedule);
      const events = prepareEvents(input.events);
      const current = data.states.get(stateKey);
      if ((current?.version ?? 0) !== input.expectedVersion) {
        return {
          kind: 'VersionConflict',
          vehicleId: input.vehicleId,
          expectedVersion: input.expectedVersion,
          current: current && clone(current),
        };
      }
      const vehicle = data.vehicles.get(input.vehicleId);
      if (input.schedule && !vehicle) {
        throw invalidInput('schedule', `vehicle ${input.vehicleId} does not exist`, {
          vehicleId: input.vehicleId,
        });
      }
      const appended = appendValidated(events);
      const version = input.expectedVersion + 1;
      data.states.set(stateKey, {
        vehicleId: stateKey,
        state: input.state,
        stateFormat: input.stateFormat,
        version,
        updatedAt: iso(input.now),
      });
      if (input.schedule && vehicle) {
        data.vehicles.set(input.vehicleId, applySchedule(vehicle, input.schedule, input.now));
      }
      return {
        kind: 'Committed',
        version,
        eventsWritten: appended.written,
        eventsAlreadyPresent: appended.alreadyPresent,
      };
    },
  };

  const listEvents = (
    filter: (e: StoredEvent) => boolean,
    query: EventTimeQuery,
    ranged: boolean,
  ): Page<StoredEvent> => {
    requireEpochMs('now', query.now);
    if (query.since !== undefined) requireIsoDate('since', query.since);
    if (query.until !== undefined) requireIsoDate('until', query.until);
    const types = requireTypes(query.types);
    const range = ranged ? liveEventRange(query.since, query.until, query.now, retentionMs) : undefined;
    if (ranged && range === undefined) return paginate([], eventKey, query);
    const matching = [...data.events.values()].filter(
      (e) =>
        !isExpired(e.expiresAt, query.now) &&
        filter(e) &&
        (range === undefined || (e.envelope.detectedAt >= range.from && e.envelope.detectedAt < range.to)) &&
        matchesTypes(e.envelope.type, types),
    );
    return paginate(matching, eventKey, query);
  };

  const events: EventLog = {
    async append(list, now) {
      requireEpochMs('now', now);
      return appendValidated(prepareEvents(list));
    },
    async get(eventId, now) {
      requireId('eventId', eventId);
      const found = liveEvent(eventId, now);
      return found && clone(found);
    },
    async listByVehicle(query) {
      requireId('vehicleId', query.vehicleId);
      return listEvents((e) => e.envelope.vehicle?.id === query.vehicleId, query, true);
    },
    async listByTime(query) {
      requireIsoDate('since', query.since);
      requireIsoDate('until', query.until);
      return listEvents(() => true, query, true);
    },
    async listUnpublished(query) {
      return listEvents((e) => !e.published, query, false);
    },
    async markPublished(eventIds, now) {
      for (const id of eventIds) {
        requireId('eventIds[]', id);
        const found = liveEvent(id, now);
        if (found && !found.published)
          data.events.set(id, { ...found, published: true, publishedAt: iso(now) });
      }
    },
  };

  const leases: LeaseStore = {
    async acquire(name, owner, ttlMs, now) {
      requireId('name', name);
      requireId('owner', owner);
      requireEpochMs('now', now);
      if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw invalidInput('ttlMs', 'must be a positive integer');
      const held = data.leases.get(name);
      if (held && held.until > now && held.owner !== owner) return false;
      data.leases.set(name, { owner, until: now + ttlMs });
      return true;
    },
    async release(name, owner) {
      requireId('name', name);
      requireId('owner', owner);
      const held = data.leases.get(name);
      if (!held || held.owner !== owner) return false;
      data.leases.delete(name);
      return true;
    },
  };

  return { enrollments, vehicles, states, events, leases };
}
