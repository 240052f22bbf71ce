import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';
import { defaultOptions, SUBSYSTEMS } from '../../../src/config/options';
import { defaultsOf, flag, flagsOf, int, OptionsOf, path, shownDefault, Table } from '../../../src/config/options/flag';
import { secureServing } from '../../../src/config/options/secure-serving';
import { completeConfiguration, loadConfiguration } from '../../../src/server/configuration';
import { ServingMaterial } from '../../../src/server/certificates';

/** The problems of a command line that is refused (none: accepted). */
function problemsOf(argv: string[]): readonly string[] {
  try {
    parseServerFlags(argv, {});
  } catch (err) {
    if (err instanceof FlagError) return err.problems;
    throw err;
  }
  return [];
}

function help(): string {
  try {
    parseServerFlags(['--help'], {});
  } catch (err) {
    if (err instanceof HelpRequested) return err.helpText;
  }
  throw new Error('no help');
}

describe('reading the flags', () => {
  it('reports every bad flag at once, a line each naming its flag', () => {
    expect(problemsOf(['--secure-port=http', '--logging-format=yaml'])).toEqual([
      'invalid argument "http" for "--secure-port" flag: strconv.ParseInt: parsing "http": invalid syntax',
      'invalid argument "yaml" for "--logging-format" flag: Unsupported log format',
    ]);
    // Bad values and bad combinations of different subsystems together.
    const problems = problemsOf(['--tls-min-version=VersionTLS14', '--history-window=0s', '--authorization-mode=ABAC', '--max-requests-inflight=-1']);
    expect(problems).toEqual([
      'invalid argument "VersionTLS14" for "--tls-min-version" flag: unknown tls version "VersionTLS14"',
      'invalid argument "-1" for "--max-requests-inflight" flag: --max-requests-inflight can not be negative value',
      '--history-window must be positive',
      "authorization-mode ABAC's authorization policy file not passed",
    ]);
    for (const line of problems) expect(line).not.toContain('\n');
    const err = (() => {
      try {
        parseServerFlags(['--secure-port=http', '--logging-format=yaml'], {});
      } catch (e) {
        return e as FlagError;
      }
    })();
    expect(err).toBeInstanceOf(FlagError);
    expect(err!.message.split('\n')).toEqual(err!.problems);
  });

  it('reports a flag whose value cannot be read for that alone, not for the combinations it is in', () => {
    expect(problemsOf(['--tls-cert-file=', '--tls-private-key-file=k.pem'])).toEqual(['invalid argument "" for "--tls-cert-file" flag: must not be empty']);
    expect(problemsOf(['--authorization-mode=ABAC,Magic', '--authorization-policy-file=p.jsonl'])).toHaveLength(1);
  });

  it('reports the values read before a command line that cannot be read to its end', () => {
    expect(problemsOf(['--secure-port=http', '--no-such-flag'])).toEqual([
      'invalid argument "http" for "--secure-port" flag: strconv.ParseInt: parsing "http": invalid syntax',
      'unknown flag: --no-such-flag',
    ]);
  });
});

describe('the loaded configuration', () => {
  const assign = (target: object, key: string, value: unknown) => {
    (target as Record<string, unknown>)[key] = value;
  };

  it('is frozen, every part of it', () => {
    for (const options of [parseServerFlags(['--service-account-issuer=https://a.example', '--audit-log-path=-'], {}), defaultOptions({ securePort: 0 })]) {
      expect(Object.isFrozen(options)).toBe(true);
      expect(Object.isFrozen(options.serviceAccounts)).toBe(true);
      expect(Object.isFrozen(options.serviceAccounts.issuers)).toBe(true);
      expect(Object.isFrozen(options.audit.logBatch)).toBe(true);
      expect(Object.isFrozen(options.authorizationModes)).toBe(true);
      expect(() => assign(options, 'securePort', 1)).toThrow(TypeError);
      expect(() => assign(options.oidc, 'issuerUrl', 'https://elsewhere')).toThrow(TypeError);
      expect(() => (options.controllers as string[]).push('-serviceaccount')).toThrow(TypeError);
    }
  });

  it('derives what follows from other values before it is frozen, and completes into a new frozen object', async () => {
    expect(parseServerFlags(['--authorization-config=/etc/authz.yaml'], {}).authorizationModes).toEqual([]);
    expect(parseServerFlags(['--service-account-max-token-expiration=1h30m0.5s'], {}).serviceAccounts.maxTokenExpirationSeconds).toBe(5400);

    const dataDir = mkdtempSync(join(tmpdir(), 'options-spec-'));
    try {
      const loaded = await loadConfiguration(defaultOptions({ securePort: 0, dataDir }));
      expect(Object.isFrozen(loaded)).toBe(true);
      expect(Object.isFrozen(loaded.authentication)).toBe(true);
      expect(() => assign(loaded, 'serviceAccountTokens', {})).toThrow(TypeError);
      const material: ServingMaterial = { servingCertPem: 'serving', servingKeyPem: 'key', caCertPem: 'ca', caKeyPem: 'ca key', clientCaPems: ['ca', 'extra'] };
      const complete = completeConfiguration(loaded, material, 'https://127.0.0.1:6443');
      expect(Object.isFrozen(complete)).toBe(true);
      expect(complete.authentication.clientCaPems).toEqual(['ca', 'extra']);
      expect(complete.serviceAccountTokens.issuers).toEqual(['https://127.0.0.1:6443']);
      // What was loaded is left as it was.
      expect(loaded.authentication.clientCaPems).toBeUndefined();
      expect('serviceAccountTokens' in loaded).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a flag declaration', () => {
  const table = {
    port: flag({ name: 'port', ...int(0, 10), default: 3, usage: 'A port.' }),
    file: flag({ name: 'file', ...path, usage: 'A file.' }),
    nested: { limit: flag({ name: 'limit', ...int(), default: 0, usage: 'A limit.' }) },
  };

  it('gives its option its type, and leaves it optional without a default', () => {
    const options: OptionsOf<typeof table> = defaultsOf(table);
    const port: number = options.port;
    const file: string | undefined = options.file;
    // @ts-expect-error: a flag without a default may be unset
    const unset: string = options.file;
    expect([port, file, unset, options.nested.limit]).toEqual([3, undefined, undefined, 0]);
    expect(Object.keys(options)).toEqual(['port', 'file', 'nested']);
  });

  it('gives its default to the options, the command line and --help alike', () => {
    const declared = secureServing.flags.securePort;
    expect(defaultOptions().securePort).toBe(declared.default);
    expect(parseServerFlags([], {}).securePort).toBe(declared.default);
    expect(help()).toMatch(new RegExp(`^ {6}--secure-port int +${declared.usage.replace(/[.;]/g, '\\$&')} \\(default ${shownDefault(declared)}\\)$`, 'm'));
    // Every default of the command line is the one declared.
    expect(parseServerFlags([], {})).toEqual(defaultOptions());
  });

  it('is written once: no flag name and no option field is declared twice', () => {
    const flags = SUBSYSTEMS.flatMap((s) => flagsOf(s.flags as Table).map((f) => f.name));
    expect(new Set(flags).size).toBe(flags.length);
    const fields = SUBSYSTEMS.flatMap((s) => Object.keys(s.flags));
    expect(new Set(fields).size).toBe(fields.length);
    for (const name of flags) expect(help()).toContain(`--${name} `);
  });
});
