import { UserInfo } from '../../apimachinery/user-info';
import { ResourceType, Verb } from '../../runtime/schema/resource-type';
import { GroupResource, KubeList, KubeObject, Status } from '../../apimachinery/types';
import { WatchStream } from './watch';
import type { FieldValidationDirective } from '../../runtime/schema/field-validation';
import type { DeleteParameters, RequestWriteOptions } from '../options/request-options';
import type { GetOptions, ListOptions, WatchOptions } from '../options/read-options';
import type { AdmissionRequest } from './admission';
import type { RequestDeadline } from './request-deadline';

/** Where a request points: the kind, and the namespace/name from the path. */
export interface Target {
  type: ResourceType;
  groupResource: GroupResource;
  /** '' for cluster-scoped kinds, and for lists across all namespaces. */
  namespace: string;
  name: string;
  /** The apiVersion the path named when it is an alias of the kind's own; bodies then speak it. */
  aliasApiVersion?: string;
}

/** Options every write carries, parsed once from the query and body. */
export interface WriteOptions {
  user: UserInfo;
  dryRun: boolean;
  fieldManager?: string;
  /** The request's User-Agent: non-apply writes without fieldManager are recorded under its prefix. */
  userAgent?: string;
  /** `force=true` on an apply: take fields other managers own instead of failing with a conflict. */
  force?: boolean;
  /** What to do with unknown and duplicate fields in the body (default Warn). */
  fieldValidation?: FieldValidationDirective;
  /** The revision an `If-Match` header names: the write applies only to that version. */
  ifMatch?: string;
  /** Records a response `Warning` at once (kube's warning.AddWarning), so it is sent even if the write then fails. */
  warn?(message: string): void;
  /** Adds an annotation to the request's audit event (kube's audit.AddAuditAnnotation). */
  annotateAudit?(key: string, value: string): void;
  /**
   * A check of the object about to be written, run by the store after the kind's own
   * validation and the admission chain, before the write (kube's createValidation and
   * updateValidation arguments): how a storage wrapper checks every create, update, patch
   * and apply at the same point. Throws a StatusError to refuse.
   */
  validate?(request: AdmissionRequest): Promise<void>;
  /**
   * The request's deadline: once it has passed (the client has its 504), the storage writes
   * nothing more, as kube's storage calls carry the request's context.
   */
  deadline?: RequestDeadline;
  /**
   * When the request arrived (performance.now()): decisions made for it (reviews, escalation
   * checks) reflect every write the store committed before then.
   */
  receivedAt?: number;
}

/** Who reads: the caller of a get, list or watch, besides the typed options of the verb. */
export interface Reader {
  user: UserInfo;
  /** Records a response `Warning` (a read whose answer may be incomplete says so). */
  warn?(message: string): void;
}

/** A delete's options: a write's, and kube's DeleteOptions parameters. */
export type DeleteOptions = WriteOptions & DeleteParameters;

export interface WriteResult {
  object: KubeObject;
  /** True when the write created the object (201), false when it changed one (200). */
  created: boolean;
  /** Warning header texts for the response (fieldValidation=Warn found unknown or duplicate fields). */
  warnings?: string[];
}

export interface DeleteResult {
  /** What the response body is: the object (e.g. a Namespace) or a success Status. */
  body: KubeObject | Status;
  /** 200 when done, 202 when deletion continues in the background. */
  code: 200 | 202;
}

/**
 * The storage of one kind, as kube's rest.Storage: a kind serves exactly the verbs whose
 * methods its storage has. Most kinds use the generic storage; special ones wrap it.
 */
export interface ResourceStorage {
  get?(target: Target, opts: GetOptions & Reader): Promise<KubeObject>;
  list?(target: Target, opts: ListOptions & Reader): Promise<KubeList>;
  /** Checks what it must before streaming (a 504 for a revision not reached), then opens the stream and sends events until it closes. */
  watch?(target: Target, opts: WatchOptions & Reader, open: () => WatchStream): Promise<void>;
  create?(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult>;
  update?(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult>;
  patch?(target: Target, patch: { contentType: string; body: Buffer }, opts: WriteOptions): Promise<WriteResult>;
  delete?(target: Target, opts: DeleteOptions): Promise<DeleteResult>;
  /** Deletes what `list` selects (every object of the target's namespace when absent); answers the list as it was (kube's store). */
  deleteCollection?(target: Target, opts: DeleteOptions, list?: ListOptions): Promise<KubeList>;
}

/** The storage method that serves each verb. */
export const VERB_METHODS: Record<Verb, keyof ResourceStorage> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  create: 'create',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deleteCollection',
};

/** The storage's WriteOptions for a request's parsed options. */
/** What a write carries from its request besides the parsed options. */
export interface WriteScope {
  user: UserInfo;
  warn?: (message: string) => void;
  annotateAudit?: (key: string, value: string) => void;
  userAgent?: string;
  deadline?: RequestDeadline;
  receivedAt?: number;
}

export function writeOptionsFor(parsed: RequestWriteOptions, scope: WriteScope): WriteOptions {
  const opts: WriteOptions = { user: scope.user, dryRun: parsed.dryRun, fieldManager: parsed.fieldManager, ifMatch: parsed.ifMatch, fieldValidation: parsed.fieldValidation };
  if (parsed.force !== undefined) opts.force = parsed.force;
  if (scope.warn) opts.warn = scope.warn;
  if (scope.annotateAudit) opts.annotateAudit = scope.annotateAudit;
  if (scope.userAgent) opts.userAgent = scope.userAgent;
  if (scope.deadline) opts.deadline = scope.deadline;
  if (scope.receivedAt !== undefined) opts.receivedAt = scope.receivedAt;
  return opts;
}

/** The storage's DeleteOptions for a DELETE's parsed options. */
export function deleteOptionsFor(parsed: RequestWriteOptions, scope: WriteScope): DeleteOptions {
  const opts: DeleteOptions = { user: scope.user, dryRun: parsed.dryRun, fieldValidation: parsed.fieldValidation, ...(parsed.delete ?? {}) };
  if (scope.deadline) opts.deadline = scope.deadline;
  if (scope.receivedAt !== undefined) opts.receivedAt = scope.receivedAt;
  return opts;
}
