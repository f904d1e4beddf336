import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildEvent, EVENT_TYPES as CATALOGUE_TYPES } from '../../functions/core/events/catalogue';
import { buildPayload, canonicalJson } from '../../functions/core/webhooks/payload';
import { generateSecret, sign } from '../../functions/core/webhooks/signing';
import { generate, generatedFile, guardName, typeName } from '../../packages/events/scripts/generate';
import * as generated from '../../packages/events/src/generated';
import {
  type CarhookEvent,
  EVENT_TYPES,
  isEventType,
  isKnownEvent,
  isVehicleAlertFixed,
  isVehicleAlertRaised,
  isWebhookTest,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../packages/events/src/index';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vector = JSON.parse(
  readFileSync(join(root, 'test', 'packages', 'standard-webhooks-vector.json'), 'utf8'),
) as { secret: string; id: string; timestamp: number; body: string; signature: string };

const NOW = new Date('2026-01-15T10:00:00.000Z');

const alertRaised = buildEvent('vehicle.alert.raised', {
  id: 'evt_0123456789abcdefghijklmnop',
  occurredAt: '2026-01-15T09:58:00.000Z',
  detectedAt: '2026-01-15T09:59:30.000Z',
  sequence: 7,
  vehicle: { id: 'veh_1', vin: 'VF1AAAAA555000001', brand: 'renault' },
  enrollment: { id: 'enr_1', kind: 'oauth-user' },
  source: { api: 'v2', operation: 'getVehicleAlerts', recordId: 'a-42' },
  data: {
    alertId: 'a-42',
    occurrence: 'a-42@2026-01-15T09:58:00.000Z',
    message: 'alertOilPressure',
    messageCode: 'alertOilPressure',
    severity: 'high',
    initial: false,
  },
});

/** A request as Carhook's delivery worker sends it, signed with each of `secrets`. */
function signedRequest(secrets: readonly string[], event: unknown = alertRaised, at = NOW) {
  const body = canonicalJson(buildPayload(event as typeof alertRaised));
  if (!body.ok) throw new Error(body.error.message);
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map((s) => {
    const signed = sign(s, alertRaised.id, timestamp, body.value);
    if (!signed.ok) throw new Error(signed.error.message);
    return signed.value;
  });
  return {
    body: body.value,
    headers: {
      'webhook-id': alertRaised.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatures.join(' '),
    },
  };
}

describe('@carhook/events verifyWebhook', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies the Standard Webhooks reference case', () => {
    vi.useFakeTimers({ now: vector.timestamp * 1000 });
    const headers = {
      'webhook-id': vector.id,
      'webhook-timestamp': String(vector.timestamp),
      'webhook-signature': vector.signature,
    };
    // The reference body is not a Carhook webhook: the signature passes, the shape check names `type`.
    expect(() => verifyWebhook(vector.secret, headers, vector.body)).toThrow(
      new WebhookPayloadError('type', 'is not a string'),
    );
    expect(() => verifyWebhook(generateSecret(), headers, vector.body)).toThrow(WebhookVerificationError);
  });

  it('returns the typed event Carhook signed, from a string, bytes, a Headers object or Node headers', () => {
    vi.useFakeTimers({ now: NOW });
    const secret = generateSecret();
    const { body, headers } = signedRequest([secret]);
    const fromString = verifyWebhook(secret, headers, body);
    expect(fromString).toEqual({
      type: 'vehicle.alert.raised',
      timestamp: '2026-01-15T09:58:00.000Z',
      data: alertRaised,
    });
    expect(verifyWebhook([secret], new Headers(headers), new TextEncoder().encode(body))).toEqual(fromString);
    const nodeStyle = {
      'Webhook-Id': [headers['webhook-id']],
      ...{ 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'] },
    };
    expect(
      verifyWebhook(secret, { ...nodeStyle, 'webhook-signature': headers['webhook-signature'] }, body).data
        .id,
    ).toBe(alertRaised.id);
    const event = fromString.data;
    if (!isVehicleAlertRaised(event)) throw new Error('expected a vehicle.alert.raised event');
    expect(event.data.messageCode).toBe('alertOilPressure');
  });

  it('accepts any of several secrets during a rotation, in either order', () => {
    vi.useFakeTimers({ now: NOW });
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()];
    const { body, headers } = signedRequest([newSecret, oldSecret]);
    expect(verifyWebhook([oldSecret], headers, body).data.id).toBe(alertRaised.id);
    expect(verifyWebhook([newSecret, oldSecret], headers, body).data.id).toBe(alertRaised.id);
    expect(verifyWebhook([generateSecret(), newSecret], headers, body).data.id).toBe(alertRaised.id);
    expect(() => verifyWebhook([generateSecret(), generateSecret()], headers, body)).toThrow(
      WebhookVerificationError,
    );
  });

  it('refuses a changed body, a missing header, a stale timestamp and an empty secret list', () => {
    vi.useFakeTimers({ now: NOW });
    const secret = generateSecret();
    const { body, headers } = signedRequest([secret]);
    expect(() => verifyWebhook(secret, headers, body.replace('high', 'low'))).toThrow(
      WebhookVerificationError,
    );
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      expect(() => verifyWebhook(secret, rest, body)).toThrow(`Missing required header ${name}`);
    }
    const stale = signedRequest([secret], alertRaised, new Date(NOW.getTime() - 6 * 60_000));
    expect(() => verifyWebhook(secret, stale.headers, stale.body)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook([], headers, body)).toThrow('No secret to verify with');
  });

  it('names the field when a correctly signed body is not a Carhook webhook', () => {
    vi.useFakeTimers({ now: NOW });
    const secret = generateSecret();
    const cases: Array<[unknown, string]> = [
      [[1, 2], 'body'],
      [{ type: 'vehicle.alert.raised', timestamp: 5, data: {} }, 'timestamp'],
      [{ type: 'vehicle.alert.raised', timestamp: 't', data: null }, 'data'],
      [{ type: 'vehicle.alert.raised', timestamp: 't', data: { type: 'vehicle.alert.raised' } }, 'data.id'],
      [
        { type: 'vehicle.alert.raised', timestamp: 't', data: { id: 'e', type: 'webhook.test' } },
        'data.type',
      ],
      [
        { type: 'vehicle.alert.raised', timestamp: 't', data: { id: 'e', type: 'vehicle.alert.raised' } },
        'data.schemaVersion',
      ],
    ];
    for (const [payload, field] of cases) {
      const body = JSON.stringify(payload);
      const timestamp = Math.floor(NOW.getTime() / 1000);
      const signed = sign(secret, 'msg_1', timestamp, body);
      if (!signed.ok) throw new Error(signed.error.message);
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signed.value,
      };
      let caught: unknown;
      try {
        verifyWebhook(secret, headers, body);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WebhookPayloadError);
      expect((caught as WebhookPayloadError).field).toBe(field);
    }
  });
});

