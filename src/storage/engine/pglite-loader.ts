import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type * as PGliteModule from '@electric-sql/pglite';
import type { PGlite } from '@electric-sql/pglite';
// Types by file path: this project's module resolution does not read package subpath exports.
import type * as NodeFSModule from '@electric-sql/pglite/dist/fs/nodefs';

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
let nodefs: typeof NodeFSModule | undefined;

function pgliteModule(): typeof PGliteModule {
  // WASM code stays in V8's baseline tier (Liftoff): the optimising tier's compile of the
  // engine leaves ~100 MiB resident for no measurable gain in store throughput. The flag is
  // read when a module is compiled, so it is set before PGlite compiles its own.
  if (!pglite) setFlagsFromString('--liftoff-only');
  pglite ??= nativeRequire()('@electric-sql/pglite') as typeof PGliteModule;
  return pglite;
}

function nodefsModule(): typeof NodeFSModule {
  nodefs ??= nativeRequire()('@electric-sql/pglite/nodefs') as typeof NodeFSModule;
  return nodefs;
}

/** The parts of Emscripten's NODEFS (PGlite's Node file system) that syncing needs. */
interface EmscriptenNodeFS {
  realPath(node: unknown): string;
  stream_ops: { fsync?: (stream: { nfd?: number; node: unknown }) => number };
}

/**
 * PGlite's NodeFS, with fsync. PostgreSQL makes a commit durable by fsyncing its WAL (and
 * data files at checkpoints), but Emscripten's NODEFS has no fsync operation, so the call
 * reports success without reaching the disk. This adds it: PostgreSQL's fsync of a file or
 * directory becomes an fsync of the host's. (fdatasync stays a no-op in PGlite's build,
 * hence wal_sync_method=fsync.)
 */
function durableNodeFS(dir: string, onFsync?: PGliteHooks['onFsync']): InstanceType<typeof NodeFSModule.NodeFS> {
  class DurableNodeFS extends nodefsModule().NodeFS {
    async init(...args: Parameters<NodeFSModule.NodeFS['init']>) {
      const result = await super.init(...args);
      const preRun = result.emscriptenOpts.preRun ?? [];
      const addFsync = (mod: { NODEFS?: EmscriptenNodeFS }) => {
        const fs = mod.NODEFS;
        if (!fs?.stream_ops) throw new Error('this PGlite build has no NODEFS to sync; start with --embedded-fsync=false');
        fs.stream_ops.fsync ??= (stream) => {
          const path = fs.realPath(stream.node);
          const started = performance.now();
          // Directories have no host descriptor in NODEFS: open the host directory to sync it.
          if (stream.nfd !== undefined) fsyncSync(stream.nfd);
          else syncPath(path);
          onFsync?.(path.includes(`${sep}pg_wal${sep}`) ? 'wal' : 'data', (performance.now() - started) / 1000);
          return 0;
        };
      };
      result.emscriptenOpts.preRun = [...(Array.isArray(preRun) ? preRun : [preRun]), addFsync];
      return result;
    }
  }
  return new DurableNodeFS(dir);
}

/** fsyncs a host file or directory by path. */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const OID = { int8: 20, numeric: 1700, json: 114, jsonb: 3802 } as const;
const parseJson = (text: string): unknown => JSON.parse(text);
const asText = (text: string): string => text;

export interface PGliteSettings {
  /**
   * Sync every commit to disk, as PostgreSQL does by default (PGlite's own default is
   * fsync=off: a commit survives a crash of the process but not of the machine).
   */
  durable: boolean;
  /** PostgreSQL's shared_buffers in bytes (PGlite's default, 128MB, is all resident from the start). */
  sharedBuffersBytes?: number;
}

/** The embedded server's shared_buffers unless told otherwise: enough for this store's working set. */
export const DEFAULT_SHARED_BUFFERS_BYTES = 16 * 1024 * 1024;

