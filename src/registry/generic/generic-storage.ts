import { apiVersionOf, ResourceType, StrategyContext } from '../../runtime/schema/resource-type';
import { errors, StatusError, successStatus } from '../../apimachinery/errors';
import { FieldError, fieldErrors } from '../../apimachinery/field-errors';
import { isPlainObject, KubeList, KubeObject } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta';
import { objectKey } from '../../apimachinery/store-key';
import { isStorableKeyPart, KeyExistsError, KeyNotFoundError, ObjectKey, ObjectStore, StaleRevisionError, StoredObject, WriteContext } from '../../storage/mvcc/object-store';
import { ChangeFeedService } from '../../storage/changefeed/change-feed.service';
import { WatchStream } from '../rest/watch';
import { WatchServer } from './watch-server';
import { awaitRevision } from './revision-wait';
import { everything, GetOptions, ListOptions, WatchOptions } from '../options/read-options';
import { ContinueTokens } from './continue-token';
import { ListPager } from './list-pager';
import { AdmissionChain, AdmissionRequest } from '../rest/admission';
import { isApplyPatch, nonApplyPatchType } from '../../runtime/patch/patch-types';
import {
  applyOffLoop,
  copyOfLargeObject,
  decodeApplyConfigurationOffLoop,
  isLargeObject,
  jsonEqualInSlices,
  looksLarge,
  OffLoopPatch,
  stringifyInSlices,
  updateManagedFieldsOffLoop,
  yieldToEventLoop,
} from '../../runtime/offload/offload';
import { ApplyConflicts } from '../../runtime/apply/conflicts';
import { FieldManager, keepTimestampsOfNoopWrite } from '../../runtime/apply/field-manager';
import { managerOrUserAgent } from '../../runtime/apply/manager-name';
import { DEFAULT_FIELD_VALIDATION } from '../../runtime/schema/field-validation';
import { DeleteOptions, DeleteResult, Reader, ResourceStorage, Target, WriteOptions, WriteResult } from '../rest/storage';
import { deepClone, fillCreateMetadata, generatedName, jsonEqual, nowTimestamp, pinUpdateMetadata } from '../../apimachinery/system-metadata';

/** How often a generateName collision or an unconditional write's conflict is retried. */
const MAX_RETRIES = 8;

/**
 * Asks whether the caller of a write that would create an object may create it; throws
 * kube's 403 when not. The generic storage calls it when a PUT or an apply (authorized as
 * `update` or `patch`) finds no object and creates one, as kube wraps the create
 * validation of those requests in a `create` authorization check.
 */
export type CreatePermissionCheck = (target: Target, user: UserInfo) => Promise<void>;

/** What the generic storage needs besides the store: the change feed and continue tokens. */
export interface GenericStorageDeps {
  feed: ChangeFeedService;
  continueTokens: Pick<ContinueTokens, 'encode' | 'decode'>;
  bookmarkIntervalMs: number;
  /** Asked before a PUT or an apply creates a missing object: the caller needs `create` too. */
  authorizeCreate?: CreatePermissionCheck;
}

/**
 * A name or namespace the store cannot hold (a NUL character, which kube's etcd keys allow
 * and PostgreSQL text does not) is invalid, unless that field is refused already.
 */
/** The write's author, kept with its row in the log (access history names who made each change). */
function writeContext(opts: { user: UserInfo }): WriteContext {
  const { username, groups } = opts.user;
  return { author: groups.length ? { username, groups: [...groups] } : { username } };
}

function withKeyErrors(obj: KubeObject, errs: FieldError[]): FieldError[] {
  for (const field of ['name', 'namespace'] as const) {
    const value = obj.metadata[field];
    const path = `metadata.${field}`;
    if (typeof value !== 'string' || isStorableKeyPart(value) || errs.some((e) => e.field === path)) continue;
    errs.push(fieldErrors.invalid(path, value, 'may not contain a NUL character'));
  }
  return errs;
}

