import type { Context, Hono } from 'hono';
import type { WorldMutations, WorldView } from '../world/types';
import type { V1Kit } from './kit';
import {
  DEFAULT_PICTURE,
  type PictureOptions,
  parseLimit,
  parsePictureBody,
  parsePrice,
  parseTripId,
} from './params';
import { renderTrip } from './render/trip';
import { renderPicture, renderReferenceFuelPrice, renderVehicleInformation } from './render/vehicle';
import { tripByV1Id } from './window';

/** Trips (with reference trips and fuel prices) and vehicle information and pictures. */
export function tripRoutes(app: Hono, world: WorldView & WorldMutations, kit: V1Kit): void {
  /** POST /vehicle/picture options per VIN; GET answers the defaults until a POST. */
  const pictures = new Map<string, { options: PictureOptions; updatedAt: number }>();
  // ------------------------------------------------------------------ trips

  app.get('/trip/get/referencetrip/:vin', (c) => {
    const unit = kit.unitOf(c, true);
    const vehicle = kit.single(c);
    const trips = kit.newestDone(vehicle).filter((t) => t.reference);
    return c.json({ trips: kit.tripRecords(vehicle, trips, unit) });
  });

  app.put('/trip/update/referencetrip/:vin', (c) => {
    const tripId = parseTripId(kit.need(c, 'tripid'));
    const vehicle = kit.single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    world.setReferenceTrip(trip.id, true);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, tripId, referenceTrip: 1 });
  });

  app.get('/trip/last/:vin', (c) => {
    const limit = parseLimit(kit.need(c, 'limit'));
    const unit = kit.unitOf(c, true);
    const vehicle = kit.single(c);
    const trips = kit.newestDone(vehicle);
    return c.json({
      totalNumberTrips: trips.length,
      trips: kit.tripRecords(vehicle, trips.slice(0, limit), unit),
    });
  });

  app.post('/trip/list', async (c) => {
    const range = kit.daySpan(c, 'from', 'to');
    const limit = parseLimit(kit.query(c, 'limit'));
    const unit = kit.unitOf(c, false);
    const vehicles = await kit.bulk(c);
    // `limit` applies per vehicle: one busy vehicle cannot crowd the others out of the answer.
    return c.json({
      trips: vehicles.flatMap((v) =>
        kit.tripRecords(v, kit.inRange(kit.newestDone(v), range).slice(0, limit), unit),
      ),
    });
  });

  app.get('/trip/period/:vin', (c) => {
    const range = kit.daySpan(c, 'from', 'to');
    const limit = parseLimit(kit.query(c, 'limit'));
    const unit = kit.unitOf(c, false);
    const vehicle = kit.single(c);
    const trips = kit.inRange(kit.newestDone(vehicle), range);
    return c.json({
      totalNumberTrips: trips.length,
      trips: kit.tripRecords(vehicle, trips.slice(0, limit), unit),
    });
  });

  app.get('/trip/id/:vin/:tripid', (c) => {
    const unit = kit.unitOf(c, true);
    const tripId = kit.pathTripId(c);
    const vehicle = kit.single(c);
    return c.json(renderTrip(world, vehicle, tripByV1Id(world, vehicle, tripId), unit));
  });

  app.put('/trip/update/fuelprice/:vin/:tripid', (c) => {
    const price = parsePrice(kit.need(c, 'price'));
    const tripId = kit.pathTripId(c);
    const vehicle = kit.single(c);
    const trip = tripByV1Id(world, vehicle, tripId);
    world.setTripFuelPrice(trip.id, price);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, tripId, fuelPrice: price });
  });

  app.put('/trip/update/reference/fuelprice/:vin', (c) => {
    const price = parsePrice(kit.need(c, 'price'));
    const vehicle = kit.single(c);
    world.setReferenceFuelPrice(vehicle.id, price);
    return c.json({ status: 'OK', vin: vehicle.vin, contract: vehicle.contract, fuelPrice: price });
  });

  app.get('/trip/get/reference/fuelprice/:vin', (c) => c.json(renderReferenceFuelPrice(kit.single(c))));

  // ------------------------------------------------------------------ vehicle

  app.get('/vehicle/information/:vin', (c) => c.json(renderVehicleInformation(kit.single(c))));

  const pictureVehicle = (c: Context) =>
    kit.vehicleOf(c.req.param('vin') ?? '', c.req.param('contract') ?? '');

  app.post('/vehicle/picture/:vin/:contract', async (c) => {
    const vehicle = pictureVehicle(c);
    const options = parsePictureBody(await c.req.text());
    const stored = { options, updatedAt: world.now() };
    pictures.set(vehicle.vin, stored);
    return c.json(renderPicture(vehicle, stored.options, stored.updatedAt));
  });

  app.get('/vehicle/picture/:vin/:contract', (c) => {
    const vehicle = pictureVehicle(c);
    const stored = pictures.get(vehicle.vin) ?? { options: DEFAULT_PICTURE, updatedAt: vehicle.updatedAt };
    return c.json(renderPicture(vehicle, stored.options, stored.updatedAt));
  });
}
