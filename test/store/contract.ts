import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import {
  parseState,
  STATE_FORMAT,
  serializeState,
  type VehicleState,
} from '../../functions/core/detection/state';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { StoreError } from '../../functions/core/store/errors';
import { stateKeyOf } from '../../functions/core/store/identity';
import {
  requireReauthorization,
  resumeAfterReauthorization,
  unenroll,
} from '../../functions/core/store/lifecycle';
import type { Stores } from '../../functions/core/store/ports';
import type { Page } from '../../functions/core/store/records';
import { DAY, envelope, fleetEnrollment, iso, MINUTE, newVehicle, oauthEnrollment, T0 } from './fixtures';

/**
 * The one behaviour suite every implementation of the store ports passes (in-memory and
 * DynamoDB), so they cannot drift. `makeStores` gives a fresh, empty store each call.
 */
export type StoresFactory = (options?: { readonly eventRetentionMs?: number }) => Promise<Stores>;

async function all<T>(
  read: (cursor: string | undefined) => Promise<Page<T>>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await read(cursor);
    items.push(...page.items);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined && pages < 100);
  return { items, pages };
}

async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

export function storeContract(name: string, makeStores: StoresFactory): void {
  describe(`${name}: enrollments`, () => {
    it('creates an oauth-user enrollment once and reads it back', async () => {
      const { enrollments } = await makeStores();
      const enrollment = oauthEnrollment('enr-1');
      expect(await enrollments.create(enrollment)).toEqual({ kind: 'Created' });
      expect(await enrollments.create(enrollment)).toEqual({ kind: 'AlreadyExists', enrollmentId: 'enr-1' });
      expect(await enrollments.get('enr-1')).toEqual(enrollment);
      expect(await enrollments.get('enr-unknown')).toBeUndefined();
    });

    it('rejects a second enrollment of the same fleet VIN, naming the enrollment that has it', async () => {
      const { enrollments } = await makeStores();
      expect(await enrollments.create(fleetEnrollment('fleet-1', 'VF7AAAAAAAAAAAAA1'))).toEqual({
        kind: 'Created',
      });
      expect(await enrollments.create(fleetEnrollment('fleet-2', 'VF7AAAAAAAAAAAAA1'))).toEqual({
        kind: 'DuplicateFleetVin',
        vin: 'VF7AAAAAAAAAAAAA1',
        existingEnrollmentId: 'fleet-1',
      });
      // The rejected enrollment left nothing behind.
      expect(await enrollments.get('fleet-2')).toBeUndefined();
      expect((await enrollments.findByFleetVin('VF7AAAAAAAAAAAAA1'))?.id).toBe('fleet-1');
      expect(await enrollments.findByFleetVin('VF7BBBBBBBBBBBBB1')).toBeUndefined();
    });

    it('frees a fleet VIN when its enrollment is unenrolled', async () => {
      const { enrollments } = await makeStores();
      await enrollments.create(fleetEnrollment('fleet-1', 'VF7AAAAAAAAAAAAA1'));
      expect(await enrollments.unenroll('fleet-1', T0 + MINUTE)).toBe(true);
      expect(await enrollments.findByFleetVin('VF7AAAAAAAAAAAAA1')).toBeUndefined();
      expect(await enrollments.create(fleetEnrollment('fleet-2', 'VF7AAAAAAAAAAAAA1'))).toEqual({
        kind: 'Created',
      });
      expect((await enrollments.get('fleet-1'))?.status).toBe('unenrolled');
    });

    it('enrolls a fleet VIN once when two enrollments race for it', async () => {
      const { enrollments } = await makeStores();
      const results = await Promise.all(
        ['fleet-a', 'fleet-b', 'fleet-c'].map((id) =>
          enrollments.create(fleetEnrollment(id, 'VF7AAAAAAAAAAAAA2')),
        ),
      );
      expect(results.filter((r) => r.kind === 'Created')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'DuplicateFleetVin')).toHaveLength(2);
    });

    it('refuses an invalid fleet VIN, naming the field', async () => {
      const { enrollments } = await makeStores();
      const error = await rejection(enrollments.create(fleetEnrollment('fleet-1', 'not-a-vin')));
      expect(error.kind).toBe('InvalidInput');
      expect(error.message).toContain('enrollment.vin');
    });

    it('lists all enrollments and those of one status, page by page, without gaps or repeats', async () => {
      const { enrollments } = await makeStores();
      for (let i = 0; i < 7; i += 1) {
        await enrollments.create(
          oauthEnrollment(`enr-${i}`, i % 2 === 0 ? {} : { status: 'reauthorization_required' }),
        );
      }
      const everything = await all((cursor) => enrollments.list({ limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(everything.items.map((e) => e.id)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `enr-${i}`));
      expect(everything.pages).toBe(3);
      const needing = await all((cursor) =>
        enrollments.list({ status: 'reauthorization_required', limit: 2, ...(cursor ? { cursor } : {}) }),
      );
      expect(needing.items.map((e) => e.id)).toEqual(['enr-1', 'enr-3', 'enr-5']);
    });

    it('makes the reauthorization_required transition once among concurrent callers, with its event logged once', async () => {
      const { enrollments, events } = await makeStores();
      await enrollments.create(oauthEnrollment('enr-1'));
      const event = envelope('enr-1:reauth:1', {
        type: 'enrollment.reauthorization_required',
        enrollment: { id: 'enr-1', kind: 'oauth-user' },
      });
      const { vehicle: _none, ...withoutVehicle } = event;
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          enrollments.markReauthorizationRequired('enr-1', T0 + MINUTE, withoutVehicle),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await enrollments.get('enr-1'))?.status).toBe('reauthorization_required');
      expect(await enrollments.markReauthorizationRequired('enr-1', T0 + 2 * MINUTE)).toBe(false);
      const logged = await events.listUnpublished({ now: T0 + 2 * MINUTE });
      expect(logged.items.map((e) => e.envelope.id)).toEqual(['enr-1:reauth:1']);
    });

    it('saves refreshed tokens, reactivates after re-authorization and refuses unenrolled or unknown enrollments', async () => {
      const { enrollments } = await makeStores();
      await enrollments.create(oauthEnrollment('enr-1'));
      const tokens = { tokenCiphertext: 'v1.k2.new', tokenExpiresAt: iso(T0 + 7200_000) };
      expect(await enrollments.saveTokens('enr-1', tokens, T0 + MINUTE)).toEqual({
        kind: 'Saved',
        reactivated: false,
      });
      await enrollments.markReauthorizationRequired('enr-1', T0 + 2 * MINUTE);
      expect(await enrollments.saveTokens('enr-1', tokens, T0 + 3 * MINUTE)).toEqual({
        kind: 'Saved',
        reactivated: true,
      });
      const stored = await enrollments.get('enr-1');
      expect(stored).toMatchObject({
        status: 'active',
        tokenCiphertext: 'v1.k2.new',
        updatedAt: iso(T0 + 3 * MINUTE),
      });
      expect(await enrollments.saveTokens('enr-unknown', tokens, T0)).toEqual({ kind: 'NotFound' });
      await enrollments.unenroll('enr-1', T0 + 4 * MINUTE);
      expect(await enrollments.saveTokens('enr-1', tokens, T0 + 5 * MINUTE)).toEqual({
        kind: 'NotAllowed',
        status: 'unenrolled',
      });
    });

    it('stores a token set as long as real JWT pairs and refuses an absurdly long one, naming the field', async () => {
      const { enrollments } = await makeStores();
      await enrollments.create(oauthEnrollment('enr-1'));
      const long = `v1.k1.${'A'.repeat(6_000)}`;
      expect(
        await enrollments.saveTokens(
          'enr-1',
          { tokenCiphertext: long, tokenExpiresAt: iso(T0 + 60 * MINUTE) },
          T0,
        ),
      ).toEqual({ kind: 'Saved', reactivated: false });
      expect(await enrollments.get('enr-1')).toMatchObject({ tokenCiphertext: long });
      await expect(
        enrollments.saveTokens(
          'enr-1',
          { tokenCiphertext: 'x'.repeat(40_000), tokenExpiresAt: iso(T0 + 60 * MINUTE) },
          T0,
        ),
      ).rejects.toThrow(/tokens\.tokenCiphertext/);
    });

    it('unenrolls once, deleting the token ciphertext', async () => {
      const { enrollments } = await makeStores();
      await enrollments.create(oauthEnrollment('enr-1'));
      expect(await enrollments.unenroll('enr-1', T0 + MINUTE)).toBe(true);
      expect(await enrollments.unenroll('enr-1', T0 + MINUTE)).toBe(false);
      const stored = await enrollments.get('enr-1');
      expect(stored?.status).toBe('unenrolled');
      expect(stored && 'tokenCiphertext' in stored).toBe(false);
      expect(await enrollments.unenroll('enr-unknown', T0)).toBe(false);
    });
  });

  describe(`${name}: vehicles and scheduling`, () => {
    it('creates a vehicle once and lists the vehicles of an enrollment', async () => {
      const { vehicles } = await makeStores();
      expect(await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0)).toEqual({ created: true });
      expect(await vehicles.put(newVehicle('veh-1', 'enr-1', T0 + DAY), T0)).toEqual({ created: false });
      await vehicles.put(newVehicle('veh-2', 'enr-1', T0), T0);
      await vehicles.put(newVehicle('veh-3', 'enr-2', T0), T0);
      const stored = await vehicles.get('veh-1');
      expect(stored).toMatchObject({
        id: 'veh-1',
        enrollmentId: 'enr-1',
        paused: false,
        nextPollAt: iso(T0),
        hints: { activeAlerts: false, priority: 0 },
        resourcePolledAt: {},
      });
      expect((await vehicles.listByEnrollment('enr-1')).map((v) => v.id)).toEqual(['veh-1', 'veh-2']);
      expect(await vehicles.listByEnrollment('enr-none')).toEqual([]);
    });

    it('lists the vehicles due at now, earliest first, across pages, and never a paused one', async () => {
      const { vehicles } = await makeStores();
      for (let i = 0; i < 9; i += 1)
        await vehicles.put(newVehicle(`veh-${i}`, 'enr-1', T0 + (i - 6) * MINUTE), T0);
      expect(await vehicles.pause('veh-2', 'manual', T0)).toBe(true);
      const due = await all((cursor) =>
        vehicles.listDue({ now: T0, limit: 2, ...(cursor ? { cursor } : {}) }),
      );
      // veh-0..veh-6 have nextPollAt <= T0; veh-7 and veh-8 are in the future.
      expect(due.items.map((v) => v.id)).toEqual(['veh-0', 'veh-1', 'veh-3', 'veh-4', 'veh-5', 'veh-6']);
      expect(await vehicles.resume('veh-2', T0, { nextPollAt: iso(T0 - 10 * MINUTE) })).toBe(true);
      const after = await vehicles.listDue({ now: T0, limit: 100 });
      expect(after.items.map((v) => v.id)[0]).toBe('veh-2');
      expect(after.cursor).toBeUndefined();
    });

    it('touches the schedule in one write: moves nextPollAt and merges hints and resource times', async () => {
      const { vehicles } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      const moved = await vehicles.touchSchedule(
        'veh-1',
        {
          nextPollAt: iso(T0 + DAY),
          lastPolledAt: iso(T0),
          hints: { activeAlerts: true },
          resourcePolledAt: { maintenance: iso(T0) },
        },
        T0,
      );
      expect(moved).toBe(true);
      await vehicles.touchSchedule(
        'veh-1',
        { nextPollAt: iso(T0 + DAY), resourcePolledAt: { map: iso(T0 + 1) } },
        T0,
      );
      expect(await vehicles.get('veh-1')).toMatchObject({
        nextPollAt: iso(T0 + DAY),
        lastPolledAt: iso(T0),
        hints: { activeAlerts: true, priority: 0 },
        resourcePolledAt: { maintenance: iso(T0), map: iso(T0 + 1) },
      });
      expect((await vehicles.listDue({ now: T0 })).items).toEqual([]);
      expect(await vehicles.touchSchedule('veh-unknown', { nextPollAt: iso(T0) }, T0)).toBe(false);
    });

    it('keeps the planner rate estimate in the hints, and refuses one that is not a short printable string', async () => {
      const { vehicles } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      const rates = 'r1:1767225600000:2:5.5:1:0.25:1';
      await vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { rates } }, T0);
      await vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { activeAlerts: true } }, T0);
      expect((await vehicles.get('veh-1'))?.hints).toEqual({ activeAlerts: true, priority: 0, rates });
      await expect(
        vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { rates: 'a b' } }, T0),
      ).rejects.toMatchObject({ kind: 'InvalidInput', context: { field: 'schedule.hints.rates' } });
      expect((await vehicles.get('veh-1'))?.hints.rates).toBe(rates);
    });

    it('keeps the time a poll left work waiting in the hints, and refuses one that is not a date', async () => {
      const { vehicles } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      await vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { workWaitingAt: iso(T0) } }, T0);
      expect((await vehicles.get('veh-1'))?.hints).toEqual({
        activeAlerts: false,
        priority: 0,
        workWaitingAt: iso(T0),
      });
      await expect(
        vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { workWaitingAt: 'soon' } }, T0),
      ).rejects.toMatchObject({ kind: 'InvalidInput', context: { field: 'schedule.hints.workWaitingAt' } });
    });

    it('keeps the time the budget refused an events read beside the other hints, and refuses one that is not a date', async () => {
      const { vehicles } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      await vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { workWaitingAt: iso(T0) } }, T0);
      const later = iso(T0 + 60_000);
      await vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0), hints: { eventsRefusedAt: later } }, T0);
      expect((await vehicles.get('veh-1'))?.hints).toEqual({
        activeAlerts: false,
        priority: 0,
        workWaitingAt: iso(T0),
        eventsRefusedAt: later,
      });
      await expect(
        vehicles.touchSchedule(
          'veh-1',
          { nextPollAt: iso(T0), hints: { eventsRefusedAt: '2026-13-01' } },
          T0,
        ),
      ).rejects.toMatchObject({ kind: 'InvalidInput', context: { field: 'schedule.hints.eventsRefusedAt' } });
      expect((await vehicles.get('veh-1'))?.hints.eventsRefusedAt).toBe(later);
    });

    it('keeps a manual pause through a re-authorization and lets unenrolled override every pause', async () => {
      const { vehicles } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      expect(await vehicles.pause('veh-1', 'manual', T0)).toBe(true);
      expect(await vehicles.pause('veh-1', 'reauthorization_required', T0)).toBe(false);
      expect((await vehicles.get('veh-1'))?.pauseReason).toBe('manual');
      expect(await vehicles.resume('veh-1', T0, { reason: 'reauthorization_required' })).toBe(false);
      expect(await vehicles.pause('veh-1', 'unenrolled', T0)).toBe(false);
      expect((await vehicles.get('veh-1'))?.pauseReason).toBe('unenrolled');
      // A plain resume never lifts an unenrollment.
      expect(await vehicles.resume('veh-1', T0)).toBe(false);
      expect((await vehicles.get('veh-1'))?.paused).toBe(true);
      expect(await vehicles.pause('veh-unknown', 'manual', T0)).toBe(false);
    });

    it('requireReauthorization pauses the vehicles every time but transitions once; re-authorization resumes them', async () => {
      const stores = await makeStores();
      await stores.enrollments.create(oauthEnrollment('enr-1'));
      await stores.vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      await stores.vehicles.put(newVehicle('veh-2', 'enr-1', T0), T0);
      await stores.vehicles.pause('veh-2', 'manual', T0);
      expect(await requireReauthorization(stores, 'enr-1', T0)).toEqual({
        transitioned: true,
        vehiclesPaused: 1,
      });
      expect(await requireReauthorization(stores, 'enr-1', T0)).toEqual({
        transitioned: false,
        vehiclesPaused: 0,
      });
      expect((await stores.vehicles.listDue({ now: T0 })).items).toEqual([]);
      expect(await resumeAfterReauthorization(stores, 'enr-1', T0 + MINUTE)).toBe(1);
      expect((await stores.vehicles.listDue({ now: T0 + MINUTE })).items.map((v) => v.id)).toEqual(['veh-1']);
    });

    it('unenroll stops polling its vehicles and keeps their event log', async () => {
      const stores = await makeStores();
      await stores.enrollments.create(oauthEnrollment('enr-1'));
      await stores.vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      await stores.events.append([envelope('e-1')], T0);
      expect(await unenroll(stores, 'enr-1', T0)).toEqual({ transitioned: true, vehiclesPaused: 1 });
      expect((await stores.vehicles.listDue({ now: T0 + DAY })).items).toEqual([]);
      expect((await stores.enrollments.get('enr-1'))?.status).toBe('unenrolled');
      expect((await stores.events.get('e-1', T0))?.envelope.id).toBe('e-1');
    });
  });

  describe(`${name}: input validation`, () => {
    it('refuses bad vehicle, schedule and lease input, naming the field', async () => {
      const { vehicles, leases } = await makeStores();
      const badDate = await rejection(
        vehicles.put({ ...newVehicle('veh-1', 'enr-1', T0), nextPollAt: 'tomorrow' }, T0),
      );
      expect(badDate).toMatchObject({ kind: 'InvalidInput', context: { field: 'vehicle.nextPollAt' } });
      const noMs = await rejection(
        vehicles.touchSchedule('veh-1', { nextPollAt: '2026-11-22T10:00:00Z' }, T0),
      );
      expect(noMs.message).toContain('schedule.nextPollAt');
      expect((await rejection(vehicles.pause('veh-1', 'because' as never, T0))).message).toContain('reason');
      expect((await rejection(vehicles.get(''))).message).toContain('vehicleId');
      expect((await rejection(leases.acquire('l', 'a', 0, T0))).message).toContain('ttlMs');
    });
  });

  describe(`${name}: committing polls`, () => {
    it('commits the first state with its events and reads vehicle and state together', async () => {
      const { vehicles, states, events } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      const result = await states.commitPoll({
        vehicleId: 'veh-1',
        expectedVersion: 0,
        state: '{"alerts":["a1"]}',
        stateFormat: 'detection/v1',
        events: [envelope('e-1'), envelope('e-2')],
        schedule: { nextPollAt: iso(T0 + MINUTE), lastChangeAt: iso(T0), hints: { activeAlerts: true } },
        now: T0,
      });
      expect(result).toEqual({
        kind: 'Committed',
        version: 1,
        eventsWritten: ['e-1', 'e-2'],
        eventsAlreadyPresent: [],
      });
      const read = await states.getVehicleWithState('veh-1');
      expect(read.state).toEqual({
        vehicleId: 'veh-1',
        state: '{"alerts":["a1"]}',
        stateFormat: 'detection/v1',
        version: 1,
        updatedAt: iso(T0),
      });
      expect(read.vehicle).toMatchObject({
        nextPollAt: iso(T0 + MINUTE),
        lastChangeAt: iso(T0),
        hints: { activeAlerts: true },
      });
      expect((await events.get('e-1', T0))?.published).toBe(false);
      expect(await states.getVehicleWithState('veh-none')).toEqual({ vehicle: undefined, state: undefined });
    });

    it('a detection state with absences in doubt and a services change pending round-trips and parses back as written', async () => {
      const { vehicles, states } = await makeStores();
      await vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
      const start = diff(undefined, [], {
        vehicle: { id: 'veh-1', vin: 'VF3ABCDEFGH123456' },
        enrollment: { id: 'enr-1', kind: 'oauth-user' },
        now: new Date(T0),
      }).state;
      const detection: VehicleState = {
        ...start,
        alerts: {
          'v2:a1': {
            active: true,
            message: 'm',
            seenAt: iso(T0),
            updatedAt: iso(T0),
            missingSince: iso(T0 + MINUTE),
          },
        },
        services: {
          eligible: ['A', 'B'],
          revision: 1,
          seenAt: iso(T0),
          pending: { eligible: ['A'], seenAt: iso(T0) },
        },
        cursors: { fetched: {}, alertsNewest: { at: iso(T0), lowerSince: iso(T0 + MINUTE) } },
      };
      await states.commitPoll({
        vehicleId: 'veh-1',
        expectedVersion: 0,
        state: serializeState(detection),
        stateFormat: String(STATE_FORMAT),
        events: [],
        now: T0,
      });
      const read = await states.getVehicleWithState('veh-1');
      expect(parseState(read.state?.state)).toEqual({ ok: true, state: detection });
    });

    it('keeps the state under the identity of the physical vehicle: two enrollments of one VIN read one state', async () => {
      const { vehicles, states } = await makeStores();
      await vehicles.put(newVehicle('enr-1:v', 'enr-1', T0, { model: '308', subModel: 'GT' }), T0);
      await vehicles.put(newVehicle('enr-2:v', 'enr-2', T0), T0);
      // A state written under the vehicle id before the VIN keying is what the vehicle reads first.
      await states.commitPoll({
        vehicleId: 'enr-1:v',
        expectedVersion: 0,
        state: 'old',
        stateFormat: 'f',
        events: [],
        now: T0,
      });
      expect((await states.getVehicleWithState('enr-1:v')).state).toMatchObject({
        vehicleId: 'enr-1:v',
        state: 'old',
      });
      const identity = stateKeyOf({ id: 'enr-1:v', vin: 'VF3ABCDEF12345678' });
      expect(identity).toBe('vin:VF3ABCDEF12345678');
      const committed = await states.commitPoll({
        vehicleId: 'enr-1:v',
        stateKey: identity,
        expectedVersion: 0,
        state: 'shared',
        stateFormat: 'f',
        events: [],
        schedule: { nextPollAt: iso(T0 + MINUTE), lastChangeAt: iso(T0) },
        now: T0,
      });
      expect(committed.kind).toBe('Committed');
      for (const id of ['enr-1:v', 'enr-2:v']) {
        const read = await states.getVehicleWithState(id);
        expect(read.state).toEqual({
          vehicleId: identity,
          state: 'shared',
          stateFormat: 'f',
          version: 1,
          updatedAt: iso(T0),
        });
      }
      // The schedule went to the vehicle polled, the state to the identity; the legacy item is left.
      expect(await vehicles.get('enr-1:v')).toMatchObject({
        lastChangeAt: iso(T0),
        model: '308',
        subModel: 'GT',
      });
      expect((await vehicles.get('enr-2:v'))?.lastChangeAt).toBeUndefined();
      expect((await states.getState('enr-1:v'))?.state).toBe('old');
      // The other enrollment commits on the same version counter.
      const stale = await states.commitPoll({
        vehicleId: 'enr-2:v',
        stateKey: identity,
        expectedVersion: 0,
        state: 'x',
        stateFormat: 'f',
        events: [],
        now: T0,
      });
      expect(stale).toMatchObject({ kind: 'VersionConflict', current: { vehicleId: identity, version: 1 } });
      await expect(vehicles.put(newVehicle('enr-3:v', 'enr-3', T0, { model: '' }), T0)).rejects.toThrow(
        /vehicle\.model/,
      );
    });

    it('returns a VersionConflict carrying the current state and writes none of the loser’s events', async () => {
      const { states, events } = await makeStores();
      const base = { vehicleId: 'veh-1', stateFormat: 'f1', now: T0 };
      await states.commitPoll({ ...base, expectedVersion: 0, state: 's1', events: [] });
      await states.commitPoll({ ...base, expectedVersion: 1, state: 's2', events: [] });
      const stale = await states.commitPoll({
        ...base,
        expectedVersion: 1,
        state: 'loser',
        events: [envelope('lost')],
      });
      expect(stale).toEqual({
        kind: 'VersionConflict',
        vehicleId: 'veh-1',
        expectedVersion: 1,
        current: { vehicleId: 'veh-1', state: 's2', stateFormat: 'f1', version: 2, updatedAt: iso(T0) },
      });
      expect(await events.get('lost', T0)).toBeUndefined();
      const first = await states.commitPoll({
        vehicleId: 'veh-2',
        stateFormat: 'f1',
        now: T0,
        expectedVersion: 3,
        state: 'x',
        events: [],
      });
      expect(first).toMatchObject({ kind: 'VersionConflict', current: undefined });
    });

    it('lets exactly one of many concurrent workers commit on the same version', async () => {
      const { states } = await makeStores();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          states.commitPoll({
            vehicleId: 'veh-1',
            expectedVersion: 0,
            state: `worker-${i}`,
            stateFormat: 'f1',
            events: [envelope('same-change')],
            now: T0,
          }),
        ),
      );
      const winners = results.filter((r) => r.kind === 'Committed');
      expect(winners).toHaveLength(1);
      const losers = results.filter((r) => r.kind === 'VersionConflict');
      expect(losers).toHaveLength(5);
      for (const loser of losers)
        if (loser.kind === 'VersionConflict') expect(loser.current?.version).toBe(1);
    });

    it('keeps the first version of an event id: a re-diff emitting the same id never writes a different duplicate', async () => {
      const { states, events } = await makeStores();
      const first = envelope('e-1', { detectedAtMs: T0 });
      await states.commitPoll({
        vehicleId: 'veh-1',
        expectedVersion: 0,
        state: 's1',
        stateFormat: 'f',
        events: [first],
        now: T0,
      });
      const again = envelope('e-1', { detectedAtMs: T0 + MINUTE, data: { different: true } });
      const result = await states.commitPoll({
        vehicleId: 'veh-1',
        expectedVersion: 1,
        state: 's2',
        stateFormat: 'f',
        events: [again, envelope('e-2', { detectedAtMs: T0 + MINUTE })],
        now: T0 + MINUTE,
      });
      expect(result).toEqual({
        kind: 'Committed',
        version: 2,
        eventsWritten: ['e-2'],
        eventsAlreadyPresent: ['e-1'],
      });
      expect((await events.get('e-1', T0 + MINUTE))?.envelope).toEqual(first);
    });

    it('commits more than 99 events (beyond one transaction) with all of them logged once', async () => {
      const { states, events } = await makeStores();
      await events.append([envelope('bulk-7', { detectedAtMs: T0 })], T0);
      const many = Array.from({ length: 150 }, (_, i) => envelope(`bulk-${i}`, { detectedAtMs: T0 + i }));
      const result = await states.commitPoll({
        vehicleId: 'veh-1',
        expectedVersion: 0,
        state: 's1',
        stateFormat: 'f',
        events: many,
        now: T0,
      });
      expect(result.kind).toBe('Committed');
      if (result.kind === 'Committed') {
        expect(result.eventsWritten).toHaveLength(149);
        expect(result.eventsAlreadyPresent).toEqual(['bulk-7']);
      }
      const logged = await all((cursor) =>
        events.listByVehicle({ vehicleId: 'veh-1', now: T0, limit: 1000, ...(cursor ? { cursor } : {}) }),
      );
      expect(new Set(logged.items.map((e) => e.envelope.id)).size).toBe(150);
      expect((await states.getState('veh-1'))?.version).toBe(1);
    });

    it('refuses bad commit input, naming the field', async () => {
      const { states } = await makeStores();
      const base = {
        vehicleId: 'veh-1',
        expectedVersion: 0,
        state: 's',
        stateFormat: 'f',
        events: [],
        now: T0,
      };
      expect((await rejection(states.commitPoll({ ...base, expectedVersion: -1 }))).message).toContain(
        'expectedVersion',
      );
      const badEvent = { ...envelope('e-1'), detectedAt: 'yesterday' } as EventEnvelope;
      expect((await rejection(states.commitPoll({ ...base, events: [badEvent] }))).message).toContain(
        'detectedAt',
      );
      expect((await rejection(states.commitPoll({ ...base, state: 'x'.repeat(400 * 1024) }))).kind).toBe(
        'ItemTooLarge',
      );
      expect(
        (await rejection(states.commitPoll({ ...base, schedule: { nextPollAt: iso(T0) } }))).message,
      ).toContain('schedule');
    });
  });

  describe(`${name}: event log`, () => {
    it('lists one vehicle’s events by type and since, and every vehicle’s events in a time range across days', async () => {
      const { events } = await makeStores();
      const now = T0 + 3 * DAY;
      await events.append(
        [
          envelope('a', { vehicleId: 'veh-1', detectedAtMs: T0 }),
          envelope('b', { vehicleId: 'veh-1', detectedAtMs: T0 + DAY, type: 'vehicle.alert.fixed' }),
          envelope('c', { vehicleId: 'veh-2', detectedAtMs: T0 + DAY + MINUTE }),
          envelope('d', { vehicleId: 'veh-1', detectedAtMs: T0 + 2 * DAY }),
          envelope('e', {
            vehicleId: 'veh-2',
            detectedAtMs: T0 + 2 * DAY + MINUTE,
            type: 'vehicle.collision.detected',
          }),
        ],
        now,
      );
      const ids = (page: Page<{ envelope: EventEnvelope }>) => page.items.map((e) => e.envelope.id);
      expect(ids(await events.listByVehicle({ vehicleId: 'veh-1', now }))).toEqual(['a', 'b', 'd']);
      expect(ids(await events.listByVehicle({ vehicleId: 'veh-1', now, since: iso(T0 + DAY) }))).toEqual([
        'b',
        'd',
      ]);
      expect(
        ids(
          await events.listByVehicle({
            vehicleId: 'veh-1',
            now,
            types: ['vehicle.alert.raised'],
            until: iso(T0 + 2 * DAY),
          }),
        ),
      ).toEqual(['a']);
      const replay = await all((cursor) =>
        events.listByTime({
          since: iso(T0),
          until: iso(T0 + 2 * DAY + MINUTE),
          now,
          limit: 2,
          ...(cursor ? { cursor } : {}),
        }),
      );
      // `until` is exclusive: `e` was detected exactly at until.
      expect(replay.items.map((e) => e.envelope.id)).toEqual(['a', 'b', 'c', 'd']);
      const collisions = await events.listByTime({
        since: iso(T0),
        until: iso(T0 + 3 * DAY),
        now,
        types: ['vehicle.collision.detected', 'vehicle.alert.fixed'],
      });
      expect(ids(collisions)).toEqual(['b', 'e']);
    });

    it('keeps unpublished events listed until they are marked published, idempotently', async () => {
      const { events } = await makeStores();
      await events.append(
        [
          envelope('a', { detectedAtMs: T0 }),
          envelope('b', { detectedAtMs: T0 + 1 }),
          envelope('c', { detectedAtMs: T0 + 2 }),
        ],
        T0,
      );
      const pending = await all((cursor) =>
        events.listUnpublished({ now: T0, limit: 2, ...(cursor ? { cursor } : {}) }),
      );
      expect(pending.items.map((e) => e.envelope.id)).toEqual(['a', 'b', 'c']);
      await events.markPublished(['a', 'c', 'unknown'], T0 + MINUTE);
      await events.markPublished(['a'], T0 + 2 * MINUTE);
      expect((await events.listUnpublished({ now: T0 })).items.map((e) => e.envelope.id)).toEqual(['b']);
      expect(await events.get('a', T0 + MINUTE)).toMatchObject({
        published: true,
        publishedAt: iso(T0 + MINUTE),
      });
    });

    it('appends idempotently by id', async () => {
      const { events } = await makeStores();
      expect(await events.append([envelope('a'), envelope('b'), envelope('a')], T0)).toEqual({
        written: ['a', 'b'],
        alreadyPresent: [],
      });
      expect(await events.append([envelope('b'), envelope('c')], T0)).toEqual({
        written: ['c'],
        alreadyPresent: ['b'],
      });
    });

    it('never returns an event past its retention, although TTL has not deleted it yet', async () => {
      const { events } = await makeStores({ eventRetentionMs: 2 * DAY });
      await events.append(
        [envelope('old', { detectedAtMs: T0 }), envelope('new', { detectedAtMs: T0 + DAY })],
        T0 + DAY,
      );
      const stored = await events.get('old', T0);
      expect(stored?.expiresAt).toBe((T0 + 2 * DAY) / 1000);
      const later = T0 + 2 * DAY + 1;
      expect(await events.get('old', later)).toBeUndefined();
      expect(
        (await events.listByVehicle({ vehicleId: 'veh-1', now: later })).items.map((e) => e.envelope.id),
      ).toEqual(['new']);
      expect((await events.listUnpublished({ now: later })).items.map((e) => e.envelope.id)).toEqual(['new']);
      expect(
        (await events.listByTime({ since: iso(T0 - DAY), until: iso(later), now: later })).items.map(
          (e) => e.envelope.id,
        ),
      ).toEqual(['new']);
    });

    it('refuses a cursor it did not issue and an out-of-range page size', async () => {
      const { events } = await makeStores();
      expect((await rejection(events.listUnpublished({ now: T0, cursor: 'garbage!' }))).message).toContain(
        'cursor',
      );
      expect((await rejection(events.listUnpublished({ now: T0, limit: 0 }))).message).toContain('limit');
    });
  });

  describe(`${name}: leases`, () => {
    it('gives a lease to exactly one of many concurrent acquirers', async () => {
      const { leases } = await makeStores();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => leases.acquire('refresh:enr-1', `worker-${i}`, 30_000, T0)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('lets the holder renew and release it, and anyone take it once expired', async () => {
      const { leases } = await makeStores();
      expect(await leases.acquire('l', 'a', 10_000, T0)).toBe(true);
      expect(await leases.acquire('l', 'b', 10_000, T0 + 9_999)).toBe(false);
      expect(await leases.acquire('l', 'a', 10_000, T0 + 5_000)).toBe(true);
      expect(await leases.acquire('l', 'b', 10_000, T0 + 14_999)).toBe(false);
      expect(await leases.acquire('l', 'b', 10_000, T0 + 15_000)).toBe(true);
      expect(await leases.release('l', 'a')).toBe(false);
      expect(await leases.release('l', 'b')).toBe(true);
      expect(await leases.acquire('l', 'c', 10_000, T0 + 15_001)).toBe(true);
    });
  });
}
