/**
 * The answer of `GET /vehicles/{id}/state`, named in the OpenAPI document like the rest of the
 * contract (./contract.ts): what Carhook stores of a vehicle, each part with the time it was read.
 * Like the contract, it imports nothing that needs Node (the console's typecheck reads it).
 */
import * as z from 'zod';
import { latestParts } from '../core/detection/latest-record';
import { named, vehicleSchema } from './contract';

const iso = z.string().meta({ format: 'date-time' });
const parts = latestParts(iso);

export const vehicleStateSchema = named(
  'VehicleState',
  z
    .object({
      vehicle: vehicleSchema,
      polled: z.boolean().meta({ description: 'false until the first poll: nothing known yet' }),
      sequence: z.number().int().nonnegative().meta({
        description: "the last sequence of this vehicle's events: every event up to it is reflected here",
      }),
      activeAlerts: z.array(
        z.object({
          key: z.string(),
          message: z.string(),
          severity: z.string().optional(),
          category: z.string().optional(),
          startedAt: iso.optional(),
          readAt: iso,
        }),
      ),
      maintenance: z
        .object({ days: z.number(), mileageKm: z.number(), updatedAt: iso.optional(), readAt: iso })
        .optional(),
      lastTrip: parts.record.optional(),
      lastCollision: parts.record.optional(),
      position: parts.position.optional(),
      fuel: parts.fuel.optional(),
      lastActivityAt: iso.optional(),
      lastReadAt: iso.optional(),
    })
    .meta({ description: 'The latest known state of a vehicle, each part with the time it was read.' }),
);

export type VehicleState = z.output<typeof vehicleStateSchema>;
