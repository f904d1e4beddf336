/**
 * What the `stale` and `flap` chaos modes need: the answers the API gave, by request, so one can be
 * served again later as a cached copy (`stale`); and a list answer with one item taken out, as a
 * list that briefly misses an item (`flap`).
 */

/** One answer as it left the simulator. */
export interface Answer {
  /** World time (epoch ms) it was given. */
  readonly at: number;
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

/** Keys kept at most: the least recently answered are forgotten first. */
const MAX_KEYS = 20_000;

/**
 * The answers of each request (method, path, query, the token's user and the body), oldest first,
 * kept only as long as `stale` may need them: those younger than its age, plus the newest older.
 */
export class AnswerHistory {
  private readonly byKey = new Map<string, Answer[]>();

  record(key: string, answer: Answer, keepMs: number): void {
    const list = this.byKey.get(key) ?? [];
    this.byKey.delete(key);
    list.push(answer);
    // Drop what no `stale` draw can serve any more: all but the newest answer older than keepMs.
    let drop = 0;
    while (drop + 1 < list.length && (list[drop + 1] as Answer).at <= answer.at - keepMs) drop++;
    this.byKey.set(key, drop > 0 ? list.slice(drop) : list);
    if (this.byKey.size > MAX_KEYS) {
      const oldest = this.byKey.keys().next().value;
      if (oldest !== undefined) this.byKey.delete(oldest);
    }
  }

  /** The newest answer given at or before `at`; undefined when there is none that old. */
  givenBy(key: string, at: number): Answer | undefined {
    const list = this.byKey.get(key);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if ((list[i] as Answer).at <= at) return list[i];
    return undefined;
  }

  clear(): void {
    this.byKey.clear();
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The body with one item of its list taken out (index from `pick(n)`), or undefined when it holds
 * no non-empty list. The list is the body itself (bulk answers, services), the first array of a HAL
 * `_embedded` (then `total` drops by one, as a list missing that item would say), or the first
 * top-level array property (v1 `listAlert`, `trips`).
 */
export function withoutOneItem(body: unknown, pick: (n: number) => number): unknown {
  const cut = (list: readonly unknown[]): unknown[] => {
    const i = pick(list.length);
    return [...list.slice(0, i), ...list.slice(i + 1)];
  };
  if (Array.isArray(body)) return body.length > 0 ? cut(body) : undefined;
  if (!isObject(body)) return undefined;
  const embedded = body._embedded;
  if (isObject(embedded)) {
    for (const [name, list] of Object.entries(embedded)) {
      if (!Array.isArray(list) || list.length === 0) continue;
      return {
        ...body,
        ...(typeof body.total === 'number' ? { total: body.total - 1 } : {}),
        _embedded: { ...embedded, [name]: cut(list) },
      };
    }
    return undefined;
  }
  for (const [name, list] of Object.entries(body)) {
    if (Array.isArray(list) && list.length > 0) return { ...body, [name]: cut(list) };
  }
  return undefined;
}