export interface PGliteHooks {
  /** Told how long each synchronous call into the engine took (an fsync included), in seconds. */
  onEngineCall?(seconds: number): void;
  /** Told of each fsync of a durable engine: of the write-ahead log or of another file or directory, and how long it took. */
  onFsync?(file: 'wal' | 'data', seconds: number): void;
  /** json and jsonb values as their text (for a caller in another thread), parsed otherwise. */
  jsonAsText?: boolean;
  /**
   * Told each line PostgreSQL logs (its warnings and worse), as it logs it: the one way to hear
   * of a PANIC, after which PGlite's call never returns.
   */
  onServerLog?(line: string): void;
}

/**
 * Starts PGlite in `dir` (in memory without one), in this thread.
 *
 * Values come back as `pg` returns them: int8 and numeric as strings. json/jsonb are
 * parsed here, in the caller's realm, so objects behave normally under a sandbox.
 */
export async function startPGlite(dir: string | undefined, settings: PGliteSettings, hooks: PGliteHooks = {}): Promise<PGlite> {
  const { PGlite } = pgliteModule();
  const json = hooks.jsonAsText ? asText : parseJson;
  const durable = settings.durable && dir !== undefined;
  // A new directory is made by initdb in a worker thread that then ends: initdb's own WASM
  // instance and its copy of the engine's heap (together ~250 MiB here) would otherwise stay
  // in this process until a major GC that an idle server may never run.
  if (dir !== undefined && !existsSync(join(dir, 'PG_VERSION'))) await initdbInWorker(dir);
  const db = new PGlite({
    ...(durable ? { fs: durableNodeFS(dir, hooks.onFsync) } : { dataDir: dir }),
    startParams: startParams(PGlite.defaultStartParams, durable, settings.sharedBuffersBytes ?? DEFAULT_SHARED_BUFFERS_BYTES),
    parsers: { [OID.int8]: asText, [OID.numeric]: asText, [OID.json]: json, [OID.jsonb]: json },
    // false: PGlite prints nothing more of it (it prints only when debugging).
    ...(hooks.onServerLog ? { onStderr: (line: string) => (hooks.onServerLog!(line), false) } : {}),
  });
  await db.waitReady;
  if (hooks.onEngineCall) timeEngineCalls(db, hooks.onEngineCall);
  return db;
}

/**
 * Every statement (and the commit's fsync) runs synchronously in PGlite's WASM engine: each
 * call's duration is reported, so long ones are visible on /metrics.
 */
function timeEngineCalls(db: PGlite, onEngineCall: (seconds: number) => void): void {
  const engine = db as unknown as { execProtocolRawSync?(message: Uint8Array): Uint8Array };
  if (typeof engine.execProtocolRawSync !== 'function') return; // another PGlite version: not timed
  const call = engine.execProtocolRawSync.bind(db);
  engine.execProtocolRawSync = (message) => {
    const started = performance.now();
    try {
      return call(message);
    } finally {
      onEngineCall((performance.now() - started) / 1000);
    }
  };
}

/**
 * PGlite's start parameters for an embedded server: a small shared_buffers and, when durable,
 * without `-F` (fsync off), syncing the WAL by fsync, which NODEFS now has.
 */
