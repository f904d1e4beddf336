import * as z from 'zod';
import { defineEvent, isoDate } from '../common';

export const enrollmentReauthorizationRequired = defineEvent({
  type: 'enrollment.reauthorization_required',
  version: 1,
  producer: 'token store (refresh failed with invalid_grant)',
  audience: 'all',
  description:
    'The enrollment lost its authorization (e.g. refresh token revoked); polling is paused until the user authorizes again.',
  data: z.object({
    enrollmentId: z.string().min(1),
    reason: z.string().min(1).describe('e.g. invalid_grant'),
    description: z.string().optional().describe('error description from the authorization server, if any'),
    pausedAt: isoDate,
  }),
});
