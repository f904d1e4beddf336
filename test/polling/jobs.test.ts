import { describe, expect, it } from 'vitest';
import { InvalidJobError, jobSchemas, parsePollJob } from '../../functions/core/polling/jobs';

const plannedAt = '2026-01-15T09:00:00.000Z';
const id256 = 'v'.repeat(256);
const id257 = 'v'.repeat(257);

const vehicleJob = (over: Record<string, unknown> = {}) => ({
  kind: 'poll-vehicle',
  vehicleId: 'enr_1:v-1',
  resources: ['events'],
  strategy: 'carhook',
  plannedAt,
  ...over,
});
const fleetJob = (over: Record<string, unknown> = {}) => ({
  kind: 'poll-fleet',
  brand: 'C',
  vehicleIds: ['f1'],
  plannedAt,
  ...over,
});
const mapJob = (over: Record<string, unknown> = {}) => ({
  kind: 'poll-map',
  vehicleIds: ['m1'],
  plannedAt,
  ...over,
});
const discoverJob = (over: Record<string, unknown> = {}) => ({
  kind: 'discover-vehicles',
  enrollmentId: 'enr_1',
  plannedAt,
  ...over,
});

/** The error a body gets: its class, the field it names and the whole message. */
function refusal(body: unknown): { field: string; message: string; kind: string; name: string } {
  try {
    parsePollJob(body);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidJobError);
    const error = e as InvalidJobError;
    return { field: error.field, message: error.message, kind: error.kind, name: error.name };
  }
  throw new Error('accepted');
}

describe('poll job messages', () => {
  it('reads each kind of job, with the defaults of a missing rotate flag', () => {
    expect(parsePollJob(vehicleJob())).toStrictEqual({ ...vehicleJob(), rotate: false });
    expect(parsePollJob(vehicleJob({ rotate: true, followUps: false }))).toStrictEqual({
      ...vehicleJob(),
      rotate: true,
      followUps: false,
    });
    expect(parsePollJob(fleetJob())).toStrictEqual({ ...fleetJob(), rotate: false });
    expect(parsePollJob(fleetJob({ brand: 'P', rotate: true }))).toStrictEqual({
      ...fleetJob(),
      brand: 'P',
      rotate: true,
    });
    expect(parsePollJob(mapJob())).toStrictEqual(mapJob());
    expect(parsePollJob(discoverJob())).toStrictEqual(discoverJob());
  });

  it('takes ids of 1 to 256 characters and every resource list of at least one', () => {
    expect(parsePollJob(vehicleJob({ vehicleId: id256 }))).toMatchObject({ vehicleId: id256 });
    expect(parsePollJob(vehicleJob({ vehicleId: 'v' }))).toMatchObject({ vehicleId: 'v' });
    const all = ['events', 'alerts', 'collisions', 'trips', 'maintenance', 'services', 'map'];
    expect(parsePollJob(vehicleJob({ resources: all }))).toMatchObject({ resources: all });
    expect(parsePollJob(fleetJob({ vehicleIds: ['f1', id256] }))).toMatchObject({
      vehicleIds: ['f1', id256],
    });
    expect(parsePollJob(mapJob({ vehicleIds: ['m1', id256] }))).toMatchObject({ vehicleIds: ['m1', id256] });
    expect(parsePollJob(discoverJob({ enrollmentId: id256 }))).toMatchObject({ enrollmentId: id256 });
    expect(parsePollJob(discoverJob({ enrollmentId: 'e' }))).toMatchObject({ enrollmentId: 'e' });
  });

  it('refuses an id that is empty or longer than 256 characters, naming the field', () => {
    expect(refusal(vehicleJob({ vehicleId: '' })).field).toBe('vehicleId');
    expect(refusal(vehicleJob({ vehicleId: id257 })).field).toBe('vehicleId');
    expect(refusal(fleetJob({ vehicleIds: ['f1', ''] })).field).toBe('vehicleIds.1');
    expect(refusal(fleetJob({ vehicleIds: ['f1', id257] })).field).toBe('vehicleIds.1');
    expect(refusal(mapJob({ vehicleIds: ['m1', ''] })).field).toBe('vehicleIds.1');
    expect(refusal(mapJob({ vehicleIds: ['m1', id257] })).field).toBe('vehicleIds.1');
    expect(refusal(discoverJob({ enrollmentId: '' })).field).toBe('enrollmentId');
    expect(refusal(discoverJob({ enrollmentId: id257 })).field).toBe('enrollmentId');
  });

  it('refuses empty lists, unknown resources, brands and strategies, naming the field', () => {
    expect(refusal(vehicleJob({ resources: [] })).field).toBe('resources');
    expect(refusal(vehicleJob({ resources: ['events', 'tea'] })).field).toBe('resources.1');
    expect(refusal(vehicleJob({ strategy: 'fast' })).field).toBe('strategy');
    expect(refusal(vehicleJob({ rotate: 'yes' })).field).toBe('rotate');
    expect(refusal(vehicleJob({ followUps: 'no' })).field).toBe('followUps');
    expect(refusal(fleetJob({ vehicleIds: [] })).field).toBe('vehicleIds');
    expect(refusal(fleetJob({ brand: 'X' })).field).toBe('brand');
    expect(refusal(fleetJob({ rotate: 1 })).field).toBe('rotate');
    expect(refusal(mapJob({ vehicleIds: [] })).field).toBe('vehicleIds');
  });

  it('takes a plan time only as an ISO 8601 UTC date with milliseconds, on every kind', () => {
    for (const bad of [
      '2026-01-15T09:00:00Z',
      '2026-01-15T09:00:00.000',
      '2026-01-15T09:00:00.000+00:00',
      '2026-01-15 09:00:00.000Z',
      'x2026-01-15T09:00:00.000Z',
      '2026-01-15T09:00:00.000Zx',
      '26-01-15T09:00:00.000Z',
      '',
    ]) {
      for (const job of [vehicleJob, fleetJob, mapJob, discoverJob]) {
        expect(refusal(job({ plannedAt: bad }))).toMatchObject({
          field: 'plannedAt',
          message: 'poll job plannedAt: must be an ISO 8601 UTC date',
        });
      }
    }
  });

  it('names the body when it is not a job at all, and the kind when it is unknown', () => {
    const text = refusal('text');
    expect(text).toMatchObject({ field: 'body', name: 'InvalidJobError', kind: 'InvalidJob' });
    expect(text.message).toMatch(/^poll job body: ./);
    expect(refusal(null).field).toBe('body');
    const kind = refusal({ kind: 'nope' });
    expect(kind.field).toBe('kind');
    expect(kind.message).toMatch(/^poll job kind: ./);
    expect(refusal(vehicleJob({ resources: ['tea'] })).message).toMatch(/^poll job resources\.0: ./);
  });
});

describe('the job schemas', () => {
  it('are built once, on first use, and are the ones parsePollJob applies', () => {
    const schemas = jobSchemas();
    expect(jobSchemas()).toBe(schemas);
    const body = { kind: 'poll-map', vehicleIds: ['v1'], plannedAt: '2026-11-01T08:00:00.000Z' };
    expect(parsePollJob(body)).toEqual(schemas.pollJobSchema.parse(body));
  });
});
