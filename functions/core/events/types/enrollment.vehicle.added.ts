import * as z from 'zod';
import { defineEvent } from '../common';

export const vehicleFields = () => ({
  vehicleId: z.string().min(1),
  vin: z.string(),
  brand: z.string().optional(),
  model: z.string().optional(),
  energy: z.string().optional(),
});

export const enrollmentVehicleAdded = defineEvent({
  type: 'enrollment.vehicle.added',
  version: 1,
  producer: 'diff engine (enrollment vehicle list)',
  audience: 'all',
  description: "A vehicle appeared in the enrolled user's vehicle list: Carhook starts polling it.",
  data: () => z.object(vehicleFields()),
});
