import { Blob } from 'node:buffer';
import type * as PGliteModule from '@electric-sql/pglite';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Loads PGlite through Node's own module loader.
 *
 * PGlite's Node build pulls parts of itself in with dynamic import(), which module
 * sandboxes (jest's, without --experimental-vm-modules) refuse. process.getBuiltinModule
 * reaches the real `module` builtin even inside such a sandbox; outside one it is the
 * same loader `require` uses.
 */
function nativeRequire(): NodeRequire {
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const builtin = getBuiltinModule?.call(process, 'node:module') as typeof import('node:module') | undefined;
  return builtin ? builtin.createRequire(__filename) : require;
}

let pglite: typeof PGliteModule | undefined;

function pgliteModule(): typeof PGliteModule {
  pglite ??= nativeRequire()('@electric-sql/pglite') as typeof PGliteModule;
  return pglite;
}

const OID = { int8: 20, numeric: 1700, json: 114, jsonb: 3802 } as const;
const parseJson = (text: string): unknown => JSON.parse(text);
const asText = (text: string): string => text;

/**
 * Starts PGlite in `dir` (in memory without one), optionally seeded from a dump of
 * another data directory (`dumpDataDir('none')`), which skips initdb.
 *
 * Values come back as `pg` returns them: int8 and numeric as strings. json/jsonb are
 * parsed here, in the caller's realm, so objects behave normally under a sandbox.
 */
export async function startPGlite(dir?: string, dump?: Uint8Array): Promise<PGlite> {
  const { PGlite } = pgliteModule();
  const db = new PGlite(dir, {
    parsers: { [OID.int8]: asText, [OID.numeric]: asText, [OID.json]: parseJson, [OID.jsonb]: parseJson },
    ...(dump ? { loadDataDir: new Blob([dump]) as unknown as globalThis.Blob } : {}),
  });
  await db.waitReady;
  return db;
}
