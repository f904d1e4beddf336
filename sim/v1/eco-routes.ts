import type { Hono } from 'hono';
import type { WorldMutations, WorldView } from '../world/types';
import { V1Failure } from './failure';
import type { V1Kit } from './kit';
import { minuteSpan, parseDay, parseLimit, parseListSecond, parseMinute } from './params';
import {
  CRASH_LIST_DEFAULT_SECONDS,
  CRASH_SECONDS,
  collisionsNewestFirst,
  renderCrash,
} from './render/crash';
import { type EcoEvaluation, renderOverallEvaluation, renderTripEvaluation } from './render/eco';
import { keysOf, tripByV1Id } from './window';

/** Crash reports and eco-driving evaluations. */
export function ecoRoutes(app: Hono, world: WorldView & WorldMutations, kit: V1Kit): void {
  // ------------------------------------------------------------------ crash

  app.post('/crash/list', async (c) => {
    const raw = kit.query(c, 'listsecond');
    const keys =
      raw === undefined || raw === ''
        ? [...CRASH_LIST_DEFAULT_SECONDS]
        : keysOf(CRASH_SECONDS, parseListSecond(raw));
    const records = [];
    for (const vehicle of await kit.bulk(c)) {
      const latest = collisionsNewestFirst(world, vehicle)[0];
      if (latest) records.push(renderCrash(world, vehicle, latest, keys));
    }
    return c.json(records);
  });

  app.get('/crash/get/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const vehicle = kit.single(c);
    const latest = collisionsNewestFirst(world, vehicle)[0];
    if (!latest) throw new V1Failure('not_found', 'vin', `no crash recorded for vehicle ${vehicle.vin}`);
    return c.json(renderCrash(world, vehicle, latest, keysOf(CRASH_SECONDS, seconds)));
  });

  app.get('/crash/search/:vin', (c) => {
    const range = minuteSpan(
      parseMinute(kit.need(c, 'from'), 'from'),
      parseMinute(kit.need(c, 'to'), 'to'),
      'to',
    );
    const limit = parseLimit(kit.query(c, 'limit'));
    const vehicle = kit.single(c);
    const found = collisionsNewestFirst(world, vehicle)
      .filter((col) => col.createdAt >= range.from && col.createdAt < range.to)
      .slice(0, limit);
    return c.json(found.map((col) => renderCrash(world, vehicle, col, CRASH_SECONDS)));
  });

  // ------------------------------------------------------------------ eco-driving

  app.post('/ecodriving/evaluation/list', async (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const records: EcoEvaluation[] = [];
    for (const vehicle of await kit.bulk(c)) {
      const trips = kit.doneTrips(vehicle);
      if (trips.length > 0) records.push(renderOverallEvaluation(vehicle, trips, locale.lang));
    }
    return c.json(records);
  });

  app.post('/ecodriving/evaluation/trip/day/list', async (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const range = kit.daySpan(c, 'fromday', 'today');
    const vehicles = await kit.bulk(c);
    return c.json(vehicles.flatMap((v) => kit.aggregates(v, range, kit.byDay, locale)));
  });

  app.get('/ecodriving/evaluation/trip/day/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const range = kit.daySpan(c, 'fromday', 'today');
    return c.json(kit.aggregates(kit.single(c), range, kit.byDay, locale));
  });

  app.get('/ecodriving/evaluation/pertrip/:vin/:tripid', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const tripId = kit.pathTripId(c);
    const vehicle = kit.single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    return c.json(renderTripEvaluation(vehicle, trip, locale.lang));
  });

  app.post('/ecodriving/evaluation/trip/month/list', async (c) => {
    kit.brandOf(c);
    const locale = kit.localeOf(c);
    const range = kit.monthSpan(c);
    const vehicles = await kit.bulk(c);
    return c.json(vehicles.flatMap((v) => kit.aggregates(v, range, kit.byMonth, locale)));
  });

  app.get('/ecodriving/evaluation/trip/month/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const range = kit.monthSpan(c);
    return c.json(kit.aggregates(kit.single(c), range, kit.byMonth, locale));
  });

  app.get('/ecodriving/evaluation/get/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const vehicle = kit.single(c);
    const trips = kit.doneTrips(vehicle);
    if (trips.length === 0) {
      throw new V1Failure(
        'not_found',
        'vin',
        `no eco-driving evaluation: vehicle ${vehicle.vin} has no trip`,
      );
    }
    return c.json(renderOverallEvaluation(vehicle, trips, locale.lang));
  });

  app.get('/ecodriving/evaluation/lasttrip/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const vehicle = kit.single(c);
    const last = kit.newestDone(vehicle)[0];
    if (!last) throw new V1Failure('not_found', 'vin', `vehicle ${vehicle.vin} has no trip`);
    return c.json(renderTripEvaluation(vehicle, last, locale.lang));
  });

  app.get('/ecodriving/evaluation/daytrips/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const day = parseDay(kit.need(c, 'day'), 'day');
    const vehicle = kit.single(c);
    const trips = kit.inRange(kit.doneTrips(vehicle), day).sort((a, b) => a.startedAt - b.startedAt);
    return c.json(trips.map((t) => renderTripEvaluation(vehicle, t, locale.lang)));
  });
}
