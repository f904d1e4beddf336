import * as z from 'zod';
import { defineEvent, ecoDriving, isoDate, position } from '../common';

export const vehicleTripCompleted = defineEvent({
  type: 'vehicle.trip.completed',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'A trip ended (ignition off), with its figures and, when available, its eco-driving scores.',
  data: () =>
    z.object({
      tripId: z.string().min(1),
      startedAt: isoDate.optional(),
      stoppedAt: isoDate.optional(),
      durationS: z.number().nonnegative().optional(),
      distanceKm: z.number().nonnegative().optional(),
      fuelConsumptionL: z.number().optional().describe('liters used during the trip'),
      avgConsumptionL100: z.number().optional().describe('liters per 100 km'),
      avgSpeedKmh: z.number().optional(),
      co2Estimated: z.number().optional().describe('estimated CO2 emission as the API reports it'),
      refueling: z.boolean().optional().describe('a refuel was made just before the trip'),
      reference: z.boolean().optional().describe('the trip is a reference (favourite) trip'),
      startPosition: position.optional(),
      stopPosition: position.optional(),
      ecoDriving: ecoDriving.optional(),
      ecoDrivingStatus: z
        .enum(['included', 'unavailable'])
        .describe('unavailable: no eco-driving evaluation arrived within the wait (see detection README)'),
    }),
});
