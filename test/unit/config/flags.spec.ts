import { FlagError, HelpRequested, parseDurationSeconds, parseServerFlags } from '../../../src/config/flags';

describe('server flags', () => {
  it('has kube-apiserver defaults', () => {
    expect(parseServerFlags([], {})).toMatchObject({
      securePort: 6443,
      bindAddress: '127.0.0.1',
      dataDir: './data',
      historyWindowSeconds: 300,
      anonymousAuth: true,
      authorizationModes: ['AlwaysAllow'],
      maxRequestBodyBytes: 3 * 1024 * 1024,
      databaseUrl: undefined,
    });
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
