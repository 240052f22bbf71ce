import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';

describe('server flags', () => {
  it('has kube-apiserver defaults', () => {
    expect(parseServerFlags([], {})).toMatchObject({
      securePort: 6443,
      bindAddress: '127.0.0.1',
      dataDir: './data',
      historyWindowSeconds: 300,
      anonymousAuth: undefined,
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
        new FlagError(
          `invalid argument "${bad}" for "--watch-cache-size-bytes" flag: ${bad === '-1' ? 'must be between 0 and 9007199254740991, inclusive' : `strconv.ParseInt: parsing "${bad}": invalid syntax`}`,
        ),
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

  it('answers kubectl at the k8s.io review paths unless --kubectl-review-aliases=false', () => {
    expect(parseServerFlags([], {}).kubectlReviewAliases).toBe(true);
    expect(parseServerFlags(['--kubectl-review-aliases=false'], {}).kubectlReviewAliases).toBe(false);
    expect(parseServerFlags(['--kubectl-review-aliases'], {}).kubectlReviewAliases).toBe(true);
    expect(() => parseServerFlags(['--kubectl-review-aliases=off'], {})).toThrow('invalid argument "off" for "--kubectl-review-aliases" flag: strconv.ParseBool: parsing "off": invalid syntax');
  });

  it.each([
    [['--no-such-flag'], 'unknown flag: --no-such-flag'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['--secure-port=http'], 'invalid argument "http" for "--secure-port" flag: strconv.ParseInt: parsing "http": invalid syntax'],
    [['--secure-port=70000'], 'invalid argument "70000" for "--secure-port" flag: must be between 0 and 65535, inclusive'],
    [['--bind-address=not an address'], 'invalid argument "not an address" for "--bind-address" flag: failed to parse IP: "not an address"'],
    [['--authorization-mode=Magic'], 'invalid argument "Magic" for "--authorization-mode" flag: unknown authorization mode "Magic"'],
    [['--anonymous-auth=maybe'], 'invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [['--embedded-fsync=sometimes'], 'invalid argument "sometimes" for "--embedded-fsync" flag: strconv.ParseBool: parsing "sometimes": invalid syntax'],
    [['--history-window=soon'], 'invalid argument "soon" for "--history-window" flag: time: invalid duration "soon"'],
    [['--history-window=300'], 'invalid argument "300" for "--history-window" flag: time: missing unit in duration "300"'],
    [['--history-window=0s'], '--history-window must be positive'],
    [['--token-auth-file='], 'invalid argument "" for "--token-auth-file" flag: must not be empty'],
    [['--tls-cert-file=a.crt'], 'must be given together'],
    [['--embedded-fsync=false', '--database-url=postgres://db/x'], '--embedded-fsync applies to the embedded store only'],
    [['--embedded-shared-buffers=16'], 'invalid argument "16" for "--embedded-shared-buffers" flag: "16" is not a size in kB, MB or GB (e.g. 16MB)'],
    [['--embedded-shared-buffers=64kB'], 'invalid argument "64kB" for "--embedded-shared-buffers" flag: must be between 128kB and 1GB, inclusive'],
    [['--embedded-shared-buffers=32MB', '--database-url=postgres://db/x'], '--embedded-shared-buffers applies to the embedded store only'],
    [['extra'], '"platform-authz-apiserver" does not take any arguments, got ["extra"]'],
  ])('rejects %j, naming the flag as kube does', (argv, message) => {
    expect(() => parseServerFlags(argv, {})).toThrow(FlagError);
    expect(() => parseServerFlags(argv, {})).toThrow(message);
  });

  it('reads --embedded-fsync (default true) and Go durations', () => {
    expect(parseServerFlags([], {}).embeddedFsync).toBe(true);
    expect(parseServerFlags(['--embedded-fsync=false'], {}).embeddedFsync).toBe(false);
    expect(parseServerFlags(['--embedded-fsync'], {}).embeddedFsync).toBe(true);
    expect(parseServerFlags(['--history-window=1h30m'], {}).historyWindowSeconds).toBe(5400);
    expect(parseServerFlags(['--history-window=1500ms'], {}).historyWindowSeconds).toBe(1.5);
    expect(parseServerFlags([], {}).migrateOnly).toBe(false);
    expect(parseServerFlags([], {}).embeddedSharedBuffersBytes).toBe(16 * 1024 * 1024);
    expect(parseServerFlags(['--embedded-shared-buffers=512kB'], {}).embeddedSharedBuffersBytes).toBe(512 * 1024);
    expect(parseServerFlags(['--embedded-shared-buffers=1GB'], {}).embeddedSharedBuffersBytes).toBe(1024 ** 3);
    expect(parseServerFlags(['--migrate-only'], {}).migrateOnly).toBe(true);
  });

  it("prints help as kube does: sections, each flag with its value type and default", () => {
    let help = '';
    try {
      parseServerFlags(['--help'], {});
    } catch (err) {
      expect(err).toBeInstanceOf(HelpRequested);
      help = (err as HelpRequested).helpText;
    }
    expect(help).toContain('Usage:\n  platform-authz-apiserver [flags]\n');
    const line = (flag: string) => help.split('\n').find((l) => l.trimStart().startsWith(`${flag} `)) ?? '';
    expect(line('--secure-port')).toMatch(/^ {6}--secure-port int +The port .*\(default 6443\)$/);
    expect(line('--bind-address')).toMatch(/^ {6}--bind-address ip +.*\(default 127\.0\.0\.1\)$/);
    expect(line('--data-dir')).toMatch(/--data-dir string +.*\(default "\.\/data"\)$/);
    expect(line('--history-window')).toMatch(/--history-window duration +.*\(default 5m0s\)$/);
    expect(line('--anonymous-auth')).toMatch(/--anonymous-auth +Enables .*\(default true\)$/);
    expect(line('--embedded-fsync')).toMatch(/--embedded-fsync +.*\(default true\)$/);
    expect(line('--embedded-shared-buffers')).toMatch(/--embedded-shared-buffers string +.*\(default "16MB"\)$/);
    expect(line('--authorization-mode')).toMatch(/--authorization-mode strings +.*\(default \[Node,RBAC\]\)$/);
    expect(line('--authorization-webhook-version')).toMatch(/\(default "v1beta1"\)$/);
    // Zero values print no default, and nothing prints an object.
    expect(line('--token-auth-file')).toMatch(/--token-auth-file string +File of static bearer tokens, CSV: token,user,uid,"group1,group2"\.$/);
    expect(line('--feature-gates')).toMatch(/--feature-gates mapStringBool +A set of key=value pairs that describe feature gates/);
    expect(help).not.toMatch(/default: |\{"/);
    for (const section of ['Secure serving flags:', 'Storage flags:', 'Authentication flags:', 'Authorization flags:', 'Admission flags:', 'Feature gate flags:', 'API enablement flags:', 'Metrics flags:', 'Generic flags:']) {
      expect(help).toContain(`\n${section}\n\n      --`);
    }
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
    ['NoSuchGate=true', 'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate'],
    ['AuthorizeWithSelectors', 'missing bool value for AuthorizeWithSelectors'],
    ['AuthorizeWithSelectors=yes', 'invalid value of AuthorizeWithSelectors=yes'],
    ['ServerSideApply=false', 'cannot set feature gate ServerSideApply to false, feature is locked to true'],
  ])('rejects %s', (value, message) => {
    expect(() => parseServerFlags([`--feature-gates=${value}`], {})).toThrow(FlagError);
    expect(() => parseServerFlags([`--feature-gates=${value}`], {})).toThrow(message);
  });
});
