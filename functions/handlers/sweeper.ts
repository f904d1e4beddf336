/** Schedule → republishes what the event log still holds unpublished (same ids). */
import { republishPending } from '../core/polling/commit';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';

export function createSweeperHandler(get: () => AwsRuntime) {
  return withPowertools<unknown, { published: number; unpublished: number }>(async () => {
    const { runtime } = get();
    const r = await republishPending(runtime.republishDeps());
    const summary = { published: r.published.length, unpublished: r.unpublished.length, calls: r.calls };
    if (r.unpublished.length > 0)
      logger.warn('events still unpublished', { ...summary, ids: r.unpublished.slice(0, 20) });
    else logger.info('sweep', summary);
    return { published: summary.published, unpublished: summary.unpublished };
  });
}

export const handler = createSweeperHandler(lazy(() => createAwsRuntime({ needs: ['bus'] })));
