import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationNames, pgliteVersion, templateKey, usableTemplate } from '../../../src/storage/engine/data-dir-template';

/** Which templates a server accepts: checked from the files alone, before anything is copied. */
describe('the data-directory template', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'platform-template-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A template directory with this manifest and, unless told otherwise, a database directory. */
  function template(manifest: unknown, withData = true): string {
    const at = join(dir, 'template');
    mkdirSync(join(at, 'data'), { recursive: true });
    if (withData) writeFileSync(join(at, 'data', 'PG_VERSION'), '17\n');
    writeFileSync(join(at, 'template.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    return at;
  }
  const current = () => ({ key: 'k', pgliteVersion: pgliteVersion(), migrations: migrationNames() });

  it('is used when made by this PGlite with migrations this server knows', () => {
    const at = template(current());
    expect(usableTemplate(at)).toEqual({ dataDir: join(at, 'data'), manifest: current() });
    // A template migrated less far is fine: the server applies the rest.
    expect(usableTemplate(template({ ...current(), migrations: migrationNames().slice(0, 1) }))).toHaveProperty('dataDir');
  });

  it('is refused when missing or incomplete', () => {
    const missing = join(dir, 'none');
    expect(usableTemplate(missing)).toEqual({ unusable: `no template in ${missing}` });
    const at = template('{ not json');
    expect(usableTemplate(at)).toEqual({ unusable: `${join(at, 'template.json')} is not a template manifest` });
    rmSync(at, { recursive: true });
    expect(usableTemplate(template(current(), false))).toEqual({ unusable: `the template in ${at} has no database directory` });
  });

  it('is refused when another PGlite version made it', () => {
    const at = template({ ...current(), pgliteVersion: '0.0.1' });
    expect(usableTemplate(at)).toEqual({ unusable: `the template in ${at} was made by PGlite 0.0.1, this server runs ${pgliteVersion()}` });
  });

  it('is refused when it has migrations this server does not know', () => {
    const at = template({ ...current(), migrations: [...migrationNames(), 'Later1999999999999'] });
    expect(usableTemplate(at)).toEqual({ unusable: `the template in ${at} has migrations this server does not know: Later1999999999999` });
  });

  it('is keyed by the migrations: a changed or added migration makes a new key', () => {
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(join(migrations, '1-a.ts'), 'one');
    const first = templateKey(migrations);
    expect(templateKey(migrations)).toBe(first);
    writeFileSync(join(migrations, '1-a.ts'), 'two');
    const changed = templateKey(migrations);
    expect(changed).not.toBe(first);
    writeFileSync(join(migrations, '2-b.ts'), 'three');
    expect(templateKey(migrations)).not.toBe(changed);
  });
});
