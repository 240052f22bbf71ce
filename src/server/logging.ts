import { LoggerService, LogLevel } from '@nestjs/common';
import type { LoggingFormat } from '../config/options';

/** Key/value pairs of a structured line (klog's `InfoS`). */
export type LogFields = Record<string, string | number | boolean | undefined>;

type Severity = 'I' | 'W' | 'E' | 'F';

/** Nest's own start-up chatter (modules loaded, routes mapped): kube has none of it, so only at high verbosity. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);
const FRAMEWORK_VERBOSITY = 5;
/** Nest's `debug` and `verbose` levels as klog verbosities. */
const DEBUG_VERBOSITY = 2;
const VERBOSE_VERBOSITY = 4;

/** The log is blocked when its stream has refused writes for this long (the `log` health check). */
const BLOCKED_AFTER_MS = 5000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A Go-syntax quoted string, as klog quotes values. */
function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * The server's log, as kube-apiserver writes it to stderr: klog's text lines
 * (`I1124 05:36:16.123456   12345 context] message key="value"`) or, with
 * `--logging-format=json`, one JSON object per line (`ts`, `caller`, `msg`, `v`, fields).
 * `-v` selects what is written: errors, warnings and verbosity 0 always (start-up,
 * controllers, reloads); verbosity 2 adds one line per request (httplog). Nest's loggers
 * end up here: `log` is verbosity 0, `debug` 2, `verbose` 4.
 */
export class KubeLogger implements LoggerService {
  private blockedSince: number | null = null;

  constructor(
    private readonly verbosity: number,
    private readonly format: LoggingFormat,
    private readonly out: NodeJS.WritableStream = process.stderr,
    /** Tests narrow the levels written (errors only, say). */
    private readonly levels?: LogLevel[],
  ) {
    out.on?.('drain', () => (this.blockedSince = null));
  }

  /** Whether lines of verbosity `v` are written (klog's `V(v).Enabled()`). */
  enabled(v: number): boolean {
    return this.verbosity >= v;
  }

  /** Fails when writes to the log have been held back for a while (kube's `log` check). */
  check(): void {
    if (this.blockedSince !== null && Date.now() - this.blockedSince > BLOCKED_AFTER_MS) throw new Error('logging blocked');
  }

  /** A structured line at verbosity `v`. */
  info(v: number, context: string, message: string, fields: LogFields = {}): void {
    if (!this.enabled(v) || !this.allowed('log')) return;
    this.write('I', v, context, message, fields);
  }

  log(message: unknown, ...rest: unknown[]): void {
    const context = contextOf(rest);
    const v = FRAMEWORK_CONTEXTS.has(context) ? FRAMEWORK_VERBOSITY : 0;
    if (this.enabled(v) && this.allowed('log')) this.write('I', v, context, text(message));
  }

  debug(message: unknown, ...rest: unknown[]): void {
    if (this.enabled(DEBUG_VERBOSITY) && this.allowed('debug')) this.write('I', DEBUG_VERBOSITY, contextOf(rest), text(message));
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    if (this.enabled(VERBOSE_VERBOSITY) && this.allowed('verbose')) this.write('I', VERBOSE_VERBOSITY, contextOf(rest), text(message));
  }

  warn(message: unknown, ...rest: unknown[]): void {
    if (this.allowed('warn')) this.write('W', 0, contextOf(rest), text(message));
  }

  error(message: unknown, ...rest: unknown[]): void {
    if (!this.allowed('error')) return;
    // Nest passes (message, stack, context); the stack is written only at higher verbosity.
    const context = contextOf(rest);
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    this.write('E', 0, context, text(message) + (stack && this.enabled(DEBUG_VERBOSITY) ? `\n${stack}` : ''));
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    if (this.allowed('fatal')) this.write('F', 0, contextOf(rest), text(message));
  }

  private allowed(level: LogLevel): boolean {
    return !this.levels || this.levels.includes(level);
  }

  private write(severity: Severity, v: number, context: string, message: string, fields: LogFields = {}): void {
    // Microseconds, as klog prints them: the wall clock from the high-resolution one.
    const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    const now = new Date(Math.floor(micros / 1000));
    let line: string;
    if (this.format === 'json') {
      const entry: Record<string, unknown> = { ts: micros / 1e6, caller: context, msg: message };
      if (severity === 'I') entry.v = v;
      else if (severity === 'W') entry.level = 'warning';
      else entry.err = message;
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) entry[key] = value;
      line = JSON.stringify(entry);
    } else {
      const header =
        `${severity}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ` +
        `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(micros % 1_000_000, 6)} ` +
        `${String(process.pid).padStart(7)} ${context}]`;
      const pairs = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${typeof value === 'string' ? quote(value) : String(value)}`);
      line = pairs.length ? `${header} ${quote(message)} ${pairs.join(' ')}` : `${header} ${message}`;
    }
    if (!this.out.write(line + '\n') && this.blockedSince === null) this.blockedSince = Date.now();
  }
}

function contextOf(rest: unknown[]): string {
  const last = rest[rest.length - 1];
  return typeof last === 'string' && last ? last : 'server';
}

function text(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return message.message;
  return JSON.stringify(message);
}

/** A duration as Go prints one (`850µs`, `12.5ms`, `1.2s`), for latency fields. */
export function goDurationText(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 1000) return `${Number(ms.toFixed(3))}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}
