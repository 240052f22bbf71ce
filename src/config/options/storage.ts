import { bool, durationSeconds, flag, FlagProblem, int, path, problem, SECTION, setting, subsystem } from './flag';

/** --watch-cache-size-bytes: 64 MiB holds the default 20,000 recent changes of objects of about 1.5 KiB. */
export const DEFAULT_WATCH_CACHE_SIZE_BYTES = 64 * 1024 * 1024;

/**
 * A PostgreSQL memory setting in its own units (`16MB`, `512kB`, `1GB`), here in bytes; at least
 * PostgreSQL's minimum shared_buffers (128kB) and at most 1GB (the embedded engine's memory is 2GB).
 */
function postgresMemory(value: string): number {
  const m = /^(\d+)(kB|MB|GB)$/.exec(value);
  if (!m) throw new Error(`${JSON.stringify(value)} is not a size in kB, MB or GB (e.g. 16MB)`);
  const bytes = Number(m[1]) * { kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[m[2] as 'kB' | 'MB' | 'GB'];
  if (bytes < 128 * 1024 || bytes > 1024 ** 3) throw new Error('must be between 128kB and 1GB, inclusive');
  return bytes;
}

/** kube's EtcdOptions, here the store: the embedded one in the data directory, or PostgreSQL. */
export const storage = subsystem({
  section: SECTION.storage,
  flags: {
    dataDir: flag({ name: 'data-dir', ...path, default: './data', usage: 'Directory of the generated certificates, the admin kubeconfig and the embedded database.' }),
    databaseUrl: flag({
      name: 'database-url',
      ...path,
      env: 'DATABASE_URL',
      usage: 'PostgreSQL URL (postgres://user:password@host:port/database). Defaults to $DATABASE_URL; unset, the embedded store in --data-dir is used.',
    }),
    embeddedFsync: flag({
      name: 'embedded-fsync',
      ...bool,
      default: true,
      usage: 'Whether the embedded store syncs each commit to disk, so that an acknowledged write survives a power loss. false is faster and survives only a crash of the server process.',
    }),
    embeddedSharedBuffersBytes: flag({
      name: 'embedded-shared-buffers',
      type: 'string',
      parse: postgresMemory,
      default: 16 * 1024 * 1024,
      shown: '"16MB"',
      usage: "The embedded store's page cache (PostgreSQL's shared_buffers, e.g. 16MB). All of it is resident from the start; the data directory is read through the host's file cache too.",
    }),
    historyWindowSeconds: flag({ name: 'history-window', ...durationSeconds, default: 300, usage: 'How long superseded object versions are kept for watch and consistent paging.' }),
    watchCacheSizeBytes: flag({
      name: 'watch-cache-size-bytes',
      ...int(0, Number.MAX_SAFE_INTEGER),
      default: DEFAULT_WATCH_CACHE_SIZE_BYTES,
      usage: 'Memory for the recent changes watches replay from (their JSON size); older revisions are read from the store.',
    }),
    watchCache: flag({
      name: 'watch-cache',
      ...bool,
      default: true,
      usage: "Whether gets and lists are served from memory (each resource's cache, kept by the change feed, consistent with the store); false reads the store for each.",
    }),
    /** How often an idle watch with allowWatchBookmarks gets a BOOKMARK (tests shorten it). */
    bookmarkIntervalMs: setting(60_000),
  },
  validate(o, { given }) {
    const problems: FlagProblem[] = [];
    if (o.historyWindowSeconds <= 0) problems.push(problem('--history-window must be positive', 'history-window'));
    if (o.databaseUrl && given('embedded-fsync')) {
      problems.push(problem('--embedded-fsync applies to the embedded store only; with --database-url the PostgreSQL server decides how commits reach its disk', 'embedded-fsync', 'database-url'));
    }
    if (o.databaseUrl && given('embedded-shared-buffers')) {
      problems.push(problem('--embedded-shared-buffers applies to the embedded store only; with --database-url the PostgreSQL server has its own shared_buffers', 'embedded-shared-buffers', 'database-url'));
    }
    return problems;
  },
});
