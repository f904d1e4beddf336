import * as z from 'zod';
import { defineEvent } from '../common';
import { fuelFields } from './vehicle.refuel.detected';

export const vehicleFuelTheftDetected = defineEvent({
  type: 'vehicle.fuel_theft.detected',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description: 'Fuel was siphoned from the tank (v2 FUEL_STOLEN event, or a v1 trip flagged `siphoning`).',
  data: () => z.object(fuelFields()),
});