function startParams(defaults: readonly string[], durable: boolean, sharedBuffersBytes: number): string[] {
  const params = durable ? [...defaults.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'] : [...defaults];
  return [
    ...params,
    '-c',
    `shared_buffers=${Math.floor(sharedBuffersBytes / 1024)}kB`,
    // The engine's memory never shrinks, and the store vacuums and analyzes after compactions
    // (src/storage/mvcc/mvcc-store.ts): an ANALYZE holds 300 x this many sample rows (30,000 at the default of
    // 100: ~30 MiB of objects), a VACUUM up to maintenance_work_mem (64MB by default).
    '-c',
    'default_statistics_target=10',
    '-c',
    'maintenance_work_mem=8MB',
  ];
}

/** Runs PGlite's initdb in `dir` in a worker thread, so that all it allocated ends with the thread. */
function initdbInWorker(dir: string): Promise<void> {
  const source = `
    const { workerData } = require('node:worker_threads');
    const { PGlite } = require(workerData.pglite);
    (async () => {
      const db = new PGlite({ dataDir: workerData.dir });
      await db.waitReady;
      await db.close();
    })().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
  `;
  const worker = new Worker(source, { eval: true, workerData: { dir, pglite: nativeRequire().resolve('@electric-sql/pglite') }, stderr: true });
  let stderr = '';
  worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initdb of the embedded store in ${dir} failed (exit ${code}): ${stderr.trim()}`))));
  });
}

/** The size of the engine's WebAssembly memory, and how much of it is resident (where that can be read). */
export interface EngineMemory {
  bytes: number;
  residentBytes?: number;
}

/** The parts of PGlite's Emscripten module that measuring its memory needs. */
interface EmscriptenHeap {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
}

const PAGE_BYTES = 4096;

/**
 * Measures PGlite's WebAssembly memory. It never shrinks, and its pages once touched stay
 * resident: what a large input made the engine allocate stays in the process after it is freed.
 * Its size alone says little (it starts at 128 MiB, of which a fresh engine touches a third), so
 * its resident pages are counted from /proc/self/pagemap (Linux), over the range where V8 mapped
 * it. That address is found once: among the process's writable mappings, the one whose bytes
 * at a fresh allocation's offset are the random ones just written there (several engines may
 * share a process, as in tests).
 */
export class EngineMemoryGauge {
  private base: number | null | undefined;

  constructor(private readonly db: PGlite) {}

  measure(): EngineMemory {
    const heap = this.heap();
    const bytes = heap.HEAPU8.buffer.byteLength;
    if (this.base === undefined) this.base = this.findBase(heap);
    return this.base === null ? { bytes } : { bytes, residentBytes: residentBytes(this.base, bytes) };
  }

  private heap(): EmscriptenHeap {
    return (this.db as unknown as { Module: EmscriptenHeap }).Module;
  }

  /** Where the memory starts in this process's address space; null when it cannot be read. */
  private findBase(heap: EmscriptenHeap): number | null {
    let maps: string;
    let mem: number;
    try {
      maps = readFileSync('/proc/self/maps', 'utf8');
      mem = openSync('/proc/self/mem', 'r');
    } catch {
      return null;
    }
    const marker = randomBytes(32);
    const at = heap._malloc(marker.length);
    try {
      heap.HEAPU8.set(marker, at);
      const bytes = heap.HEAPU8.buffer.byteLength;
      const seen = Buffer.alloc(marker.length);
      for (const line of maps.split('\n')) {
        const mapping = /^([0-9a-f]+)-([0-9a-f]+) rw-p /.exec(line);
        if (!mapping) continue;
        const start = parseInt(mapping[1], 16);
        const end = parseInt(mapping[2], 16);
        if (end - start < bytes) continue;
        // V8 maps it at the start of its reservation, the rest of which is inaccessible: it ends
        // where the writable mapping ends, unless the kernel merged it with a neighbour before it.
        for (const base of new Set([start, end - bytes])) {
          try {
            if (readSync(mem, seen, 0, seen.length, base + at) === seen.length && seen.equals(marker)) return base;
          } catch {
            // unreadable there: not it
          }
        }
      }
      return null;
    } finally {
      heap._free(at);
      closeSync(mem);
    }
  }
}

/** How many bytes of [base, base + bytes) are in memory or swapped out, from /proc/self/pagemap. */
function residentBytes(base: number, bytes: number): number | undefined {
  let fd: number;
  try {
    fd = openSync('/proc/self/pagemap', 'r');
  } catch {
    return undefined;
  }
  try {
    const pages = Math.ceil(bytes / PAGE_BYTES);
    const entries = Buffer.alloc(pages * 8);
    if (readSync(fd, entries, 0, entries.length, (base / PAGE_BYTES) * 8) !== entries.length) return undefined;
    let resident = 0;
    // Bit 63: present in memory; bit 62: swapped out. Both count: a swapped page is the engine's still.
    for (let i = 0; i < pages; i++) if (entries[i * 8 + 7] & 0xc0) resident++;
    return resident * PAGE_BYTES;
  } finally {
    closeSync(fd);
  }
}
