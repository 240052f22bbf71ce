import { readFileSync } from 'node:fs';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
};

/**
 * A file a flag or a configuration names, read whole. A failure is worded as Go's os.ReadFile
 * words it (`open /etc/x: no such file or directory`), as kube reports it.
 */
export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new Error(`open ${path}: ${REASONS[code] ?? (err as Error).message}`);
  }
}
