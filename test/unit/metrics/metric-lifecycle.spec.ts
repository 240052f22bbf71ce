import { Registry } from 'prom-client';
import { helpText, MetricCatalog, metricStateAt } from '../../../src/metrics/stability';
import { metricsCatalog, metricsRegistry } from '../../../src/metrics/registry';
import '../../../src/metrics/request-metrics';
import '../../../src/metrics/authentication-metrics';
import '../../../src/metrics/audit-metrics';
import '../../../src/metrics/storage-metrics';
import '../../../src/metrics/watch-metrics';
import '../../../src/metrics/authorization-metrics';

const R = (minor: number) => ({ major: 1, minor });

describe('metric lifecycle', () => {
  it('keeps a deprecated metric shown for its level\'s window, then hides it', () => {
    expect(metricStateAt({ stabilityLevel: 'STABLE' }, R(32))).toBe('active');
    expect(metricStateAt({ stabilityLevel: 'STABLE', deprecatedVersion: '1.33' }, R(32))).toBe('active');
    expect(metricStateAt({ stabilityLevel: 'STABLE', deprecatedVersion: '1.30' }, R(32))).toBe('deprecated');
    expect(metricStateAt({ stabilityLevel: 'STABLE', deprecatedVersion: '1.29' }, R(32))).toBe('hidden');
    expect(metricStateAt({ stabilityLevel: 'BETA', deprecatedVersion: '1.32' }, R(32))).toBe('deprecated');
    expect(metricStateAt({ stabilityLevel: 'BETA', deprecatedVersion: '1.31' }, R(32))).toBe('hidden');
    expect(metricStateAt({ stabilityLevel: 'ALPHA', deprecatedVersion: '1.32' }, R(32))).toBe('hidden');
  });

  it('prints the level and the deprecation notice in the HELP text as kube does', () => {
    expect(helpText('Counter of things.', { stabilityLevel: 'STABLE' })).toBe('[STABLE] Counter of things.');
    expect(helpText('Counter of things.', { stabilityLevel: 'BETA', deprecatedVersion: '1.32' })).toBe('[BETA] (Deprecated since 1.32.0) Counter of things.');
  });

  it('does not expose hidden metrics unless shown for the previous release, and warns about deprecated ones', async () => {
    const registry = new Registry();
    const catalog = new MetricCatalog(registry, R(32));
    catalog.counter({ name: 'test_active_total', help: 'Active.', stabilityLevel: 'STABLE' }).inc();
    catalog.counter({ name: 'test_deprecated_total', help: 'Deprecated.', stabilityLevel: 'STABLE', deprecatedVersion: '1.31' }).inc();
    // Hidden since this release: still shown in 1.31.
    const recent = catalog.counter({ name: 'test_hidden_now_total', help: 'Hidden now.', stabilityLevel: 'STABLE', deprecatedVersion: '1.29' });
    recent.inc(3);
    // Hidden since 1.31 already: not brought back.
    catalog.counter({ name: 'test_hidden_before_total', help: 'Hidden before.', stabilityLevel: 'STABLE', deprecatedVersion: '1.28' });

    let page = await registry.metrics();
    expect(page).toContain('# HELP test_active_total [STABLE] Active.');
    expect(page).toContain('# HELP test_deprecated_total [STABLE] (Deprecated since 1.31.0) Deprecated.');
    expect(page).not.toContain('test_hidden_now_total');
    expect(catalog.deprecationWarnings()).toEqual(['test_deprecated_total is deprecated since 1.31; it will be hidden in a future release']);

    catalog.showHidden(R(31));
    page = await registry.metrics();
    // Recorded while hidden, so the value is there once shown.
    expect(page).toContain('test_hidden_now_total 3');
    expect(page).not.toContain('test_hidden_before_total');
  });

  it('gives every server metric a stability level in its HELP text', async () => {
    const page = await metricsRegistry.metrics();
    const helps = page.split('\n').filter((l) => l.startsWith('# HELP '));
    expect(helps.length).toBeGreaterThan(20);
    for (const line of helps) expect(line).toMatch(/^# HELP \S+ \[(ALPHA|BETA|STABLE)\] /);
    const levels = Object.fromEntries(metricsCatalog.list().map((m) => [m.name, m.stabilityLevel]));
    expect(levels).toMatchObject({
      apiserver_request_total: 'STABLE',
      apiserver_request_duration_seconds: 'STABLE',
      apiserver_response_sizes: 'STABLE',
      apiserver_current_inflight_requests: 'STABLE',
      apiserver_longrunning_requests: 'STABLE',
      apiserver_requested_deprecated_apis: 'STABLE',
      apiserver_storage_objects: 'STABLE',
      apiserver_registered_watchers: 'ALPHA',
      apiserver_watch_events_total: 'ALPHA',
      apiserver_storage_list_total: 'ALPHA',
      apiserver_audit_event_total: 'ALPHA',
      apiserver_audit_error_total: 'ALPHA',
      authentication_attempts: 'ALPHA',
      authentication_duration_seconds: 'ALPHA',
    });
  });
});
