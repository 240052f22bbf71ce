#!/usr/bin/env node
// Removes compiled files whose TypeScript source is gone (moved or deleted): `tsc -b` leaves
// them in dist/, where Node would still load a stale `x.js` before a new `x/index.js`.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const COMPILED = /\.(js|js\.map|d\.ts)$/;

function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    if (!COMPILED.test(entry.name)) continue;
    const source = join(root, relative(dist, path).replace(COMPILED, '.ts'));
    if (!existsSync(source)) rmSync(path);
  }
}

for (const folder of ['src', 'migrations', 'bench']) if (existsSync(join(dist, folder))) prune(join(dist, folder));
