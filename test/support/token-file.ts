import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A `--token-auth-file` in `dir` with these lines (`token,user,uid[,"group1,group2"]`); its path. */
export function writeTokenFile(dir: string, lines: string[]): string {
  const path = join(dir, 'tokens.csv');
  writeFileSync(path, [...lines, ''].join('\n'));
  return path;
}
