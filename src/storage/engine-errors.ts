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
