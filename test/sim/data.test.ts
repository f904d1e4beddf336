import { describe, expect, it } from 'vitest';
import { checkedOperation, SPEC_OPERATIONS } from '../../sim/spec/operations';
import { ALERT_MESSAGES, alertGroup, alertMessage, checkedEntry } from '../../sim/v1/labels';

describe('simulator data tables', () => {
  it('reads the operation list from its JSON copy, every entry with a known area and method', () => {
    expect(SPEC_OPERATIONS).toHaveLength(63);
    expect(SPEC_OPERATIONS[0]).toMatchObject({ id: 'v2.user', area: 'A', method: 'GET' });
  });

  it('refuses an operation entry with an unknown area or method, naming the entry', () => {
    expect(() => checkedOperation({ id: 'x.bad', area: 'Z', method: 'GET' })).toThrow(
      "operations.json: x.bad: unknown area 'Z'",
    );
    expect(() => checkedOperation({ id: 'x.bad', area: 'A', method: 'DELETE' })).toThrow(
      "operations.json: x.bad: unknown method 'DELETE'",
    );
  });

  it('reads the v1 alert messages from their JSON table', () => {
    expect(Object.keys(ALERT_MESSAGES)).toHaveLength(80);
    expect(alertMessage('alertOilPressure', 'en')).toBe('Oil pressure too low');
    expect(alertMessage('alertOilPressure', 'fr')).toBe("Pression d'huile insuffisante");
    expect(alertGroup('alertOilPressure')).toBe('ENGINE');
    expect(alertMessage('someNewCode', 'en')).toBe('Some new code');
    expect(alertGroup('someNewCode')).toBe('VEHICLE');
  });

  it('refuses an alert message entry without both texts or with an unknown group, naming the code', () => {
    expect(() => checkedEntry('x', ['Only English'])).toThrow(
      'alert-messages.json: x: expected [English, French, group]',
    );
    expect(() => checkedEntry('x', ['A', 'B', 'NOPE'])).toThrow('alert-messages.json: x');
    expect(checkedEntry('x', ['A', 'B', 'TYRES'])).toEqual(['A', 'B', 'TYRES']);
  });
});
