/**
 * `carhook enroll …` and `carhook enrollments …`: fleet contracts (one, or a CSV with progress),
 * and the enrollments' management routes (named as in the console).
 */
import { type Command, Option } from 'commander';
import type { EnrollmentPage, FleetEnrolled } from '../../functions/http/contract';
import { CliError, request, resolveTarget } from './client';
import { allPages, call, globals, readFileOption, show, str, table } from './common';
import { enrollmentCommands } from './manage';
import { parseContractsCsv, progressBar } from './progress';

export function addEnrollCommands(program: Command): void {
  const enroll = program.command('enroll').description('enroll vehicles');
  enroll
    .command('link')
    .description(
      "print the link that enrolls a user's vehicles through the brand's sign-in (OAuth), once the API says the brand is one it serves",
    )
    .requiredOption('--brand <brand>', 'the brand, e.g. cielo')
    .action(async (o: { brand: string }, command: Command) => {
      if (!/^[a-z0-9-]{1,32}$/.test(o.brand))
        throw new CliError(
          'Usage',
          `--brand: lowercase letters, digits and '-', got "${o.brand.slice(0, 40)}"`,
        );
      const target = resolveTarget(globals(command));
      const path = `/oauth/${o.brand}/authorize`;
      // Checked before it is printed: the route redirects (302) to the brand's sign-in, or refuses a
      // brand the API does not serve, naming those it does. The redirect is not followed.
      try {
        await request(target, 'GET', path, {
          fetch: (url, init) => fetch(url, { ...init, redirect: 'manual' }),
        });
      } catch (error) {
        if (error instanceof CliError && error.kind === 'Http' && error.status === 400)
          throw new CliError('Usage', `--brand: ${error.message.replace(/^.*→ 400: /, '')}`);
        throw error;
      }
      const link = `${target.url}${path}`;
      show(command, { link }, () => link);
    });
  enroll
    .command('contract')
    .description('enroll fleet vehicles by VIN and contract number (v1 API): one, or many from a CSV file')
    .option('--vin <vin>', 'the vehicle identification number (17 characters)')
    .option('--contract <contract>', 'the v1 contract number')
    .option(
      '--brand <brand>',
      'the brand, as in enroll link: cielo or pavo (the v1 codes C and P are accepted too)',
    )
    .option('--file <csv>', 'many at once: lines "vin,contract,brand" (a progress bar shows on a terminal)')
    .action(
      async (o: { vin?: string; contract?: string; brand?: string; file?: string }, command: Command) => {
        if (o.file === undefined) {
          if (!o.vin || !o.contract || !o.brand) {
            throw new CliError('Usage', '--vin, --contract and --brand are required (or --file with many)');
          }
          const r = await call<FleetEnrolled>(command, 'POST', '/enrollments/contracts', {
            body: { vin: o.vin, contract: o.contract, brand: o.brand },
          });
          const b = r.body;
          show(
            command,
            b,
            () => `enrolled ${o.vin}: enrollment ${str(b.enrollmentId)}, vehicle ${str(b.vehicleId)}`,
          );
          return;
        }
        const text = await readFileOption('--file', o.file);
        const parsed = parseContractsCsv(text);
        if (!parsed.ok) throw new CliError('Usage', `--file: ${parsed.message}`);
        const bar = progressBar(parsed.rows.length, 'enrolling');
        const results: (
          | ({ vin: string; ok: true } & FleetEnrolled)
          | { vin: string; ok: false; error: string }
        )[] = [];
        for (const row of parsed.rows) {
          try {
            const r = await call<FleetEnrolled>(command, 'POST', '/enrollments/contracts', { body: row });
            results.push({ vin: row.vin, ok: true, ...r.body });
          } catch (error) {
            if (!(error instanceof CliError) || error.kind !== 'Http') throw error;
            results.push({ vin: row.vin, ok: false, error: error.message });
          }
          bar.tick();
        }
        bar.done();
        const failed = results.flatMap((r) => (r.ok ? [] : [r]));
        show(command, { results }, () =>
          [
            `enrolled ${results.length - failed.length} of ${results.length}`,
            ...failed.map((f) => `  ${f.vin}: ${f.error}`),
          ].join('\n'),
        );
        if (failed.length > 0) process.exitCode = 1;
      },
    );

  const enrollments = program.command('enrollments').description('enrollments');
  enrollments
    .command('list')
    .description('list enrollments')
    .addOption(
      new Option('--status <status>', 'only this status').choices([
        'active',
        'reauthorization_required',
        'unenrolled',
      ]),
    )
    .action(async (o: { status?: string }, command: Command) => {
      const items = await allPages(command, '/enrollments', (p: EnrollmentPage) => p.enrollments, {
        status: o.status,
      });
      show(command, { enrollments: items }, () =>
        table([
          ['ID', 'KIND', 'BRAND', 'STATUS', 'USER/VIN', 'CREATED'],
          ...items.map((e) => [
            str(e.id),
            str(e.kind),
            str(e.brand),
            str(e.status),
            str(e.userId ?? e.vin),
            str(e.createdAt),
          ]),
        ]),
      );
    });

  enrollmentCommands(enrollments);
}
