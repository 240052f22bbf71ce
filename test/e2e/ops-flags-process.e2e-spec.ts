import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

const childEnv = () => {
  const env = { ...process.env };
  delete env.DATABASE_URL; // the embedded default
  delete env.NODE_OPTIONS;
  return env;
};

/**
 * The built server as `npm start` runs it, refusing --runtime-config, --feature-gates and
 * --show-hidden-metrics-for-version values: exit 1 and one line naming the flag.
 */
describe('start-up errors of API enablement, feature gates and metrics flags', () => {
  let dir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (npm run build)`);
    dir = mkdtempSync(join(tmpdir(), 'platform-opsflags-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function start(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dataDir = join(dir, `data-${Math.random().toString(36).slice(2)}`);
    const child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', ...args], { env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr };
  }

  async function refused(args: string[], line: string): Promise<void> {
    const result = await start(args);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `error: ${line}\n` });
  }

  it('refuses malformed --runtime-config keys and values', async () => {
    await refused(['--runtime-config=api/all=maybe'], 'invalid argument "api/all=maybe" for "--runtime-config" flag: invalid value of api/all: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    await refused(['--runtime-config=rbac.authorization.platform.io/one=false'], 'invalid argument "rbac.authorization.platform.io/one=false" for "--runtime-config" flag: invalid key rbac.authorization.platform.io/one');
  });

  it('refuses unknown, malformed and locked feature gates', async () => {
    await refused(['--feature-gates=NoSuchGate=true'], 'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate');
    await refused(['--feature-gates=DryRun=false'], 'invalid argument "DryRun=false" for "--feature-gates" flag: cannot set feature gate DryRun to false, feature is locked to true');
    await refused(['--feature-gates=WatchList=perhaps'], 'invalid argument "WatchList=perhaps" for "--feature-gates" flag: invalid value of WatchList=perhaps, err: invalid syntax');
  });

  it('refuses --show-hidden-metrics-for-version other than the previous release', async () => {
    await refused(['--show-hidden-metrics-for-version=1.29'], 'invalid argument "1.29" for "--show-hidden-metrics-for-version" flag: --show-hidden-metrics-for-version must be omitted or have the value \'1.31\'. Only the previous minor version is allowed');
  });

  it('refuses a --runtime-config group version no module serves once the kinds are registered, warning about a GA gate first', async () => {
    const result = await start(['--runtime-config=nope.platform.io/v1=true', '--feature-gates=DryRun=true']);
    expect(result.code).toBe(1);
    // The start-up log (klog's format, on stderr) has the gate's warning; the error is the last line.
    expect(result.stderr).toContain('Setting GA feature gate DryRun=true. It will be removed in a future release.');
    expect(result.stderr.split('\n').slice(-2)).toEqual(['error: --runtime-config: unknown group version or resource: nope.platform.io/v1', '']);
    expect(result.stdout).not.toContain('serving on');
  }, 180_000);
});
