#!/usr/bin/env node
// Copies the files the server serves as they are (the access explorer's page, scripts and
// styles: plain browser ES modules, no build step) beside the compiled code, where the server
// looks for them. Run after prune-stale-build, which would take them for stale output.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
for (const folder of ['src/access-explorer/assets']) {
  rmSync(join(root, 'dist', folder), { recursive: true, force: true });
  cpSync(join(root, folder), join(root, 'dist', folder), { recursive: true });
}
