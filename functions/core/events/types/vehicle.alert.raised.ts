import * as z from 'zod';
import { defineEvent, isoDate, position, severity } from '../common';

export const alertFields = () => ({
  alertId: z.string().min(1).describe('id of the alert record (v2 `id`, v1 `idAlert`)'),
  occurrence: z
    .string()
    .min(1)
    .describe(
      'key of this occurrence of the alert: the same alert id raised again later is a new occurrence',
    ),
  message: z.string().describe('message as the API sent it: a code, or text in the language set by `locale`'),
  messageCode: z
    .string()
    .optional()
    .describe(
      "the API's code of the alert (e.g. alertOilPressure): the message when it is a code, else the code the API's alert referential lists for the message text; absent when the API gives none",
    ),
  localizedText: z.string().optional().describe('human-readable text of the alert when the API sent one'),
  advice: z.string().optional(),
  category: z.string().optional(),
  severity: severity
    .optional()
    .describe('low, medium, high (high: the API advises stopping the vehicle and calling a dealer)'),
  position: position.optional(),
  startedAt: isoDate.optional(),
});

export const vehicleAlertRaised = defineEvent({
  type: 'vehicle.alert.raised',
  version: 1,
  producer: 'diff engine',
  audience: 'all',
  description:
    'An alert became active on the vehicle dashboard (or was active when the vehicle was enrolled).',
  data: () =>
    z.object({
      ...alertFields(),
      initial: z.boolean().describe('true when the alert was already active at enrollment (first poll)'),
    }),
});
