/** Request counters for `GET /_sim/stats`. */
export class Stats {
  total = 0;
  tooManyRequests = 0;
  byOperation = new Map<string, number>();
  byClient = new Map<string, number>();
  byStatus = new Map<number, number>();
  tooManyByClient = new Map<string, number>();
  /** API requests and refresh grants per user whose token they carried (valid or not). */
  byUser = new Map<string, number>();
  /** Answers a chaos mode changed (`stale`: an older copy served; `flap`: a list item dropped). */
  byChaos = new Map<string, number>();

  /** Unknown client ids are pooled, so random ids cannot grow memory without bound. */
  static readonly UNKNOWN_CLIENT = '(unknown)';
  static readonly NO_CLIENT = '(none)';

  record(operationId: string, clientKey: string, status: number): void {
    this.total++;
    inc(this.byOperation, operationId);
    inc(this.byClient, clientKey);
    inc(this.byStatus, status);
    if (status === 429) {
      this.tooManyRequests++;
      inc(this.tooManyByClient, clientKey);
    }
  }

  /** Counts one answer changed by a chaos mode (modes are a fixed list: bounded). */
  recordChaos(mode: string): void {
    inc(this.byChaos, mode);
  }

  /** Counts one request made with a token issued to `userId` (users are the world's: bounded). */
  recordUser(userId: string): void {
    inc(this.byUser, userId);
  }

  clear(): void {
    this.total = 0;
    this.tooManyRequests = 0;
    this.byOperation.clear();
    this.byClient.clear();
    this.byStatus.clear();
    this.tooManyByClient.clear();
    this.byUser.clear();
    this.byChaos.clear();
  }
}

function inc<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
