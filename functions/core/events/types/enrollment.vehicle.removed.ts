import * as z from 'zod';
import { defineEvent } from '../common';
import { vehicleFields } from './enrollment.vehicle.added';

export const enrollmentVehicleRemoved = defineEvent({
  type: 'enrollment.vehicle.removed',
  version: 1,
  producer: 'diff engine (enrollment vehicle list)',
  audience: 'all',
  description: "A vehicle is no longer in the user's complete vehicle list: Carhook stops polling it.",
  data: () => z.object(vehicleFields()),
});
