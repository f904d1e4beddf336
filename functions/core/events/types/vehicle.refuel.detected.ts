import * as z from 'zod';
import { defineEvent, isoDate, position } from '../common';

export const fuelFields = () => ({
  recordId: z.string().min(1).describe('id of the underlying record (v2 event record, or v1 trip)'),
  tripId: z.string().optional(),
  at: isoDate.optional().describe('when the API recorded it'),
  cost: z.number().optional().describe('cost as the API reports it (v1 only)'),
  fuelLevel: z.number().optional().describe('fuel tank level after it, percent, when known'),
  fuelChangeL: z
    .number()
    .optional()
    .describe(
      'change of the fuel in the tank, liters: positive for a refuel, negative for fuel taken (v2 record `liters`)',
    ),
  position: position.optional().describe('where the vehicle was, when the API says'),
});

export const vehicleRefuelDetected = defineEvent({
  type: 'vehicle.refuel.detected',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'The vehicle was refueled (v2 REFUEL event, or a v1 trip flagged `refueling`).',
  data: () => z.object(fuelFields()),
});
