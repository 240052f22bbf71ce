/**
 * The embedded engine's errors as they cross from its thread: `pg`'s fields (SQLSTATE,
 * constraint, ...) copied into plain data there and made an Error once here. No imports, so
 * the engine's thread loads nothing of the server with it.
 */
const PG_ERROR_FIELDS = ['code', 'severity', 'detail', 'hint', 'position', 'schema', 'table', 'column', 'constraint', 'routine'] as const;

export type EngineErrorFields = { message: string } & Partial<Record<(typeof PG_ERROR_FIELDS)[number], string>>;

/** What of an error crosses the thread: its message and the `pg` fields it has. */
export function engineErrorFields(err: unknown): EngineErrorFields {
  if (!err || typeof err !== 'object') return { message: String(err) };
  const source = err as Record<string, unknown>;
  const fields: EngineErrorFields = { message: String(source.message ?? err) };
  for (const name of PG_ERROR_FIELDS) if (typeof source[name] === 'string') fields[name] = source[name] as string;
  return fields;
}

/** A server error with `pg`'s fields (code, detail, constraint, ...), made in the server's thread. */
export class PGliteDatabaseError extends Error {
  code?: string;
  severity?: string;
  detail?: string;
  hint?: string;
  position?: string;
  schema?: string;
  table?: string;
  column?: string;
  constraint?: string;
  routine?: string;

  static from(fields: EngineErrorFields): PGliteDatabaseError {
    const error = new PGliteDatabaseError(fields.message);
    for (const name of PG_ERROR_FIELDS) if (fields[name] !== undefined) error[name] = fields[name];
    return error;
  }
}

/** crash_shutdown: what PostgreSQL tells other sessions when the server crashed. */
const CRASH_SHUTDOWN = '57P02';

/**
 * Whether the engine is gone after this error: a PANIC or FATAL ends PostgreSQL's session,
 * which in PGlite is the whole engine (a PANIC aborts its WebAssembly program: the next
 * statement would never be answered), as does an abort itself ("Aborted()").
 */
export function endsTheEngine(fields: EngineErrorFields): boolean {
  return fields.severity === 'PANIC' || fields.severity === 'FATAL' || /^Aborted\(/.test(fields.message);
}

/**
 * A line of PostgreSQL's log that ends the engine, in its default prefix (`<time> [<pid>]
 * PANIC:  <message>`, or FATAL): anchored there, so a statement quoted in the log matches not.
 */
const ENDING_LOG_LINE = /^[^[]*\[\d+\] (PANIC|FATAL):\s+(.*)$/;

/**
 * The error a line of PostgreSQL's log (or of the WebAssembly runtime) tells of, when it is one
 * that ends the engine. The log carries no SQLSTATE: "No space left on device" is given
 * disk_full's, the code PostgreSQL gives every ENOSPC it reports.
 */
export function engineEndingLogLine(line: string): EngineErrorFields | undefined {
  if (/^Aborted\(/.test(line)) return { message: line, severity: 'PANIC' };
  const logged = ENDING_LOG_LINE.exec(line);
  if (!logged) return undefined;
  const [, severity, message] = logged;
  return { message, severity, ...(/No space left on device/.test(message) ? { code: '53100' } : {}) };
}

/** What every statement is told once the engine ended on `fields`: its cause and its code (crash_shutdown without one). */
export function engineEndedError(fields: EngineErrorFields): PGliteDatabaseError {
  return PGliteDatabaseError.from({ ...fields, message: `the embedded store engine stopped: ${fields.message}`, code: fields.code ?? CRASH_SHUTDOWN });
}