/**
 * The one storage every kind uses, like kube's generic registry Store: it never names a
 * kind; the kind's strategy supplies preparation and validation, admission plugins the
 * cross-cutting checks, and a wrapper (e.g. RBAC's escalation check) its own check through
 * the write's `validate`. Lists are paged by the ListPager and watches served by the
 * WatchServer; every write goes through here, in kube's hook order
 * (BeforeCreate/BeforeUpdate): system metadata, namespace checks, prepare, validate,
 * admission, the write's own validation, then the store.
 */
export class GenericStorage implements Required<ResourceStorage> {
  private readonly pager: ListPager;
  private readonly watchServer: WatchServer;

  constructor(
    private readonly type: ResourceType,
    private readonly store: ObjectStore,
    private readonly admission: AdmissionChain,
    private readonly deps: GenericStorageDeps,
  ) {
    this.pager = new ListPager(type, { store, feed: deps.feed, continueTokens: deps.continueTokens });
    this.watchServer = new WatchServer(type, { store, feed: deps.feed, bookmarkIntervalMs: deps.bookmarkIntervalMs });
  }

  private fieldManagerOfKind?: FieldManager;

  /** Keeps managedFields on every write and merges applied configurations. */
  private get fields(): FieldManager {
    return (this.fieldManagerOfKind ??= new FieldManager({ apiVersion: apiVersionOf(this.type), schema: this.type.schema }));
  }

  /** The manager a write is recorded under: `fieldManager`, else the User-Agent's prefix. */
  private managerOf(opts: WriteOptions): string {
    return managerOrUserAgent(opts.fieldManager, opts.userAgent);
  }

  // ---- reads -------------------------------------------------------------------------

  async get(target: Target, opts?: GetOptions & Partial<Reader>): Promise<KubeObject> {
    // get: unset = most recent, 0 = any, N = not older than N (wait briefly for it, else 504).
    const sem = opts?.resourceVersion;
    if (sem?.kind === 'NotOlderThan') await awaitRevision(this.deps.feed, this.store, sem.revision);
    const notOlderThan = sem?.kind === 'NotOlderThan' ? sem.revision : sem?.kind === 'Any' ? '0' : undefined;
    const stored = await this.store.get(this.key(target), undefined, { notOlderThan });
    if (!stored) throw errors.notFound(target.groupResource, target.name);
    return this.present(stored.object);
  }

  async list(target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    return this.pager.list(target.namespace, opts);
  }

  async watch(target: Target, opts: WatchOptions & Reader, open: () => WatchStream): Promise<void> {
    return this.watchServer.serve(target.namespace, opts, open);
  }

