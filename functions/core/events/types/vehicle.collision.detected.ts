import * as z from 'zod';
import { collisionLevel, defineEvent, isoDate, position } from '../common';

export const vehicleCollisionDetected = defineEvent({
  type: 'vehicle.collision.detected',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    'The vehicle recorded a collision (from the collision list, a vehicle event, or v1 crash data).',
  data: () =>
    z.object({
      collisionId: z.string().min(1),
      front: collisionLevel,
      rear: collisionLevel,
      lateral: collisionLevel,
      maxLevel: collisionLevel.describe('the highest of front, rear and lateral'),
      rollOver: z.boolean(),
      pedestrian: z.boolean(),
      tripId: z.string().optional().describe('the trip during which it happened, when the API links one'),
      position: position.optional(),
      collidedAt: isoDate.optional(),
    }),
});
