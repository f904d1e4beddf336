/**
 * The rehearsal of another team's app: examples/cdk-app (Carhook by package name, plus its own rule
 * sending vehicle.alert.raised to its own queue), synthesized by the rehearsal itself.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rehearsal } from '../../bin/rehearsal/run';
import { REPO, rehearsalRuns, requireMoto, survivors } from './support';

describe.skipIf(!rehearsalRuns)(
  'npm run rehearse -- --app examples/cdk-app (synthesized with -c tracing=false)',
  () => {
    it("passes the scenario, the consumer's alerts arriving through the app's own rule and queue", async () => {
      requireMoto();
      const marker = `test-${process.pid}-example`;
      process.env.CARHOOK_REHEARSAL_RUN = marker;
      const lines: string[] = [];
      const report = await new Rehearsal({
        appDir: join(REPO, 'examples/cdk-app'),
        // This app's functions without X-Ray: their bundles carry no Tracer (the other build of each).
        context: { tracing: 'false' },
        runMarker: marker,
        print: (l) => lines.push(l),
        // Each awaited step may take this long on a loaded 2-core runner (75 s by default).
        waitMs: 150_000,
      }).run();
      expect(report.failure?.message, lines.join('\n')).toBeUndefined();
      const consumer = report.steps.done.find((s) => s.name === "a consumer's rules on Carhook's bus");
      expect(consumer?.detail).toMatch(
        /^vehicle\.alert\.raised through the templates' rule VehicleAlerts\w+$/,
      );
      expect(report.steps.done.map((s) => s.name)).toContain('every dead-letter queue is empty');
      expect(await survivors(marker)).toEqual([]);
    }, 420_000);
  },
);