describe('@carhook/events types and guards', () => {
  it('lists exactly the catalogue event types', () => {
    expect([...EVENT_TYPES].sort()).toEqual([...CATALOGUE_TYPES].sort());
  });

  it('has one guard per event type that accepts only that type at its current version', () => {
    const guards = generated as unknown as Record<
      string,
      (e: { type: string; schemaVersion?: unknown }) => boolean
    >;
    for (const type of EVENT_TYPES) {
      const guard = guards[guardName(type)];
      expect(guard, guardName(type)).toBeTypeOf('function');
      for (const other of EVENT_TYPES) {
        expect(guard?.({ type: other, schemaVersion: 1 }), `${guardName(type)}(${other})`).toBe(
          other === type,
        );
      }
      expect(guard?.({ type, schemaVersion: 2 })).toBe(false);
      expect(guard?.({ type })).toBe(false);
    }
  });

  it('narrows with isEventType and recognises only known types and versions', () => {
    const event: { type: string; schemaVersion: number } = alertRaised;
    expect(isEventType(event, 'vehicle.alert.raised')).toBe(true);
    expect(isEventType(event, 'vehicle.alert.fixed')).toBe(false);
    expect(isVehicleAlertFixed(event)).toBe(false);
    expect(isWebhookTest({ type: 'webhook.test', schemaVersion: 1 })).toBe(true);
    expect(isKnownEvent({ type: 'vehicle.teleported', schemaVersion: 1 })).toBe(false);
    expect(isKnownEvent({ type: 'vehicle.alert.raised', schemaVersion: 2 })).toBe(false);
    const known: { type: string; schemaVersion: number } = {
      type: 'vehicle.trip.completed',
      schemaVersion: 1,
    };
    if (isKnownEvent(known)) {
      const narrowed: CarhookEvent = known;
      expect(narrowed.type).toBe('vehicle.trip.completed');
    } else {
      throw new Error('vehicle.trip.completed v1 should be known');
    }
  });

  it('names interfaces after the event type and version', () => {
    expect(typeName('vehicle.alert.fixed', 1)).toBe('VehicleAlertFixedV1');
    expect(typeName('enrollment.reauthorization_required', 2)).toBe('EnrollmentReauthorizationRequiredV2');
    expect(guardName('vehicle.fuel_theft.detected')).toBe('isVehicleFuelTheftDetected');
  });

  it('keeps src/generated.ts in step with events-schemas/', async () => {
    expect(await generate()).toBe(readFileSync(generatedFile, 'utf8'));
  });
});

describe('@carhook/events package', () => {
  it('packs ESM, CommonJS, declarations for both and the JSON Schemas, and loads both ways', () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const out = execFileSync(npm, ['pack', '--dry-run', '--json', '-w', '@carhook/events'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const files =
      (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.cjs',
        'dist/index.d.ts',
        'dist/index.d.cts',
        'dist/generated.d.ts',
        'dist/generated.d.cts',
        'schemas/vehicle.alert.fixed.v1.json',
      ]),
    );
    expect(files.filter((f) => f.startsWith('schemas/'))).toHaveLength(CATALOGUE_TYPES.length);
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('scripts/'))).toBe(false);
    const dir = join(root, 'packages', 'events');
    const cjs = execFileSync(
      process.execPath,
      [
        '-e',
        "const e = require('./dist/index.cjs'); console.log(e.EVENT_TYPES.length, typeof e.verifyWebhook)",
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    const esm = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const e = await import('./dist/index.js'); console.log(e.EVENT_TYPES.length, typeof e.verifyWebhook)",
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(cjs.trim()).toBe(`${CATALOGUE_TYPES.length} function`);
    expect(esm.trim()).toBe(`${CATALOGUE_TYPES.length} function`);
  }, 120_000);
});
