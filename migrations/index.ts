import { MvccLog1700000000000 } from './1700000000000-mvcc-log';

/** Every migration, in order; the DataSource takes this list (no glob loading). */
export const ALL_MIGRATIONS = [MvccLog1700000000000];
