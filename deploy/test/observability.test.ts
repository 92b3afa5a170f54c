import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readText, readYaml, repoRoot } from './support';

/** Debian's `prometheus` package (installed by .ci/run) provides promtool. */
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The metric names the services register: every `name: '…'` in a source file that makes
 * prom-client metrics (the services' own, the service kit's, the API gateway's), with the series
 * a histogram adds, and `up`, which Prometheus records for each scrape.
 */
function registeredMetricNames(): Set<string> {
  const roots = ['services/identity/src', 'services/sms-delivery-gateway/src', 'services/airport-api/src', 'packages/service-kit/src', 'packages/api-gateway/src'];
  const names = new Set<string>(['up']);
  for (const file of roots.flatMap((root) => sourceFiles(join(repoRoot, root)))) {
    const text = readFileSync(file, 'utf8');
    if (!/new (?:client\.)?(?:Counter|Gauge|Histogram|Summary)\b/.test(text)) continue;
    for (const [, name] of text.matchAll(/name: '([a-z_:][a-z0-9_:]*)'/g)) {
      names.add(name!);
      for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name!}${suffix}`);
    }
  }
  return names;
}

/** The metric names a PromQL expression reads (smsauth's series end in one of these suffixes). */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\b([a-z][a-z0-9_]*_(?:total|seconds(?:_bucket|_count|_sum)?|state)|up)\b(?=\s*[{[)=])/g)].map((m) => m[1]!);
}

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }> }>;
}
interface Dashboard {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
}

const rules = readYaml<RuleFile>('deploy/prometheus/alerts.yml');
const dashboard = JSON.parse(readText('deploy/grafana/smsauth.json')) as Dashboard;
const ruleExprs = rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: `${group.name}/${rule.alert ?? '?'}`, expr: rule.expr })));
const dashboardExprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: panel.title, expr: target.expr })));

describe('deploy/prometheus/alerts.yml and deploy/grafana/smsauth.json', () => {
  const known = registeredMetricNames();

  it('finds the metrics the services register', () => {
    for (const name of ['http_request_duration_seconds', 'sms_sent_total', 'sms_verified_total', 'sms_deliveries_total', 'sms_provider_breaker_state', 'log_stream_lag_seconds']) {
      expect(known).toContain(name);
    }
  });

  it('alert on metrics the services register, and only those', () => {
    const used = ruleExprs.flatMap(({ where, expr }) => metricNamesIn(expr).map((name) => `${where}: ${name}`));
    expect(used.length).toBeGreaterThan(ruleExprs.length - 1);
    expect(used.filter((entry) => !known.has(entry.split(': ')[1]!))).toEqual([]);
  });

  it('chart metrics the services register, and only those', () => {
    const used = dashboardExprs.flatMap(({ where, expr }) => metricNamesIn(expr).map((name) => `${where}: ${name}`));
    expect(used.length).toBeGreaterThanOrEqual(dashboardExprs.length);
    expect(used.filter((entry) => !known.has(entry.split(': ')[1]!))).toEqual([]);
  });

  it('give every alert a duration, a severity and a summary', () => {
    for (const group of rules.groups) {
      for (const rule of group.rules) {
        expect({ alert: rule.alert, for: typeof rule.for, severity: typeof rule.labels?.severity, summary: typeof rule.annotations?.summary }).toEqual({
          alert: expect.any(String),
          for: 'string',
          severity: 'string',
          summary: 'string',
        });
      }
    }
  });

  (PROMTOOL ? it : it.skip)('are rules promtool accepts (promtool check rules)', () => {
    const output = execFileSync(PROMTOOL!, ['check', 'rules', join(repoRoot, 'deploy/prometheus/alerts.yml')], { encoding: 'utf8' });
    expect(output).toContain('SUCCESS');
  });
});
