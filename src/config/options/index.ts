import { admission } from './admission';
import { apiEnablement } from './api-enablement';
import { audit, AuditOptions } from './audit';
import { authentication } from './authentication';
import { authorization } from './authorization';
import { controllers } from './controllers';
import { features } from './features';
import { defaultsOf, OptionsOf, Simplify, SubsystemOptions, Table } from './flag';
import { logging } from './logging';
import { metrics } from './metrics';
import { secureServing } from './secure-serving';
import { serverRun } from './server-run';
import { storage } from './storage';

export { ADMISSION_PLUGINS } from './admission';
export type { AuditBatchOptions, AuditMode, AuditOptions, AuditTruncateOptions } from './audit';
export type { OidcOptions, RequestHeaderOptions } from './authentication';
export { SUPPORTED_SIGNING_ALGS } from './authentication';
export type { LoggingFormat } from './logging';
export type { ServiceAccountTokenOptions } from './service-accounts';
export { DEFAULT_WATCH_CACHE_SIZE_BYTES } from './storage';

/**
 * The server's options, subsystem by subsystem as kube-apiserver's ServerRunOptions holds
 * them, in the order --help lists their flags. Each declares its flags, defaults and checks
 * (the files beside this one); the command line is read in src/config/flags, and what the
 * flags name (files, addresses) when the configuration is loaded (src/server/configuration.ts).
 */
export const SUBSYSTEMS = [secureServing, storage, authentication, controllers, authorization, admission, audit, features, apiEnablement, metrics, serverRun, logging] as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type OptionsOfEach<S> = S extends SubsystemOptions<infer T> ? OptionsOf<T> : never;

/** Every subsystem's options in one object (names follow kube-apiserver's flags); frozen once loaded. */
export type ServerOptions = Simplify<UnionToIntersection<OptionsOfEach<(typeof SUBSYSTEMS)[number]>>>;

/** The `--audit-*` defaults. */
export function defaultAuditOptions(): AuditOptions {
  return defaultsOf(audit.flags).audit;
}

/** Freezes the options and everything in them: nothing changes them once they are loaded. */
export function frozenOptions<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const inner of Object.values(value)) frozenOptions(inner);
  }
  return value;
}

/** The subsystems' options (in SUBSYSTEMS' order) as one object. */
export function serverOptionsOf(parts: ReadonlyArray<Partial<ServerOptions>>): ServerOptions {
  return parts.reduce<Partial<ServerOptions>>((all, part) => ({ ...all, ...part }), {}) as ServerOptions;
}

/** Every default, as the flags declare them, with `overrides` (tests and benchmarks); frozen. */
export function defaultOptions(overrides: Partial<ServerOptions> = {}): ServerOptions {
  return frozenOptions(serverOptionsOf([...SUBSYSTEMS.map((s: SubsystemOptions<Table>) => defaultsOf(s.flags)), overrides]));
}

export const SERVER_OPTIONS = Symbol('SERVER_OPTIONS');
