/**
 * `messageCode` is the API's code of an alert: the message itself when it is a code, else the code
 * the API's alert referential lists for that exact text; never a guessed one.
 */
import { describe, expect, it } from 'vitest';
import { alertCodeBook } from '../../functions/core/detection/alert-codes';
import { diff } from '../../functions/core/detection/diff';
import { alert, baselined, context, obs } from './fixtures';

const book = alertCodeBook([
  { indicatorCode: 'alertOilPressure', indicatorLabel: 'Alert oil pressure', rgrpCode: 'ENGINE' },
  { indicatorCode: 'engineFault', indicatorLabel: 'Engine fault' },
  // The same text under two codes: ambiguous, left out.
  { indicatorCode: 'doorOpen', indicatorLabel: 'Door open' },
  { indicatorCode: 'trunkOpen', indicatorLabel: 'Door open' },
  { indicatorCode: '', indicatorLabel: 'No code' },
  { indicatorLabel: 'Missing code' },
]);

const raise = (message: string, codes?: ReadonlyMap<string, string>) => {
  const r = diff(baselined(), [obs('v2.alerts', [alert('a1', true, { message, startedAt: undefined })], 1)], {
    ...context(1),
    ...(codes ? { alertCodes: codes } : {}),
  });
  return r.events.map((e) => e.data);
};

describe('alert message codes', () => {
  it('the book maps each referential text to its code; ambiguous or blank entries are left out', () => {
    expect([...book.entries()]).toEqual([
      ['Alert oil pressure', 'alertOilPressure'],
      ['Engine fault', 'engineFault'],
    ]);
  });

  it('a localized message the referential lists gets its code, the text stays as localizedText', () => {
    expect(raise('Alert oil pressure', book)).toEqual([
      expect.objectContaining({
        message: 'Alert oil pressure',
        messageCode: 'alertOilPressure',
        localizedText: 'Alert oil pressure',
      }),
    ]);
  });

  it('a message the referential does not list (or ambiguous, or no referential) gets no code', () => {
    for (const [message, codes] of [
      ['Pression d’huile', book],
      ['Door open', book],
      ['Alert oil pressure', undefined],
    ] as const) {
      const [data] = raise(message, codes);
      expect(data).toMatchObject({ message, localizedText: message });
      expect(data).not.toHaveProperty('messageCode');
    }
  });

  it('a message that is itself a code keeps it, whatever the book says', () => {
    const [data] = raise('alertCoolantTemp', book);
    expect(data).toMatchObject({ messageCode: 'alertCoolantTemp' });
    expect(data).not.toHaveProperty('localizedText');
  });

  it('alert.fixed carries the code too', () => {
    const raised = diff(
      baselined(),
      [obs('v2.alerts', [alert('a1', true, { message: 'Engine fault', startedAt: undefined })], 1)],
      { ...context(1), alertCodes: book },
    );
    const fixed = diff(
      raised.state,
      [obs('v2.alerts', [alert('a1', false, { message: 'Engine fault', startedAt: undefined })], 2)],
      { ...context(2), alertCodes: book },
    );
    expect(fixed.events.map((e) => [e.type, (e.data as { messageCode?: string }).messageCode])).toEqual([
      ['vehicle.alert.fixed', 'engineFault'],
    ]);
  });
});
