import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** The built server refusing bad TLS and request-limit flags: exit 1 and one line naming the flag, nothing created. */
describe('start-up errors of TLS and request-limit flags', () => {
  let dir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (npm run build)`);
    dir = mkdtempSync(join(tmpdir(), 'platform-servingflags-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Exit 1, each line (a bad flag each) on stderr, nothing on stdout and no data directory. */
  async function refused(args: string[], lines: string | string[]): Promise<void> {
    const dataDir = join(dir, `data-${Math.random().toString(36).slice(2)}`);
    const env = { ...process.env };
    delete env.DATABASE_URL;
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stdout, stderr }).toEqual({ code: 1, stdout: '', stderr: [lines].flat().map((line) => `error: ${line}\n`).join('') });
    expect(existsSync(dataDir)).toBe(false);
  }

  it('refuses an unknown TLS version or cipher suite', async () => {
    await refused(['--tls-min-version=VersionTLS14'], 'invalid argument "VersionTLS14" for "--tls-min-version" flag: unknown tls version "VersionTLS14"');
    await refused(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA'], 'invalid argument "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA" for "--tls-cipher-suites" flag: Cipher suite TLS_RSA_WITH_RC4_128_SHA not supported or doesn\'t exist');
  });

  it('refuses negative limits and a request timeout that is not a duration', async () => {
    await refused(['--max-requests-inflight=-1'], 'invalid argument "-1" for "--max-requests-inflight" flag: --max-requests-inflight can not be negative value');
    await refused(['--request-timeout=soon'], 'invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon"');
  });

  it('reports every bad flag at once, a line each', async () => {
    await refused(
      ['--tls-min-version=VersionTLS14', '--request-timeout=soon', '--max-requests-inflight=-1', '--tls-cert-file=serving.crt'],
      [
        'invalid argument "VersionTLS14" for "--tls-min-version" flag: unknown tls version "VersionTLS14"',
        'invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon"',
        'invalid argument "-1" for "--max-requests-inflight" flag: --max-requests-inflight can not be negative value',
        '--tls-cert-file and --tls-private-key-file must be given together',
      ],
    );
  });
});
