import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const enrollmentReauthorizationRequired = defineEvent({
  type: 'enrollment.reauthorization_required',
  version: 1,
  producer: 'token store (refresh failed with invalid_grant)',
  audience: 'all',
  description:
    'The enrollment lost its authorization (e.g. refresh token revoked); polling is paused until the user authorizes again.',
  data: () =>
    z.object({
      enrollmentId: z.string().min(1),
      reason: z.string().min(1).describe('e.g. invalid_grant'),
      description: z.string().optional().describe('error description from the authorization server, if any'),
      pausedAt: isoDate,
      vehicleIds: z
        .array(z.string().min(1))
        .optional()
        .describe(
          "Carhook's ids of the enrollment's vehicles whose polling is paused until the user authorizes again",
        ),
      vins: z.array(z.string().min(1)).optional().describe('the VINs of those vehicles, in the same order'),
      authorizeUrl: z
        .string()
        .min(1)
        .optional()
        .describe(
          "Carhook's authorize link to send the user to (GET /oauth/<brand>/authorize), when Carhook knows its public URL",
        ),
    }),
});