  // ---- create ------------------------------------------------------------------------

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const obj = this.decodeObject(body, target);
    this.checkBodyNamespace(obj, target);
    // A large body's managed fields are computed on a codec thread (seconds' worth for 60,000 keys).
    await updateManagedFieldsOffLoop(this.fields, this.type, { live: null, next: obj, source: body, manager: this.managerOf(opts) });
    return this.createObject(target, obj, opts, false, isLargeObject(body));
  }

  /**
   * `viaUpdate`: a PUT or apply found no object; kube then also requires `create` permission.
   * `large`: the object came from a large body; its validation and its write take turns of their own.
   */
  private async createObject(target: Target, obj: KubeObject, opts: WriteOptions, viaUpdate = false, large = false): Promise<WriteResult> {
    // Each stage of a write of a large object takes its own turn of the event loop.
    await yieldToEventLoop();
    const ctx = this.context(target, opts);
    fillCreateMetadata(obj);
    const wantsGeneratedName = !obj.metadata.name && !!obj.metadata.generateName;
    if (wantsGeneratedName) obj.metadata.name = generatedName(obj.metadata.generateName!);
    this.type.strategy.prepareForCreate?.(obj, ctx);
    this.throwIfInvalid(
      obj,
      withKeyErrors(obj, [
        ...validateObjectMeta(obj.metadata, { namespaced: this.type.namespaced, nameValidator: this.type.nameValidator }),
        ...this.type.strategy.validate(obj, ctx),
      ]),
    );
    if (large) await yieldToEventLoop();
    const named: Target = { ...target, name: obj.metadata.name! };
    if (viaUpdate) await this.deps.authorizeCreate?.(named, opts.user);
    await this.admit({ operation: 'CREATE', target: named, object: obj, options: opts, pathName: target.name });
    // The object is encoded for the store a slice at a time: a turn of its own too.
    if (large) await yieldToEventLoop();
    if (opts.dryRun) {
      if (!wantsGeneratedName && (await this.store.get(this.key(named)))) {
        throw errors.alreadyExists(target.groupResource, named.name);
      }
      return { object: this.present(obj), created: true };
    }
    for (let attempt = 0; ; attempt++) {
      // Past the request's deadline nothing is written (its client was told 504).
      opts.deadline?.check();
      try {
        const json = large ? await stringifyInSlices(obj) : undefined;
        const stored = await this.store.create(this.key({ ...target, name: obj.metadata.name! }), obj, { ...writeContext(opts), json });
        this.notifyWritten(stored.revision);
        return { object: this.present(stored.object), created: true };
      } catch (err) {
        if (!(err instanceof KeyExistsError)) throw err;
        // A generated name that collides is drawn again, as kube's generateName does.
        if (!wantsGeneratedName || attempt >= MAX_RETRIES) throw errors.alreadyExists(target.groupResource, obj.metadata.name!);
        obj.metadata.name = generatedName(obj.metadata.generateName!);
      }
    }
  }

  // ---- update and patch ----------------------------------------------------------------

  async update(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const obj = this.decodeObject(body, target);
    this.checkBodyNamespace(obj, target);
    if (obj.metadata.name !== undefined && obj.metadata.name !== target.name) {
      throw errors.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${target.name})`);
    }
    obj.metadata.name = target.name;
    const requested = obj.metadata.resourceVersion;
    if (!requested && !this.type.strategy.allowUnconditionalUpdate) {
      throw errors.invalid(this.type.kind, this.type.group, target.name, [
        fieldErrors.invalid('metadata.resourceVersion', 0, 'must be specified for an update'),
      ]);
    }
    const large = isLargeObject(body);
    // Each attempt writes a copy of its own; a large one is built again a slice at a time.
    const template = large ? { apiVersion: obj.apiVersion, kind: obj.kind, metadata: deepClone(obj.metadata) } : undefined;
    return this.guaranteedUpdate(target, opts, !requested && opts.ifMatch === undefined, async (current) => {
      if (!current && !this.type.strategy.allowCreateOnUpdate) throw errors.notFound(target.groupResource, target.name);
      const next = template ? await copyOfLargeObject(body, template) : deepClone(obj);
      await updateManagedFieldsOffLoop(this.fields, this.type, { live: current?.object ?? null, next, source: body, manager: this.managerOf(opts) });
      return current ? { update: next, large: large || looksLarge(current.object) } : { create: next, large };
    });
  }

  async patch(target: Target, patch: { contentType: string; body: Buffer }, opts: WriteOptions): Promise<WriteResult> {
    if (isApplyPatch(patch.contentType)) return this.apply(target, patch.body, opts);
    // The patch type and document are checked before the object is read (415 and 400 first).
    const parsed = await OffLoopPatch.read(nonApplyPatchType(patch.contentType), patch.body);
    return this.guaranteedUpdate(target, opts, opts.ifMatch === undefined, async (current) => {
      if (!current) throw errors.notFound(target.groupResource, target.name);
      // A large patch, or any to a large object, goes to codec threads with the object's JSON, made once for both.
      const large = parsed.large || looksLarge(current.object);
      const liveJson = large ? await stringifyInSlices(current.object) : undefined;
      const patched = await parsed.applyTo(this.type, current.object as Record<string, unknown>, opts.fieldValidation ?? DEFAULT_FIELD_VALIDATION, liveJson);
      for (const warning of patched.warnings) opts.warn?.(warning);
      const obj = this.decodeObject(patched.object, target);
      await updateManagedFieldsOffLoop(this.fields, this.type, { live: current.object, liveJson, next: obj, source: patched.object, manager: this.managerOf(opts) });
      // A resourceVersion written by the patch is a precondition; otherwise the read one is.
      if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.revision;
      return { update: obj, large };
    });
  }

  /**
   * Server-side apply: the configuration is merged into the object by the kind's schema
   * and its managed fields, or creates the object when there is none (kube's applyPatcher).
   */
  private async apply(target: Target, body: Buffer, opts: WriteOptions): Promise<WriteResult> {
    const config = await decodeApplyConfigurationOffLoop(body, this.type, target, opts.fieldValidation);
    const { warnings } = config;
    // A large configuration is applied on a codec thread.
    const large = 'chunks' in config;
    let warned = false;
    return this.guaranteedUpdate(target, opts, opts.ifMatch === undefined, async (current) => {
      let applied: KubeObject;
      try {
        applied = await applyOffLoop(this.fields, this.type, { live: current?.object ?? null, config, manager: opts.fieldManager ?? '', force: opts.force === true });
      } catch (err) {
        throw err instanceof ApplyConflicts ? err.toStatusError() : err;
      }
      // As kube, unknown and duplicate fields are reported once the apply itself succeeded.
      if (!warned) for (const warning of warnings) opts.warn?.(warning);
      warned = true;
      const obj = this.decodeObject(applied, target);
      if (!current && obj.metadata.uid) {
        throw errors.conflict(
          target.groupResource,
          target.name,
          `uid mismatch: the provided object specified uid ${obj.metadata.uid}, and no existing object was found`,
        );
      }
      this.checkBodyNamespace(obj, target);
      if (obj.metadata.name !== target.name) {
        throw errors.badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${target.name})`);
      }
      if (!current) return { create: obj, large };
      // A resourceVersion in the configuration is a precondition; otherwise the read one is.
      if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.revision;
      return { update: obj, large: large || isLargeObject(applied) };
    });
  }

  /**
   * Read, transform, write with the read revision as precondition. When the client named
   * no revision, a conflict means someone else wrote in between: read again and retry.
   */
  private async guaranteedUpdate(
    target: Target,
    opts: WriteOptions,
    retryOnConflict: boolean,
    transform: (current: StoredObject | null) => Promise<{ create?: KubeObject; update?: KubeObject; large?: boolean }>,
  ): Promise<WriteResult> {
    const key = this.key(target);
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(key);
      if (opts.ifMatch !== undefined && current && current.revision !== opts.ifMatch) {
        throw errors.staleResourceVersion(target.groupResource, target.name);
      }
      const next = await transform(current);
      if (next.create) {
        try {
          return await this.createObject(target, next.create, opts, true, next.large);
        } catch (err) {
          if (err instanceof StatusError && err.reason === 'AlreadyExists' && attempt < MAX_RETRIES) continue;
          throw err;
        }
      }
      const obj = next.update!;
      const old = current!;
      const expected = obj.metadata.resourceVersion || old.revision;
      if (expected !== old.revision) throw errors.staleResourceVersion(target.groupResource, target.name);
      try {
        return await this.updateObject(target, obj, old, opts, next.large);
      } catch (err) {
        if (err instanceof StaleRevisionError) {
          if (retryOnConflict && attempt < MAX_RETRIES) continue;
          throw errors.staleResourceVersion(target.groupResource, target.name);
        }
        if (err instanceof KeyNotFoundError) {
          if (attempt < MAX_RETRIES) continue;
          throw errors.notFound(target.groupResource, target.name);
        }
        throw err;
      }
    }
  }

  /** `large`: the object came from a large body; its validation and its write take turns of their own. */
  private async updateObject(target: Target, obj: KubeObject, old: StoredObject, opts: WriteOptions, large = false): Promise<WriteResult> {
    // Each stage of a write of a large object takes its own turn of the event loop.
    await yieldToEventLoop();
    const ctx = this.context(target, opts);
    if (obj.metadata.uid && obj.metadata.uid !== old.object.metadata.uid) {
      throw errors.conflict(
        target.groupResource,
        target.name,
        `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${old.object.metadata.uid}`,
      );
    }
    pinUpdateMetadata(obj, old.object);
    this.type.strategy.prepareForUpdate?.(obj, old.object, ctx);
    this.throwIfInvalid(obj, [
      ...validateObjectMetaUpdate(obj.metadata, old.object.metadata),
      ...validateObjectMeta(obj.metadata, { namespaced: this.type.namespaced, nameValidator: this.type.nameValidator }),
      ...this.type.strategy.validateUpdate(obj, old.object, ctx),
    ]);
    if (large) await yieldToEventLoop();
    await this.admit({ operation: 'UPDATE', target, object: obj, old: old.object, options: opts });
    // The comparison with the stored object and the store's stringify: a turn of their own too.
    if (large) await yieldToEventLoop();
    obj.metadata.resourceVersion = old.revision;
    keepTimestampsOfNoopWrite(obj, old.object);
    // An update that changes nothing is not written (no new revision), as in kube.
    if (large ? await jsonEqualInSlices(obj, old.object) : jsonEqual(obj, old.object)) return { object: this.present(old.object), created: false };
    if (opts.dryRun) return { object: this.present(obj), created: false };
    opts.deadline?.check();
    if (this.shouldDeleteDuringUpdate(obj)) {
      // The last finalizer is gone from an object being deleted: it is removed now.
      const deleted = await this.store.delete(this.key(target), { revision: old.revision, previous: old.object }, writeContext(opts));
      this.notifyWritten(deleted.revision);
      return { object: this.present({ ...obj, metadata: { ...obj.metadata, resourceVersion: deleted.revision } }), created: false };
    }
    const json = large ? await stringifyInSlices(obj) : undefined;
    const stored = await this.store.update(this.key(target), obj, { revision: old.revision, previous: old.object }, { ...writeContext(opts), json });
    this.notifyWritten(stored.revision);
    return { object: this.present(stored.object), created: false };
  }

  // ---- delete --------------------------------------------------------------------------

  async delete(target: Target, opts: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(target);
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(key);
      if (!current) throw errors.notFound(target.groupResource, target.name);
      this.checkDeletePreconditions(target, current, opts);
      await this.admission.admit({ operation: 'DELETE', target, object: current.object, options: opts });
      if (opts.dryRun && !current.object.metadata.finalizers?.length) return this.deleteResult(target, current.object);
      opts.deadline?.check();
      try {
        if (current.object.metadata.finalizers?.length) return await this.markDeleting(target, current, opts);
        const deleted = await this.store.delete(key, { revision: current.revision, previous: current.object }, writeContext(opts));
        this.notifyWritten(deleted.revision);
        return this.deleteResult(target, deleted.object);
      } catch (err) {
        if (err instanceof StaleRevisionError && attempt < MAX_RETRIES) continue;
        if (err instanceof KeyNotFoundError) throw errors.notFound(target.groupResource, target.name);
        throw err;
      }
    }
  }

  /**
   * An object with finalizers is not removed: deletion is requested (deletionTimestamp set,
   * a MODIFIED event) and the object goes when an update removes its last finalizer.
   */
  private async markDeleting(target: Target, current: StoredObject, opts: DeleteOptions): Promise<DeleteResult> {
    if (current.object.metadata.deletionTimestamp) return { body: this.present(current.object), code: 200 };
    const obj = deepClone(current.object);
    obj.metadata.deletionTimestamp = nowTimestamp();
    obj.metadata.deletionGracePeriodSeconds = 0;
    if (opts.dryRun) return { body: this.present(obj), code: 200 };
    const stored = await this.store.update(this.key(target), obj, { revision: current.revision, previous: current.object }, writeContext(opts));
    this.notifyWritten(stored.revision);
    return { body: this.present(stored.object), code: 200 };
  }

  async deleteCollection(target: Target, opts: DeleteOptions, listOptions: ListOptions = everything(this.type)): Promise<KubeList> {
    const list = await this.list(target, { ...listOptions, user: opts.user });
    for (const item of list.items) {
      try {
        await this.delete({ ...target, namespace: item.metadata.namespace ?? '', name: item.metadata.name! }, opts);
      } catch (err) {
        // Deleted concurrently: the goal is reached.
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return list;
  }

  private checkDeletePreconditions(target: Target, current: StoredObject, opts: DeleteOptions): void {
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== current.object.metadata.uid) {
      throw errors.conflict(
        target.groupResource,
        target.name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.object.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.revision) {
      throw errors.conflict(
        target.groupResource,
        target.name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.revision}`,
      );
    }
  }

  private deleteResult(target: Target, object: KubeObject): DeleteResult {
    if (this.type.deleteReturnsObject) return { body: this.present(object), code: 200 };
    return {
      body: successStatus({
        name: target.name,
        group: this.type.group || undefined,
        kind: this.type.plural,
        uid: object.metadata.uid,
      }),
      code: 200,
    };
  }

  // ---- helpers -------------------------------------------------------------------------

  /** An update leaving an object being deleted without finalizers removes it (kube's ShouldDeleteDuringUpdate). */
  protected shouldDeleteDuringUpdate(obj: KubeObject): boolean {
    return !!obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length;
  }

  /** Admission of a create or update: the chain's plugins, then the write's own check (a wrapper's). */
  private async admit(request: AdmissionRequest): Promise<void> {
    await this.admission.admit(request);
    await request.options.validate?.(request);
  }

  /** Local writes reach this process's watchers at once; NOTIFY and polling cover the others. */
  protected notifyWritten(revision: string): void {
    this.deps.feed.wrote(revision);
  }

  private key(target: Target): ObjectKey {
    return objectKey(this.type, target.namespace, target.name);
  }

  private context(target: Target, opts: WriteOptions): StrategyContext {
    return { user: opts.user, namespace: target.namespace, dryRun: opts.dryRun };
  }

  /** Checks apiVersion/kind of a body and gives it the kind's TypeMeta and a metadata object. */
  private decodeObject(body: Record<string, unknown>, target: Target): KubeObject {
    const apiVersion = apiVersionOf(this.type);
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw errors.badRequest(
        `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (body.kind !== undefined && body.kind !== this.type.kind) {
      throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${this.type.kind})`);
    }
    if (body.metadata !== undefined && !isPlainObject(body.metadata)) {
      throw errors.badRequest('metadata must be an object');
    }
    // The body is this write's own (decoded for it, or patched or applied for it): only what
    // is set here is copied (a deep copy of a large object held the event loop for 100 ms).
    const obj = { ...body } as KubeObject;
    obj.apiVersion = apiVersion;
    obj.kind = this.type.kind;
    obj.metadata = { ...((obj.metadata ?? {}) as KubeObject['metadata']) };
    if (!this.type.namespaced) delete obj.metadata.namespace;
    else if (!obj.metadata.namespace && target.namespace) obj.metadata.namespace = target.namespace;
    return obj;
  }

  /** kube: the namespace in the body must match the one in the path. */
  private checkBodyNamespace(obj: KubeObject, target: Target): void {
    if (this.type.namespaced && obj.metadata.namespace !== target.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  private throwIfInvalid(obj: KubeObject, errs: FieldError[]): void {
    if (errs.length) throw errors.invalid(this.type.kind, this.type.group, obj.metadata.name ?? obj.metadata.generateName ?? '', errs);
  }

  /** A stored object as returned to clients: with its TypeMeta. */
  private present(obj: KubeObject): KubeObject {
    return { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...obj };
  }
}
