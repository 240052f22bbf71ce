import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { ResourceLimits, Worker } from 'node:worker_threads';

export interface ModuleThreadOptions {
  /** What the module reads as `workerData` (an object: the loader below adds a key of its own when running from sources). */
  workerData?: object;
  resourceLimits?: ResourceLimits;
}

/** Where modules compiled for threads are kept, by their contents, between runs. */
const COMPILED_DIR = join(tmpdir(), 'platform-authz-module-threads');

/**
 * Runs the module `name` (without its extension) of the folder `dir` in a new worker thread:
 * the built JavaScript beside the caller or, when running from the TypeScript sources (the
 * tests), the sources compiled as the thread loads them. Compiled modules are kept in the
 * temporary directory by their contents, so only the first thread after a change loads the
 * compiler (a third of a second).
 */
export function spawnModuleThread(dir: string, name: string, { workerData, resourceLimits }: ModuleThreadOptions = {}): Worker {
  if (extname(__filename) !== '.ts') return new Worker(join(dir, `${name}.js`), { workerData, resourceLimits });
  const loader = `
    const { workerData, threadId } = require('node:worker_threads');
    const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
    const { createHash } = require('node:crypto');
    const { join } = require('node:path');
    const { typescript, entry, compiledDir } = workerData.moduleThread;
    let ts;
    require.extensions['.ts'] = (module, filename) => {
      const source = readFileSync(filename, 'utf8');
      const compiled = join(compiledDir, createHash('sha256').update(filename).update(source).digest('hex') + '.js');
      let code;
      try {
        code = readFileSync(compiled, 'utf8');
      } catch {
        ts ??= require(typescript);
        const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
        code = ts.transpileModule(source, { fileName: filename, compilerOptions: options }).outputText;
        mkdirSync(compiledDir, { recursive: true });
        writeFileSync(compiled + '.' + process.pid + '.' + threadId, code);
        renameSync(compiled + '.' + process.pid + '.' + threadId, compiled);
      }
      module._compile(code, filename);
    };
    require(entry);
  `;
  const moduleThread = { typescript: require.resolve('typescript'), entry: join(dir, `${name}.ts`), compiledDir: COMPILED_DIR };
  return new Worker(loader, { eval: true, workerData: { ...workerData, moduleThread }, resourceLimits });
}
