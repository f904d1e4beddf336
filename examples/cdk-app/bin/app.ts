#!/usr/bin/env -S npx tsx
/**
 * `npx cdk synth` in examples/cdk-app: Carhook plus an alerts queue, configured by context:
 *   npx cdk synth -c apiBaseUrl=https://api.example.net -c authUrl=https://id.example.net -c brands=cielo
 *   (and -c retrySchedule=fast for webhook retries over about 40 s instead of 27.6 h)
 */
import { App } from 'aws-cdk-lib';
import { AlertsStack } from '../lib/alerts-stack';

const app = new App();
const context = (key: string, fallback: string): string => String(app.node.tryGetContext(key) ?? fallback);
new AlertsStack(app, 'CarhookAlerts', {
  // Carhook's table key is configured per region: the stack names its environment.
  env: {
    region: process.env.CDK_DEFAULT_REGION ?? context('region', 'eu-west-1'),
    ...(process.env.CDK_DEFAULT_ACCOUNT ? { account: process.env.CDK_DEFAULT_ACCOUNT } : {}),
  },
  carhook: {
    apiBaseUrl: context('apiBaseUrl', 'https://api.example.net'),
    authUrl: context('authUrl', 'https://id.example.net'),
    brands: context('brands', 'cielo').split(','),
    // Carhook checks the value and names the prop when it is neither `standard` nor `fast`.
    retrySchedule: context('retrySchedule', 'standard') as 'standard' | 'fast',
    // -c tracing=false: no X-Ray, and bundles without the X-Ray SDK.
    tracing: context('tracing', 'true') !== 'false',
  },
});
app.synth();
