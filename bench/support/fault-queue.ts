/**
 * A queue on the simulated clock with SQS's delivery semantics, for the fault suite: a received
 * message is hidden for the visibility timeout and comes back unless it is deleted (a worker that
 * died never deletes it); a handler may hide it again for n seconds (a retry); `delaySeconds`
 * holds a new message back; `dedupId` drops a duplicate while the first is still queued.
 */
import type { JobQueue, OutgoingMessage } from '../../functions/core/queue/ports';

export interface QueuedMessage<T> {
  readonly id: number;
  readonly body: T;
  visibleAt: number;
  receives: number;
  readonly dedupId?: string;
}

export class FaultQueue<T> implements JobQueue<T> {
  readonly #messages = new Map<number, QueuedMessage<T>>();
  readonly #dedup = new Map<string, number>();
  #next = 1;
  /** Messages ever sent (duplicates dropped by `dedupId` not counted). */
  sent = 0;

  constructor(
    private readonly now: () => number,
    private readonly visibilityMs: number,
  ) {}

  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    for (const m of messages) {
      if (m.dedupId !== undefined && this.#dedup.has(m.dedupId)) continue;
      const id = this.#next++;
      const message: QueuedMessage<T> = {
        id,
        body: structuredClone(m.body),
        visibleAt: this.now() + (m.delaySeconds ?? 0) * 1000,
        receives: 0,
        ...(m.dedupId !== undefined ? { dedupId: m.dedupId } : {}),
      };
      this.#messages.set(id, message);
      if (m.dedupId !== undefined) this.#dedup.set(m.dedupId, id);
      this.sent++;
    }
  }

  /** Up to `max` visible messages, oldest first, hidden for the visibility timeout. */
  receive(max: number): QueuedMessage<T>[] {
    const now = this.now();
    const out: QueuedMessage<T>[] = [];
    for (const m of this.#messages.values()) {
      if (out.length >= max) break;
      if (m.visibleAt > now) continue;
      m.visibleAt = now + this.visibilityMs;
      m.receives++;
      out.push(m);
    }
    return out;
  }

  delete(message: QueuedMessage<T>): void {
    this.#messages.delete(message.id);
    if (message.dedupId !== undefined && this.#dedup.get(message.dedupId) === message.id) {
      this.#dedup.delete(message.dedupId);
    }
  }

  /** The handler asked for a retry in `seconds`: hidden until then. */
  retryIn(message: QueuedMessage<T>, seconds: number): void {
    message.visibleAt = this.now() + Math.max(0, seconds) * 1000;
  }

  get size(): number {
    return this.#messages.size;
  }

  /** Messages visible now. */
  get visible(): number {
    const now = this.now();
    let n = 0;
    for (const m of this.#messages.values()) if (m.visibleAt <= now) n++;
    return n;
  }
}
