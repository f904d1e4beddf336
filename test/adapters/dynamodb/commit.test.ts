import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDynamoStores, WRITE_OPERATIONS } from '../../../functions/adapters/dynamodb/index';
import { scheduleNeedsWrite } from '../../../functions/core/store/schedule';
import { envelope, iso, MINUTE, newVehicle, T0 } from '../../store/fixtures';
import {
  createSimulatedClockTable,
  localDynamoClient,
  onDynamoCall,
  uniqueTableName,
} from '../../support/dynamodb';

/** Counts the write requests a client sends (middleware on the client every adapter shares). */
function countWrites(client: DynamoDBClient): { writes: () => number; reset: () => void; names: string[] } {
  const names: string[] = [];
  onDynamoCall(client, (operation, _input, next) => {
    if (WRITE_OPERATIONS.has(operation)) names.push(operation);
    return next();
  });
  return { writes: () => names.length, reset: () => names.splice(0), names };
}

async function setup() {
  const client = localDynamoClient();
  const counter = countWrites(client);
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  return { client, counter, stores: createDynamoStores({ client, tableName }) };
}

describe('DynamoDB commitPoll beyond one transaction', () => {
  it('logs the events first and reports a VersionConflict when the state lost; the winner’s re-diff writes no duplicate', async () => {
    const { stores } = await setup();
    await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 0,
      state: 's1',
      stateFormat: 'f',
      events: [],
      now: T0,
    });
    const many = Array.from({ length: 101 }, (_, i) => envelope(`big-${i}`, { detectedAtMs: T0 + i }));
    const stale = await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 0,
      state: 'stale',
      stateFormat: 'f',
      events: many,
      now: T0,
    });
    expect(stale).toMatchObject({ kind: 'VersionConflict', current: { state: 's1', version: 1 } });
    // The events were real changes with deterministic ids: they stay logged (unpublished)...
    expect((await stores.events.listUnpublished({ now: T0, limit: 1000 })).items).toHaveLength(101);
    // ...and the re-diff on the current state finds the same changes: nothing written twice.
    const retry = await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 1,
      state: 's2',
      stateFormat: 'f',
      events: many,
      now: T0 + MINUTE,
    });
    expect(retry).toMatchObject({ kind: 'Committed', version: 2, eventsWritten: [] });
    if (retry.kind === 'Committed') expect(retry.eventsAlreadyPresent).toHaveLength(101);
  });

  it('commits events whose total size exceeds one transaction', async () => {
    const { stores } = await setup();
    // 20 events of ~250 KB: 5 MB, over the 4 MB transaction limit although under 100 actions.
    const big = Array.from({ length: 20 }, (_, i) =>
      envelope(`fat-${i}`, { detectedAtMs: T0 + i, data: { blob: 'x'.repeat(250_000) } }),
    );
    const result = await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 0,
      state: 's',
      stateFormat: 'f',
      events: big,
      now: T0,
    });
    expect(result).toMatchObject({ kind: 'Committed', version: 1 });
    expect((await stores.events.get('fat-19', T0))?.envelope.data).toEqual({ blob: 'x'.repeat(250_000) });
  });
});

describe('DynamoDB writes per poll', () => {
  it('writes nothing in a steady-state poll and one item for a committed change (measured with a write counter)', async () => {
    const { stores, counter } = await setup();
    await stores.vehicles.put(newVehicle('veh-1', 'enr-1', T0), T0);
    await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 0,
      state: 's1',
      stateFormat: 'f',
      events: [],
      now: T0,
    });
    counter.reset();
    // 20 steady-state polls, one per cycle: read, (the diff finds nothing), decide the schedule.
    const polls = 20;
    for (let cycle = 1; cycle <= polls; cycle += 1) {
      const now = T0 + cycle * MINUTE;
      const { vehicle, state } = await stores.states.getVehicleWithState('veh-1');
      expect(state?.version).toBe(1);
      const update = { nextPollAt: iso(now + MINUTE), lastPolledAt: iso(now) };
      if (vehicle && scheduleNeedsWrite(vehicle, update, now))
        await stores.vehicles.touchSchedule('veh-1', update, now);
    }
    const steadyWrites = counter.writes();
    expect(steadyWrites).toBe(0);
    console.info(
      `[figures] DynamoDB writes per steady-state poll: ${steadyWrites / polls} (${steadyWrites} in ${polls} polls)`,
    );

    // Without the policy, a touch per poll is exactly one UpdateItem.
    counter.reset();
    await stores.vehicles.touchSchedule('veh-1', { nextPollAt: iso(T0 + 30 * MINUTE) }, T0 + 21 * MINUTE);
    expect(counter.names).toEqual(['UpdateItem']);

    // A poll that found a change: one transaction (state + its events).
    counter.reset();
    await stores.states.commitPoll({
      vehicleId: 'veh-1',
      expectedVersion: 1,
      state: 's2',
      stateFormat: 'f',
      events: [envelope('e-1')],
      now: T0 + 22 * MINUTE,
    });
    expect(counter.names).toEqual(['TransactWriteItems']);

    // The shared rate budget: one write per take, so a planner reserving a cycle's 20 polls at once
    // costs 1/20 = 0.05 write per poll.
    // (The first take of a window also opens it: one more write per window, shared by all workers.)
    await stores.rateBudget.tryTake('client-1', 1, T0 + 22 * MINUTE);
    counter.reset();
    expect(await stores.rateBudget.tryTake('client-1', polls, T0 + 22 * MINUTE)).toEqual({ granted: true });
    expect(counter.writes()).toBe(1);
  });
});
