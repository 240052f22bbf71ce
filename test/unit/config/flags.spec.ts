import { FlagError, HelpRequested, parseDurationSeconds, parseServerFlags } from '../../../src/config/flags';

describe('server flags', () => {
  it('has kube-apiserver defaults', () => {
    expect(parseServerFlags([], {})).toMatchObject({
      securePort: 6443,
      bindAddress: '127.0.0.1',
      dataDir: './data',
      historyWindowSeconds: 300,
      anonymousAuth: true,
      authorizationModes: ['Node', 'RBAC'],
      maxRequestBodyBytes: 3 * 1024 * 1024,
      watchCacheSizeBytes: 64 * 1024 * 1024,
      databaseUrl: undefined,
    });
  });

  it('bounds the watch cache by --watch-cache-size-bytes and names the flag when its value is bad', () => {
    expect(parseServerFlags(['--watch-cache-size-bytes=1048576'], {}).watchCacheSizeBytes).toBe(1048576);
    expect(parseServerFlags(['--watch-cache-size-bytes', '0'], {}).watchCacheSizeBytes).toBe(0);
    for (const bad of ['lots', '-1', '64Mi', '1.5']) {
      expect(() => parseServerFlags([`--watch-cache-size-bytes=${bad}`], {})).toThrow(
        new FlagError(`option '--watch-cache-size-bytes <bytes>' argument '${bad}' is invalid. ${bad === '-1' ? 'must be between 0 and 9007199254740991' : `"${bad}" is not an integer`}`),
      );
    }
  });

  it('reads flags in both spellings and DATABASE_URL', () => {
    const o = parseServerFlags(
      ['--secure-port=7443', '--bind-address', '0.0.0.0', '--history-window=90s', '--anonymous-auth=false', '--authorization-mode=AlwaysDeny,AlwaysAllow'],
      { DATABASE_URL: 'postgres://x/y' },
    );
    expect(o).toMatchObject({ securePort: 7443, bindAddress: '0.0.0.0', historyWindowSeconds: 90, anonymousAuth: false, databaseUrl: 'postgres://x/y' });
    expect(o.authorizationModes).toEqual(['AlwaysDeny', 'AlwaysAllow']);
    expect(parseServerFlags(['--database-url=postgres://a/b'], { DATABASE_URL: 'postgres://x/y' }).databaseUrl).toBe('postgres://a/b');
  });

  it.each([
    [['--no-such-flag'], 'unknown option'],
    [['--secure-port=http'], 'not an integer'],
    [['--secure-port=70000'], 'between'],
    [['--authorization-mode=Magic'], 'unknown authorization mode "Magic"'],
    [['--anonymous-auth=maybe'], 'not a boolean'],
    [['--history-window=soon'], 'not a duration'],
    [['--tls-cert-file=a.crt'], 'must be given together'],
    [['extra'], 'too many arguments'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseServerFlags(argv, {})).toThrow(FlagError);
    expect(() => parseServerFlags(argv, {})).toThrow(message);
  });

  it('prints help listing the flags', () => {
    try {
      parseServerFlags(['--help'], {});
      throw new Error('no help');
    } catch (err) {
      expect(err).toBeInstanceOf(HelpRequested);
      for (const flag of ['--secure-port', '--token-auth-file', '--authorization-mode', '--data-dir', '--history-window']) {
        expect((err as HelpRequested).helpText).toContain(flag);
      }
    }
  });

  it('parses Go durations', () => {
    expect(parseDurationSeconds('5m')).toBe(300);
    expect(parseDurationSeconds('1h30m')).toBe(5400);
    expect(parseDurationSeconds('1500ms')).toBe(1.5);
    expect(parseDurationSeconds('42')).toBe(42);
  });
});

describe('--feature-gates', () => {
  it('defaults alpha gates off and beta gates on', () => {
    const gates = parseServerFlags([], {}).featureGates;
    expect(gates.enabled('AuthorizeWithSelectors')).toBe(false);
    expect(gates.enabled('APIResponseCompression')).toBe(true);
  });

  it('sets gates from a comma list', () => {
    const gates = parseServerFlags(['--feature-gates=AuthorizeWithSelectors=true,APIResponseCompression=false'], {}).featureGates;
    expect(gates.enabled('AuthorizeWithSelectors')).toBe(true);
    expect(gates.enabled('APIResponseCompression')).toBe(false);
  });

  it('warns when a GA gate is set to its locked value', () => {
    expect(parseServerFlags(['--feature-gates=ServerSideApply=true'], {}).featureGates.warnings).toEqual([
      'Setting GA feature gate ServerSideApply=true. It will be removed in a future release.',
    ]);
  });

  it.each([
    ['NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
    ['AuthorizeWithSelectors', 'missing bool value for AuthorizeWithSelectors'],
    ['AuthorizeWithSelectors=yes', 'invalid value of AuthorizeWithSelectors=yes'],
    ['ServerSideApply=false', 'cannot set feature gate ServerSideApply to false, feature is locked to true'],
  ])('rejects %s', (value, message) => {
    expect(() => parseServerFlags([`--feature-gates=${value}`], {})).toThrow(FlagError);
    expect(() => parseServerFlags([`--feature-gates=${value}`], {})).toThrow(message);
  });
});
