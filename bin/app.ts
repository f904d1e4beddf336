#!/usr/bin/env -S npx tsx
/**
 * The Carhook CDK app: `npx cdk synth` / `npx cdk deploy --all`, configured by context, e.g.
 *   npx cdk deploy --all -c apiBaseUrl=https://api.example.net -c authUrl=https://id.example.net \
 *     -c brands=brand-a,brand-b -c alarmEmail=ops@example.net
 * Keys and defaults: lib/app.ts (APP_CONTEXT_DEFAULTS). cdk-nag's AwsSolutions pack runs on every
 * synth: a finding without an acknowledged reason stops it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildCarhookApp, readAppSettings } from '../lib/app';
import { CarhookConfigError } from '../lib/validation';

const app = new App();
try {
  buildCarhookApp(
    app,
    readAppSettings((key) => app.node.tryGetContext(key)),
  );
} catch (error) {
  if (!(error instanceof CarhookConfigError)) throw error;
  // A configuration mistake is the operator's to fix: the message, not a stack trace.
  console.error(error.message);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
