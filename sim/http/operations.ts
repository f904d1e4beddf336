import { SPEC_OPERATIONS, type SpecOperation } from '../spec/operations';

/** A single-record read of the vehicle data API (bearer token plus `client_id`, HAL JSON). */
const singleRecord = (id: string, path: string, response: string): SpecOperation => ({
  id,
  area: 'A',
  method: 'GET',
  path,
  query: [],
  response,
  accept: 'application/hal+json',
  auth: 'bearer+client_id',
});

/**
 * Operations the simulator serves beyond operations.json: the links in the API's bodies point at
 * single collisions, alerts, eco-drivings and telemetry records without the list naming those reads,
 * so the links lead somewhere. Counted in stats like any other operation.
 */
export const EXTRA_OPERATIONS: readonly SpecOperation[] = [
  singleRecord('v2.collisions.get', '/connectedcar/v2/collisions/{id}', 'Collision'),
  singleRecord('v2.alerts.get', '/connectedcar/v2/alerts/{id}', 'Alert'),
  singleRecord('v2.ecodrivings.get', '/connectedcar/v2/ecodrivings/{id}', 'EcoDriving'),
  singleRecord('v2.telemetry.get', '/connectedcar/v2/telemetry/{id}', 'Telemetry'),
];

interface Compiled {
  readonly op: SpecOperation;
  readonly segments: readonly { literal?: string; param?: string }[];
  readonly literals: number;
}

function compile(op: SpecOperation): Compiled {
  const segments = op.path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      const m = /^\{(.+)\}$/.exec(s);
      return m?.[1] ? { param: m[1] } : { literal: s.toLowerCase() };
    });
  return { op, segments, literals: segments.filter((s) => s.literal !== undefined).length };
}

// Literal segments win over parameters (`/maintenance/list` before `/maintenance/{vin}`).
const COMPILED: readonly Compiled[] = [...SPEC_OPERATIONS, ...EXTRA_OPERATIONS]
  .map(compile)
  .sort((a, b) => b.literals - a.literals);

export interface OperationMatch {
  readonly op: SpecOperation;
  readonly params: Readonly<Record<string, string>>;
}

function matchPath(c: Compiled, parts: readonly string[]): Record<string, string> | undefined {
  if (c.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = c.segments[i];
    const part = parts[i] as string;
    if (!seg) return undefined;
    if (seg.literal !== undefined) {
      // Case-insensitive, so the spec's `/trips/{id}/waypoints/` link shape finds `wayPoints`.
      if (seg.literal !== part.toLowerCase()) return undefined;
    } else if (seg.param) {
      try {
        params[seg.param] = decodeURIComponent(part);
      } catch {
        // A malformed escape: keep the raw segment, the handler rejects it as an unknown id.
        params[seg.param] = part;
      }
    }
  }
  return params;
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** The operation a request is for, by method and path template (trailing slash ignored). */
export function matchOperation(method: string, path: string): OperationMatch | undefined {
  const parts = split(path);
  for (const c of COMPILED) {
    if (c.op.method !== method.toUpperCase()) continue;
    const params = matchPath(c, parts);
    if (params) return { op: c.op, params };
  }
  return undefined;
}

/** Methods allowed on a path (for 405 answers), empty when no operation has that path. */
export function allowedMethods(path: string): string[] {
  const parts = split(path);
  const methods = new Set<string>();
  for (const c of COMPILED) if (matchPath(c, parts)) methods.add(c.op.method);
  return [...methods];
}
