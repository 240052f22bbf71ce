import { Logger } from '@nestjs/common';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authorizer } from '../../../src/authorization/authorizer';
import { AuthorizerFactories } from '../../../src/authorization/authorizer-factories';
import { AuthorizationConfigReloader } from '../../../src/authorization/config/config-reloader';
import { ConfiguredAuthorizers } from '../../../src/authorization/config/configured-authorizers';
import { AuthorizationConfiguration } from '../../../src/authorization/config/types';
import { metricsRegistry } from '../../../src/metrics/registry';
import { eventually } from '../../support/eventually';

function fakeFactories() {
  const factories = new AuthorizerFactories();
  const built: string[] = [];
  const closed: string[] = [];
  for (const type of ['RBAC', 'Node', 'AlwaysAllow', 'Webhook']) {
    factories.register(type, (entry) => {
      built.push(`${type}/${entry.name}`);
      const authorizer: Authorizer = { type, name: entry.name, authorize: () => ({ decision: 'NoOpinion' }), close: () => void closed.push(`${type}/${entry.name}`) };
      return authorizer;
    });
  }
  return { factories, built, closed };
}

const config = (...entries: Array<[string, string]>): AuthorizationConfiguration => ({
  authorizers: entries.map(([type, name]) => ({ type, name })),
});

describe('chains built from configurations', () => {
  it('keeps the stateful authorizers of the start and rebuilds webhooks on every reload', async () => {
    const { factories, built } = fakeFactories();
    const configured = new ConfiguredAuthorizers(factories);
    const first = await configured.build(config(['Node', 'node'], ['Webhook', 'a'], ['RBAC', 'rbac']));
    expect(first.map((a) => a.name)).toEqual(['node', 'a', 'rbac']);
    expect(configured.startupTypes).toEqual(new Set(['Node', 'RBAC']));

    const reordered = await configured.build(config(['RBAC', 'rbac'], ['Webhook', 'b'], ['Node', 'node']));
    expect(reordered[0]).toBe(first[2]);
    expect(reordered[2]).toBe(first[0]);
    expect(reordered[1]).not.toBe(first[1]);
    expect(built).toEqual(['Node/node', 'Webhook/a', 'RBAC/rbac', 'Webhook/b']);
    expect(ConfiguredAuthorizers.retired(first, reordered).map((a) => a.name)).toEqual(['a']);
  });

  it('refuses to add a stateful type on reload and closes what it built meanwhile', async () => {
    const { factories, closed } = fakeFactories();
    const configured = new ConfiguredAuthorizers(factories);
    await configured.build(config(['Webhook', 'a'], ['Node', 'node']));
    await expect(configured.build(config(['Webhook', 'b'], ['Node', 'node'], ['RBAC', 'rbac']))).rejects.toThrow(
      'authorizer type RBAC is not allowed if it was not enabled at initial server startup',
    );
    expect(closed).toEqual(['Webhook/b']);
    // stateless types may be added
    await expect(configured.build(config(['AlwaysAllow', 'alwaysallow'], ['Node', 'node']))).resolves.toHaveLength(2);
  });
});

async function metricValue(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = (metric?.values ?? []).find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return sample?.value;
}

describe('the configuration reloader', () => {
  beforeAll(() => Logger.overrideLogger(false));
  const dir = mkdtempSync(join(tmpdir(), 'authz-reload-'));
  const path = join(dir, 'authz.yaml');
  const applied: string[] = [];
  let reloader: AuthorizationConfigReloader;
  let failNextApply = false;

  beforeAll(() => {
    writeFileSync(path, 'one');
    reloader = new AuthorizationConfigReloader(
      {
        path,
        intervalMs: 60_000,
        load: async (data) => {
          if (data.startsWith('bad')) throw new Error(`invalid: ${data}`);
          return config(['Webhook', data.trim()]);
        },
        apply: async (next) => {
          if (failNextApply) {
            failNextApply = false;
            throw new Error('cannot build');
          }
          applied.push(next.authorizers[0].name);
        },
      },
      'one',
      config(['Webhook', 'one']),
    );
  });
  afterAll(() => reloader.stop());

  const reloads = (status: string) => metricValue('apiserver_authorization_config_controller_automatic_reloads_total', { status });

  it('does nothing while the bytes or the configuration are unchanged', async () => {
    expect(await reloader.check()).toBe('unchanged');
    writeFileSync(path, 'one\n');
    expect(await reloader.check()).toBe('unchanged');
    expect(applied).toEqual([]);
  });

  it('applies a new valid file and counts a success', async () => {
    const before = (await reloads('success')) ?? 0;
    writeFileSync(path, 'two');
    expect(await reloader.check()).toBe('reloaded');
    expect(applied).toEqual(['two']);
    expect(await reloads('success')).toBe(before + 1);
    const stamp = await metricValue('apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', { status: 'success' });
    expect(Math.abs((stamp ?? 0) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('keeps the old configuration on an invalid, unreadable or unbuildable file and counts failures', async () => {
    const before = (await reloads('failure')) ?? 0;
    writeFileSync(path, 'bad file');
    expect(await reloader.check()).toBe('failed');
    // the same bad bytes are not reported again
    expect(await reloader.check()).toBe('unchanged');
    renameSync(path, `${path}.moved`);
    expect(await reloader.check()).toBe('failed');
    renameSync(`${path}.moved`, path);
    failNextApply = true;
    writeFileSync(path, 'three');
    expect(await reloader.check()).toBe('failed');
    expect(applied).toEqual(['two']);
    expect(await reloads('failure')).toBe(before + 3);
  });

  it('notices a replaced file through the directory watch, without being asked', async () => {
    reloader.start();
    writeFileSync(join(dir, 'next.yaml'), 'four');
    renameSync(join(dir, 'next.yaml'), path);
    await eventually(() => expect(applied).toContain('four'), 5000, 50);
  });
});
