import { randomUUID } from 'node:crypto';
import type {
  JobQueue,
  OutgoingMessage,
  QueueConsumer,
  ReceivedMessage,
} from '../../functions/core/queue/ports';

interface Held<T> {
  readonly id: string;
  readonly body: T;
  readonly sentAt: number;
  readonly dedupId?: string;
  receiveCount: number;
  receipt?: string;
  timer?: NodeJS.Timeout;
}

/**
 * An in-process poll-jobs queue for the throughput bench: the SQS semantics `runConsumer` relies on
 * (visibility timeout, fresh receipt per receive, dedup of pending ids, FIFO order) without a store
 * behind it, so the figures are the stores', the budget's and the workers', not a local stand-in for
 * SQS (`LocalQueue` puts every message through DynamoDB Local: three requests per job).
 */
export class InProcessQueue<T> implements JobQueue<T>, QueueConsumer<T> {
  private readonly visible: Held<T>[] = [];
  private readonly inFlight = new Map<string, Held<T>>();
  private readonly pendingDedup = new Set<string>();

  get size(): number {
    return this.visible.length + this.inFlight.size;
  }

  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    const now = Date.now();
    for (const m of messages) {
      if (m.dedupId !== undefined) {
        if (this.pendingDedup.has(m.dedupId)) continue;
        this.pendingDedup.add(m.dedupId);
      }
      const held: Held<T> = {
        id: randomUUID(),
        // A JSON round trip, as a real queue does: the worker never shares the planner's objects.
        body: JSON.parse(JSON.stringify(m.body)) as T,
        sentAt: now,
        receiveCount: 0,
        ...(m.dedupId !== undefined ? { dedupId: m.dedupId } : {}),
      };
      const delay = Math.max(0, m.delaySeconds ?? 0) * 1000;
      if (delay > 0) setTimeout(() => this.visible.push(held), delay).unref();
      else this.visible.push(held);
    }
  }

  async receive(max: number, visibilityTimeoutSeconds: number): Promise<ReceivedMessage<T>[]> {
    const out: ReceivedMessage<T>[] = [];
    while (out.length < max) {
      const held = this.visible.shift();
      if (!held) break;
      held.receiveCount++;
      const receipt = `${held.id}#${randomUUID()}`;
      held.receipt = receipt;
      this.inFlight.set(receipt, held);
      held.timer = setTimeout(() => this.makeVisible(receipt), visibilityTimeoutSeconds * 1000);
      held.timer.unref();
      out.push({
        id: held.id,
        body: held.body,
        receipt,
        receiveCount: held.receiveCount,
        sentAt: held.sentAt,
      });
    }
    return out;
  }

  async delete(receipt: string): Promise<boolean> {
    const held = this.inFlight.get(receipt);
    if (!held) return false;
    clearTimeout(held.timer);
    this.inFlight.delete(receipt);
    if (held.dedupId !== undefined) this.pendingDedup.delete(held.dedupId);
    return true;
  }

  async changeVisibility(receipt: string, seconds: number): Promise<boolean> {
    const held = this.inFlight.get(receipt);
    if (!held) return false;
    clearTimeout(held.timer);
    if (seconds <= 0) this.makeVisible(receipt);
    else {
      held.timer = setTimeout(() => this.makeVisible(receipt), seconds * 1000);
      held.timer.unref();
    }
    return true;
  }

  private makeVisible(receipt: string): void {
    const held = this.inFlight.get(receipt);
    if (!held) return;
    this.inFlight.delete(receipt);
    held.receipt = undefined;
    this.visible.push(held);
  }
}
