import { DeprecatedApiNotice } from '../../../src/endpoints/handlers/deprecated-api';
import { openAuditRecord } from '../../../src/audit/audit-context';
import { scopeFor } from '../../support/request-scope';
import { deprecationWarning, lifecycleOf, servedByDefault, servedWith } from '../../../src/registry/resources/api-versions';
import { ResourceRegistry } from '../../../src/registry/resources/registry';
import { defaultOptions } from '../../../src/config/options';
import { parseRuntimeConfig } from '../../../src/config/runtime-config';
import { roleType } from '../../../src/rbac/kinds/kinds';

const lifecycle = (version: string, extra: object = {}) => lifecycleOf({ group: 'g.platform.io', version, ...extra });

describe('API version lifecycle', () => {
  it('serves stable versions, not alpha ones, and beta ones only if introduced before 1.22', () => {
    expect(servedByDefault(lifecycle('v1'))).toBe(true);
    expect(servedByDefault(lifecycle('v1alpha1'))).toBe(false);
    expect(servedByDefault(lifecycle('v1beta1', { introduced: '1.21' }))).toBe(true);
    expect(servedByDefault(lifecycle('v1beta1', { introduced: '1.22' }))).toBe(false);
    expect(servedByDefault(lifecycle('v1beta1', { introduced: '1.10', deprecation: { deprecatedIn: '1.19', removedIn: '1.32' } }))).toBe(false);
    expect(() => lifecycle('v2beta1')).toThrow('g.platform.io/v2beta1: a beta version declares the release that introduced it');
  });

  it('applies --runtime-config in kube\'s order: all, level, group version, resource', () => {
    const served = (text: string, version: string, resource?: string, extra: object = {}) =>
      servedWith(parseRuntimeConfig(text), 'g.platform.io', version, lifecycle(version, extra), resource);
    expect(served('api/alpha=true', 'v1alpha1')).toBe(true);
    expect(served('api/all=true', 'v1alpha1')).toBe(true);
    expect(served('api/all=true,api/alpha=false', 'v1alpha1')).toBe(false);
    expect(served('api/all=false', 'v1')).toBe(false);
    expect(served('api/all=false,g.platform.io/v1', 'v1')).toBe(true);
    expect(served('api/ga=false', 'v1')).toBe(false);
    expect(served('api/beta=true', 'v1beta1', undefined, { introduced: '1.30' })).toBe(true);
    expect(served('g.platform.io/v1/things=false', 'v1', 'things')).toBe(false);
    expect(served('g.platform.io/v1/things=false', 'v1', 'others')).toBe(true);
    expect(served('g.platform.io/v1=false,g.platform.io/v1/things=true', 'v1', 'things')).toBe(true);
  });

  it('words the deprecation warning as kube does', () => {
    const deprecated = lifecycle('v1beta1', { introduced: '1.8', deprecation: { deprecatedIn: '1.17', removedIn: '1.33', replacement: 'g.platform.io/v1' } });
    expect(deprecationWarning('g.platform.io/v1beta1', 'Thing', deprecated)).toBe('g.platform.io/v1beta1 Thing is deprecated in v1.17+, unavailable in v1.33+; use g.platform.io/v1 Thing');
    expect(deprecationWarning('g.platform.io/v1beta1', 'Thing', lifecycle('v1beta1', { introduced: '1.8', deprecation: { deprecatedIn: '1.30' } }))).toBe(
      'g.platform.io/v1beta1 Thing is deprecated in v1.30+',
    );
    // Announced for a later release: not deprecated yet.
    expect(deprecationWarning('g.platform.io/v1beta1', 'Thing', lifecycle('v1beta1', { introduced: '1.8', deprecation: { deprecatedIn: '1.40' } }))).toBeUndefined();
    expect(deprecationWarning('g.platform.io/v1', 'Thing', lifecycle('v1'))).toBeUndefined();
  });

  it('gives a request to a deprecated version its warning and audit annotations', () => {
    const registry = new ResourceRegistry(defaultOptions());
    registry.declareGroupVersion({ group: 'g.platform.io', version: 'v1beta1', introduced: '1.20', deprecation: { deprecatedIn: '1.30', removedIn: '1.40' } });
    registry.declareGroupVersion({ group: 'g.platform.io', version: 'v1' });
    const notice = new DeprecatedApiNotice(registry);
    const noted = (path: string) => {
      const audit = openAuditRecord('Metadata');
      const scope = scopeFor('GET', path, undefined, { audit });
      const headers: string[] = [];
      const res = { append: (_: string, v: string) => headers.push(v), getHeader: () => (headers.length ? [...headers] : undefined), headersSent: false };
      notice.note(scope, res as never, 'Role');
      return { annotations: audit.annotations, headers };
    };
    const deprecated = noted('/apis/g.platform.io/v1beta1/widgets');
    expect(deprecated.annotations).toEqual({ 'platform.io/deprecated': 'true', 'platform.io/removed-release': '1.40' });
    expect(deprecated.headers).toEqual([expect.stringContaining('g.platform.io/v1beta1 Role is deprecated in v1.30+, unavailable in v1.40+')]);
    const stable = noted('/apis/g.platform.io/v1/widgets');
    expect(stable.annotations).toEqual({});
    expect(stable.headers).toEqual([]);
  });
});

describe('the registry under --runtime-config', () => {
  const registry = (text: string) => new ResourceRegistry(defaultOptions({ runtimeConfig: parseRuntimeConfig(text) }));
  const storage = { get: jest.fn(), list: jest.fn(), watch: jest.fn(), create: jest.fn(), update: jest.fn(), patch: jest.fn(), delete: jest.fn(), deleteCollection: jest.fn() } as never;

  it('keeps a disabled kind for the server but not for serving', () => {
    const r = registry('rbac.authorization.platform.io/v1/roles=false');
    r.register(roleType, storage);
    expect(r.lookup(roleType.group, 'v1', 'roles')).toBeDefined();
    expect(r.lookupServed(roleType.group, 'v1', 'roles')).toBeUndefined();
    expect(r.groups()).toEqual([]);
    expect(r.resourcesOf(roleType.group, 'v1')).toEqual([]);
  });

  it('names the keys that match nothing registered', () => {
    const r = registry('rbac.authorization.platform.io/v1/roles=false,rbac.authorization.platform.io/v1/widgets=false,nope.platform.io/v1=true,api/alpha=true');
    r.register(roleType, storage);
    expect(r.unknownRuntimeConfigKeys()).toEqual(['rbac.authorization.platform.io/v1/widgets', 'nope.platform.io/v1']);
  });

  it('refuses kinds of an alpha or beta version that declares no lifecycle', () => {
    const r = registry('');
    expect(() => r.register({ ...roleType, version: 'v1alpha1' }, storage)).toThrow('declares no lifecycle');
    r.declareGroupVersion({ group: roleType.group, version: 'v1alpha1' });
    r.register({ ...roleType, version: 'v1alpha1' }, storage);
    expect(r.lookupServed(roleType.group, 'v1alpha1', 'roles')).toBeUndefined();
  });
});
