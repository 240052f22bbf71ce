import { FlagError, parseServerFlags } from '../../../src/config/flags';
import { featureGateHelpLines, FeatureGates } from '../../../src/config/feature-gates';
import { parseRuntimeConfig } from '../../../src/config/runtime-config';

describe('--runtime-config', () => {
  it('reads level switches, group versions (value omitted = true) and resources', () => {
    expect(parseRuntimeConfig('api/all=false,api/beta,rbac.authorization.platform.io/v1=true,rbac.authorization.platform.io/v1/rolebindings=false,v1=t')).toEqual({
      levels: { 'api/all': false, 'api/beta': true },
      versions: [
        { key: 'rbac.authorization.platform.io/v1', group: 'rbac.authorization.platform.io', version: 'v1', enabled: true },
        { key: 'rbac.authorization.platform.io/v1/rolebindings', group: 'rbac.authorization.platform.io', version: 'v1', resource: 'rolebindings', enabled: false },
        { key: 'v1', group: '', version: 'v1', enabled: true },
      ],
    });
    expect(parseRuntimeConfig('api/v1/namespaces=false').versions).toEqual([{ key: 'api/v1/namespaces', group: '', version: 'v1', resource: 'namespaces', enabled: false }]);
  });

  it('adds up repeated flags', () => {
    const o = parseServerFlags(['--runtime-config=api/alpha=true', '--runtime-config', 'authorization.platform.io/v1=false'], {});
    expect(o.runtimeConfig.levels).toEqual({ 'api/alpha': true });
    expect(o.runtimeConfig.versions.map((v) => v.key)).toEqual(['authorization.platform.io/v1']);
    expect(parseServerFlags([], {}).runtimeConfig).toEqual({ levels: {}, versions: [] });
  });

  it.each([
    ['api/all=maybe', 'invalid argument "api/all=maybe" for "--runtime-config" flag: invalid value of api/all: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ['rbac.authorization.platform.io/v1=nope', 'invalid value of rbac.authorization.platform.io/v1: nope'],
    ['rbac.authorization.platform.io/version1=true', 'invalid argument "rbac.authorization.platform.io/version1=true" for "--runtime-config" flag: invalid key rbac.authorization.platform.io/version1'],
    ['a/v1/b/c=false', 'invalid key a/v1/b/c'],
    ['=true', 'invalid key '],
    ['Foo_Bar/v1=true', 'invalid key Foo_Bar/v1'],
  ])('refuses %s naming it', (value, message) => {
    expect(() => parseServerFlags([`--runtime-config=${value}`], {})).toThrow(FlagError);
    expect(() => parseServerFlags([`--runtime-config=${value}`], {})).toThrow(message);
  });
});

describe('--show-hidden-metrics-for-version', () => {
  it('accepts only the previous minor release, in kube\'s words', () => {
    expect(parseServerFlags(['--show-hidden-metrics-for-version=1.31'], {}).showHiddenMetricsForVersion).toBe('1.31');
    expect(() => parseServerFlags(['--show-hidden-metrics-for-version=1.30'], {})).toThrow(
      'invalid argument "1.30" for "--show-hidden-metrics-for-version" flag: --show-hidden-metrics-for-version must be omitted or have the value \'1.31\'. Only the previous minor version is allowed',
    );
  });
});

describe('feature gate lifecycle', () => {
  it('lists alpha and beta gates in --help as kube does, GA gates not', () => {
    const lines = featureGateHelpLines();
    expect(lines).toContain('AuthorizeWithSelectors=true|false (ALPHA - default=false)');
    expect(lines).toContain('WatchList=true|false (BETA - default=true)');
    expect(lines).toContain('AllAlpha=true|false (ALPHA - default=false)');
    expect(lines).toContain('AllBeta=true|false (BETA - default=false)');
    expect(lines.some((l) => l.startsWith('DryRun='))).toBe(false);
    expect([...lines].sort()).toEqual(lines);
    const help = (() => {
      try {
        parseServerFlags(['--help'], {});
      } catch (err) {
        return (err as { helpText: string }).helpText;
      }
      return '';
    })();
    // Each gate on its own line under the usage column.
    expect(help).toMatch(/\n {6}--feature-gates mapStringBool +A set of key=value pairs that describe feature gates for alpha\/experimental features\. Options are:\n +APIResponseCompression=true\|false \(BETA - default=true\)\n/);
  });

  it('AllAlpha and AllBeta set the gates of their stage that are not named', () => {
    const gates = FeatureGates.parse('AllAlpha=true,AuthorizeNodeWithSelectors=false,AllBeta=false');
    expect(gates.enabled('AuthorizeWithSelectors')).toBe(true);
    expect(gates.enabled('AnonymousAuthConfigurableEndpoints')).toBe(true);
    expect(gates.enabled('AuthorizeNodeWithSelectors')).toBe(false);
    expect(gates.enabled('WatchList')).toBe(false);
    expect(gates.enabled('APIResponseCompression')).toBe(false);
    // GA gates are locked whatever AllBeta says.
    expect(gates.enabled('DryRun')).toBe(true);
  });
});
