import { loadConfig, type Clock } from '@smsauth/service-kit';
import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { buildApp } from '../../src/app';
import { configSchema, type Config } from '../../src/config';
import { captureLogs, type CapturedLogs } from './logs';

/** 2025-01-15T12:00:00Z: the fixed "now" of every test unless it moves its own clock. */
export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
export const nowSeconds = (ms = NOW) => Math.floor(ms / 1000);

export interface TestGateway {
  app: Express;
  config: Config;
  logs: CapturedLogs;
  metrics: Registry;
}

/** The gateway app built from an environment, with captured logs and an injected clock. */
export function buildGateway(env: Record<string, string> = {}, clock: Clock = { now: () => new Date(NOW) }): TestGateway {
  const config = loadConfig(configSchema, env);
  const logs = captureLogs();
  const { app, metrics } = buildApp({ config, logger: logs.logger, clock });
  return { app, config, logs, metrics };
}

/** A message as the identity service sends it (spec 2.2). */
export function deliveryBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { recipient: '+14155550123', body: 'Your verification code is 482913', sender: '+15005550006', ...overrides };
}

/** The value of a sample in the Prometheus text, matched by name and a subset of labels (summed over the labels not given). */
export async function metricValue(metrics: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await metrics.metrics();
  // The sum over every series the labels match (a label left out, such as channel, is summed over).
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const sampleLabels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => sampleLabels[key] === value)) sum = (sum ?? 0) + Number(match[3]);
  }
  return sum;
}
