/**
 * Fleet contracts (v1 API): enrolling one VIN under a contract and a brand group. Input comes
 * from the management API, so every field is checked here with an error naming it; a VIN is
 * enrolled at most once (the store's uniqueness item: `DuplicateFleetVin`).
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { vehicleIdOf } from '../store/identity';
import type { Stores } from '../store/ports';
import type { FleetContractEnrollment } from '../store/records';

export interface FleetEnrollmentInput {
  readonly vin: string;
  readonly contract: string;
  readonly brand: 'C' | 'P';
}

export type EnrollFleetResult =
  | { readonly kind: 'Enrolled'; readonly enrollmentId: string; readonly vehicleId: string }
  | { readonly kind: 'InvalidInput'; readonly field: string; readonly message: string }
  | {
      readonly kind: 'DuplicateVin';
      readonly vin: string;
      readonly existingEnrollmentId: string;
      readonly message: string;
    };

/**
 * The API's brands, by the name its OAuth routes use (`/oauth/cielo/authorize`), with the brand group
 * code its v1 API takes: one spelling (the name) for the CLI, the management API and the docs; the
 * v1 codes are accepted too, as the v1 API spells them.
 */
export const V1_BRAND_GROUPS: Readonly<Record<string, 'C' | 'P'>> = { cielo: 'C', pavo: 'P' };
const BRAND_MESSAGE = "must be cielo or pavo (the v1 API's codes C and P are accepted too)";

/** `cielo` / `C` → `C`; undefined for anything else. */
export function v1BrandOf(brand: unknown): 'C' | 'P' | undefined {
  if (brand === 'C' || brand === 'P') return brand;
  return typeof brand === 'string' && Object.hasOwn(V1_BRAND_GROUPS, brand)
    ? V1_BRAND_GROUPS[brand]
    : undefined;
}

/**
 * `C` / `cielo` → `cielo`: the brand's name, the one spelling input takes and answers show next to a
 * stored v1 code; undefined for a brand Carhook does not know.
 */
export function brandNameOf(brand: string): string | undefined {
  if (Object.hasOwn(V1_BRAND_GROUPS, brand)) return brand;
  return Object.entries(V1_BRAND_GROUPS).find(([, code]) => code === brand)?.[0];
}

// The API's VIN pattern: 17 characters [A-Z0-9].
const VIN = /^[A-Z0-9]{17}$/;
// The client sends contracts as given (letters, digits, - or _): refuse anything else up front.
const CONTRACT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The body of `POST /enrollments/contracts`: exactly these three fields (an unknown one is refused
 * by name, so a typo such as `contractId` is not silently ignored).
 */
export const fleetContractSchema = z.strictObject({
  vin: z.string().regex(VIN, 'must be 17 characters A-Z or 0-9'),
  contract: z.string().regex(CONTRACT, 'must be 1-64 letters, digits, - or _ (the v1 contract number)'),
  brand: z.enum(['cielo', 'pavo', 'C', 'P'], BRAND_MESSAGE).meta({
    description: 'The brand, as in /oauth/{brand}/authorize: cielo or pavo (or the v1 code, C or P).',
  }),
});

export function validateFleetInput(
  input: unknown,
): { ok: true; value: FleetEnrollmentInput } | { ok: false; field: string; message: string } {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const unknown = Object.keys(input).find((k) => !['vin', 'contract', 'brand'].includes(k));
    if (unknown !== undefined) {
      const shown = unknown.slice(0, 64);
      return {
        ok: false,
        field: shown,
        message: `${shown}: unknown field; the body is {vin, contract, brand}`,
      };
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, field: 'body', message: 'body: must be an object {vin, contract, brand}' };
  }
  const { vin, contract, brand } = input as Record<string, unknown>;
  if (typeof vin !== 'string' || !VIN.test(vin)) {
    return { ok: false, field: 'vin', message: 'vin: must be 17 characters A-Z or 0-9' };
  }
  if (typeof contract !== 'string' || !CONTRACT.test(contract)) {
    return {
      ok: false,
      field: 'contract',
      message: 'contract: must be 1-64 letters, digits, - or _ (the v1 contract number)',
    };
  }
  const code = v1BrandOf(brand);
  if (code === undefined) return { ok: false, field: 'brand', message: `brand: ${BRAND_MESSAGE}` };
  return { ok: true, value: { vin, contract, brand: code } };
}

export async function enrollFleetContract(
  deps: { readonly stores: Stores; readonly now: () => number; readonly newId?: () => string },
  input: unknown,
): Promise<EnrollFleetResult> {
  const checked = validateFleetInput(input);
  if (!checked.ok) return { kind: 'InvalidInput', field: checked.field, message: checked.message };
  const { vin, contract, brand } = checked.value;
  const now = deps.now();
  const at = new Date(now).toISOString();
  const enrollmentId = `enr_fleet_${(deps.newId ?? randomUUID)()}`;
  const enrollment: FleetContractEnrollment = {
    kind: 'fleet-contract',
    id: enrollmentId,
    brand,
    status: 'active',
    vin,
    contract,
    createdAt: at,
    updatedAt: at,
  };
  const created = await deps.stores.enrollments.create(enrollment);
  if (created.kind === 'DuplicateFleetVin') {
    return {
      kind: 'DuplicateVin',
      vin,
      existingEnrollmentId: created.existingEnrollmentId,
      message: `vin: ${vin} is already enrolled (enrollment ${created.existingEnrollmentId})`,
    };
  }
  if (created.kind === 'AlreadyExists') {
    return {
      kind: 'InvalidInput',
      field: 'id',
      message: `enrollment id ${enrollmentId} already exists; retry`,
    };
  }
  const vehicleId = vehicleIdOf(enrollmentId, vin);
  await deps.stores.vehicles.put({ id: vehicleId, enrollmentId, vin, brand, nextPollAt: at }, now);
  return { kind: 'Enrolled', enrollmentId, vehicleId };
}
