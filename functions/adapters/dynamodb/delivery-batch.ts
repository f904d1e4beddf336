/**
 * How the deliveries store writes recorded attempts in bulk: BatchWriteItem chunks whose
 * unprocessed items are resent with a jittered backoff (the API leaves that to the caller).
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backoffCeiling, equalJitter } from '../../core/backoff';
import { invalidInput } from '../../core/store/errors';
import { type Item, storeFailure, type TableContext } from './common';

/** BatchWriteItem takes at most 25 requests; a recorded attempt is 2 (delivery + attempt line). */
export const BATCH_ITEMS = 25;

export interface DeliveryStoreOptions {
  /**
   * BatchWriteItem rounds for one chunk (the first included) while items come back in
   * `UnprocessedItems`, which the API leaves to the caller to resend with backoff (the SDK retries
   * failed requests, throttling included, not a request that succeeded for only some items);
   * between rounds an exponential, jittered backoff from `batchBackoffMs` (default 8 rounds from
   * 25 ms: about 3 s in all, capped at 1 s a wait).
   */
  readonly batchRounds?: number;
  readonly batchBackoffMs?: number;
  /** Injectable for tests (no sleeping): how the store waits between rounds. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** An item's key as one string (the unwritten set holds these). */
export const keyOf = (item: Item): string => `${String(item.pk)}\u0000${String(item.sk)}`;

/**
 * The chunk writer of one store: `writeChunk(puts, ids)` resolves with the keys still unwritten
 * once every put landed or the rounds ran out.
 */
export function batchWriter(
  ctx: TableContext,
  options: DeliveryStoreOptions,
): (puts: readonly Item[], ids: readonly string[]) => Promise<Set<string>> {
  const { doc, tableName: TableName } = ctx;
  const fail = (op: string, error: unknown, id: string) => storeFailure(ctx, op, error, { deliveryId: id });
  const rounds = options.batchRounds ?? 8;
  const backoffMs = options.batchBackoffMs ?? 25;
  if (!Number.isInteger(rounds) || rounds < 1) throw invalidInput('batchRounds', 'must be an integer ≥ 1');
  if (!Number.isFinite(backoffMs) || backoffMs < 0)
    throw invalidInput('batchBackoffMs', 'must be a number ≥ 0');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  /**
   * One BatchWriteItem chunk (≤ 25 puts), its unprocessed puts resent until every put landed or the
   * rounds run out.
   * Returns the keys still unwritten. Puts are whole items on fixed keys: repeating one that had
   * landed writes the same thing again, so a retry never needs to know which ones did.
   */
  async function writeChunk(puts: readonly Item[], ids: readonly string[]): Promise<Set<string>> {
    let left: Item[] = [...puts];
    for (let round = 0; round < rounds && left.length > 0; round++) {
      if (round > 0) await sleep(equalJitter(backoffCeiling(round, backoffMs, 1000), random));
      // A failed request (throttled after the SDK's own retries, or any other error) fails the chunk.
      const out = await doc
        .send(
          new BatchWriteCommand({
            RequestItems: { [TableName]: left.map((Item) => ({ PutRequest: { Item } })) },
          }),
        )
        .catch((error: unknown) => {
          throw fail('BatchWriteItem recorded attempts', error, ids.join(','));
        });
      left = (out.UnprocessedItems?.[TableName] ?? []).flatMap((r) =>
        r.PutRequest?.Item ? [r.PutRequest.Item as Item] : [],
      );
    }
    return new Set(left.map(keyOf));
  }
  return writeChunk;
}
