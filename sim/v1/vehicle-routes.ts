import type { Hono } from 'hono';
import type { SimVehicle, WorldMutations, WorldView } from '../world/types';
import { V1Failure } from './failure';
import { formatStamp } from './format';
import type { V1Kit } from './kit';
import { parseActive, parseDay, parseNear, parseTripId } from './params';
import { alertsInState, renderAlert } from './render/alerts';
import { renderEnvironment } from './render/environment';
import { renderMaintenance } from './render/maintenance';
import { renderLastPosition, renderTripPositions } from './render/position';
import { alertReferential, ecodrivingReferential, maintenanceReferential } from './render/referential';
import { renderDrivingAssistance, renderLightStatus, renderSafetyAssistance } from './render/signals';
import { lastDataAt, lastDataOnDay, tripByV1Id } from './window';

/** Environment, maintenance and alerts, positions, referentials, lights and driving assistance. */
export function vehicleStateRoutes(app: Hono, world: WorldView & WorldMutations, kit: V1Kit): void {
  // ------------------------------------------------------------------ environment

  app.post('/environment/list', async (c) => {
    const seconds = kit.secondsOf(c);
    const vehicles = await kit.bulk(c);
    return c.json(vehicles.map((v) => renderEnvironment(world, v, seconds)));
  });

  app.get('/environment/get/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    return c.json(renderEnvironment(world, kit.single(c), seconds));
  });

  // ------------------------------------------------------------------ maintenance and alerts

  app.get('/maintenance/alert/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const active = parseActive(kit.need(c, 'active'));
    const vehicle = kit.single(c);
    const all = world.alerts(vehicle.id);
    const latest = Math.max(vehicle.updatedAt, ...all.map((a) => a.updatedAt));
    return c.json({
      listAlert: alertsInState(all, active).map((a) => renderAlert(vehicle, a, locale.lang, false)),
      vin: vehicle.vin,
      contract: vehicle.contract,
      lastUpdate: formatStamp(latest),
    });
  });

  app.post('/maintenance/list/alert', async (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const active = parseActive(kit.need(c, 'active'));
    const vehicles = await kit.bulk(c);
    return c.json({
      listAlert: vehicles.flatMap((v) =>
        alertsInState(world.alerts(v.id), active).map((a) => renderAlert(v, a, locale.lang, true)),
      ),
    });
  });

  app.post('/maintenance/list', async (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const records = [];
    for (const vehicle of await kit.bulk(c)) {
      const maintenance = world.maintenance(vehicle.id);
      if (maintenance) records.push(renderMaintenance(world, vehicle, maintenance, locale.lang));
    }
    return c.json(records);
  });

  app.get('/maintenance/:vin', (c) => {
    const locale = kit.localeOf(c);
    kit.brandOf(c);
    const vehicle = kit.single(c);
    const maintenance = world.maintenance(vehicle.id);
    if (!maintenance)
      throw new V1Failure('not_found', 'vin', `no maintenance data for vehicle ${vehicle.vin}`);
    return c.json(renderMaintenance(world, vehicle, maintenance, locale.lang));
  });

  // ------------------------------------------------------------------ positions

  const geolocated = (vehicle: SimVehicle): SimVehicle => {
    // The API has no geolocation data (404) when the user did not allow its collection.
    if (!vehicle.geolocationAllowed) {
      throw new V1Failure(
        'not_found',
        'vin',
        `no geolocation data: collection is not allowed for ${vehicle.vin}`,
      );
    }
    return vehicle;
  };

  app.get('/place/lastposition/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const near = parseNear(kit.need(c, 'near'));
    const vehicle = geolocated(kit.single(c));
    return c.json(renderLastPosition(world, vehicle, lastDataAt(world, vehicle), seconds, near));
  });

  app.get('/place/positions/trip/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const near = parseNear(kit.need(c, 'near'));
    const tripId = parseTripId(kit.need(c, 'tripid'));
    const vehicle = geolocated(kit.single(c));
    return c.json(renderTripPositions(vehicle, tripByV1Id(world, vehicle, tripId), seconds, near));
  });

  // ------------------------------------------------------------------ referentials

  app.get('/referential/maintenance', (c) => {
    const locale = kit.optionalLocale(c);
    kit.optionalBrand(c);
    return c.json(maintenanceReferential(locale.lang));
  });

  app.get('/referential/alert', (c) => {
    const locale = kit.optionalLocale(c);
    kit.optionalBrand(c);
    return c.json(alertReferential(locale.lang));
  });

  app.get('/referential/ecodriving', (c) => {
    const locale = kit.optionalLocale(c);
    kit.optionalBrand(c);
    return c.json(ecodrivingReferential(locale.lang));
  });

  // ------------------------------------------------------------------ running and safety

  app.post('/running/lightstatus/list', async (c) => {
    const seconds = kit.secondsOf(c);
    const vehicles = await kit.bulk(c);
    return c.json(vehicles.map((v) => renderLightStatus(world, v, lastDataAt(world, v), seconds)));
  });

  app.get('/safety/drivingassistance/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const vehicle = kit.single(c);
    return c.json(renderDrivingAssistance(world, vehicle, lastDataAt(world, vehicle), seconds));
  });

  app.get('/safety/search/drivingassistance/day/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const day = parseDay(kit.need(c, 'day'), 'day');
    const vehicle = kit.single(c);
    const end = lastDataOnDay(world, vehicle, day.from, day.to);
    return c.json(renderDrivingAssistance(world, vehicle, end, seconds));
  });

  app.get('/safety/safetyassistance/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const vehicle = kit.single(c);
    return c.json(renderSafetyAssistance(world, vehicle, lastDataAt(world, vehicle), seconds));
  });

  app.get('/safety/search/safetyassistance/day/:vin', (c) => {
    const seconds = kit.secondsOf(c);
    const day = parseDay(kit.need(c, 'day'), 'day');
    const vehicle = kit.single(c);
    const end = lastDataOnDay(world, vehicle, day.from, day.to);
    return c.json(renderSafetyAssistance(world, vehicle, end, seconds));
  });
}
