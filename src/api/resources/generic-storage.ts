import { apiVersionOf, ResourceType, StrategyContext } from '../schema/resource-type';
import { errors, StatusError, successStatus } from '../../apimachinery/errors';
import { FieldError, fieldErrors } from '../../apimachinery/field-errors';
import { isPlainObject, KubeList, KubeObject, Status } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/object-meta';
import { objectKey, storageResource } from '../../apimachinery/store-key';
import {
  Change,
  isStorableKeyPart,
  KeyExistsError,
  KeyNotFoundError,
  ObjectKey,
  ObjectStore,
  RevisionCompactedError,
  StaleRevisionError,
  StoredObject,
} from '../../storage/object-store';
import { parseFieldSelector } from '../selectors/field-selector';
import { parseLabelSelector, SelectorParseError } from '../selectors/label-selector';
import { ChangeFeedService } from '../../storage/change-feed.service';
import { WatchEvent, WatchStream } from '../watch/watch-stream';
import { ContinueTokens, EXPIRED_CONTINUE_MESSAGE } from './continue-token';
import { getSemantics, listSemantics, ListQuery, WatchStart, watchSemantics } from './resource-version';
import { AdmissionChain } from './admission';
import { applyPatch, parsePatch } from '../patch/patcher';
import { isApplyPatch, nonApplyPatchType } from '../patch/patch-types';
import { decodeApplyConfiguration } from '../apply/apply-request';
import { ApplyConflicts } from '../apply/conflicts';
import { FieldManager, keepTimestampsOfNoopWrite } from '../apply/field-manager';
import { managerOrUserAgent } from '../apply/manager-name';
import { DEFAULT_FIELD_VALIDATION } from '../validation/field-validation';
import {
  DeleteOptions,
  DeleteResult,
  ReadOptions,
  ResourceStorage,
  Target,
  WriteOptions,
  WriteResult,
} from './storage';
import { deepClone, fillCreateMetadata, generatedName, jsonEqual, nowTimestamp, pinUpdateMetadata } from '../../apimachinery/system-metadata';

/** How often a generateName collision or an unconditional write's conflict is retried. */
const MAX_RETRIES = 8;
/** Rows read from the store per query when a list or watch pages through it. */
const LIST_PAGE_SIZE = 500;
/** Changes a watcher takes from the feed at a time. */
const WATCH_BATCH = 500;
/** A waiting watcher re-checks its deadline and bookmarks at least this often. */
const WATCH_IDLE_WAKE_MS = 5000;
/** How long a read naming a revision this process has not seen yet waits before 504. */
const TOO_LARGE_RV_WAIT_MS = 3000;
/** Fields every kind can be selected by; a kind's type adds its own (selectableFields). */
const METADATA_FIELDS = ['metadata.name', 'metadata.namespace'];

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

interface ObjectSelectors {
  filtering: boolean;
  matches(obj: KubeObject): boolean;
}

/** What a watch sends and for how long, from its query. */
interface WatchScope {
  /** '' = every namespace (and cluster-scoped kinds). */
  namespace: string;
  selectors: ObjectSelectors;
  timeoutSeconds?: number;
  bookmarks: boolean;
}

function firstString(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return v === undefined ? undefined : String(v);
}

function truthy(v: unknown): boolean {
  const s = firstString(v);
  return s === 'true' || s === '1';
}

function fieldsOf(type: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' };
  for (const field of type.selectableFields ?? []) fields[field.name] = field.value(obj);
  return fields;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64 query parameter as kube's conversion reads it (strconv.ParseInt), with its errors as 400. */
function parseInt64(text: string): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return n;
}

/** Beyond this many items a limit cannot cut a list short: a bound for the store's queries. */
const UNREACHABLE_LIMIT = 2n ** 31n;

function parseListQuery(query: Record<string, unknown>): ListQuery {
  const limitText = firstString(query.limit);
  let limit: number | undefined;
  if (limitText !== undefined && limitText !== '') {
    // A limit of 0 or less means none, as in kube.
    const n = parseInt64(limitText);
    if (n > 0n) limit = Number(n < UNREACHABLE_LIMIT ? n : UNREACHABLE_LIMIT);
  }
  return {
    resourceVersion: firstString(query.resourceVersion),
    resourceVersionMatch: firstString(query.resourceVersionMatch),
    limit,
    continue: firstString(query.continue),
  };
}

function parseTimeoutSeconds(v: unknown): number | undefined {
  const text = firstString(v);
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(text)}: must be a non-negative integer`);
  return n;
}

/**
 * A name or namespace the store cannot hold (a NUL character, which kube's etcd keys allow
 * and PostgreSQL text does not) is invalid, unless that field is refused already.
 */
function withKeyErrors(obj: KubeObject, errs: FieldError[]): FieldError[] {
  for (const field of ['name', 'namespace'] as const) {
    const value = obj.metadata[field];
    const path = `metadata.${field}`;
    if (typeof value !== 'string' || isStorableKeyPart(value) || errs.some((e) => e.field === path)) continue;
    errs.push(fieldErrors.invalid(path, value, 'may not contain a NUL character'));
  }
  return errs;
}

/** The ERROR event a watch from a compacted revision gets (kube: 410 Expired). */
function tooOldStatus(revision: string): Status {
  return errors.gone(`too old resource version: ${revision}`).toStatus();
}

/**
 * The one storage every kind uses, like kube's generic registry Store: it never names a
 * kind; the kind's strategy supplies preparation and validation, admission plugins the
 * cross-cutting checks. Hook order (kube's BeforeCreate/BeforeUpdate): system metadata,
 * namespace checks, prepare, validate, admission, then the store.
 */
export class GenericStorage implements Required<ResourceStorage> {
  constructor(
    private readonly type: ResourceType,
    private readonly store: ObjectStore,
    private readonly admission: AdmissionChain,
    private readonly deps: GenericStorageDeps,
  ) {}

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

  async get(target: Target, opts?: ReadOptions): Promise<KubeObject> {
    // get: unset = most recent, 0 = any, N = not older than N (wait briefly for it, else 504).
    const sem = getSemantics(firstString(opts?.query.resourceVersion));
    if (sem.kind === 'NotOlderThan') await this.awaitRevision(sem.revision);
    const stored = await this.store.get(this.key(target));
    if (!stored) throw errors.notFound(target.groupResource, target.name);
    return this.present(stored.object);
  }

  async list(target: Target, opts: ReadOptions): Promise<KubeList> {
    const query = parseListQuery(opts.query);
    const sem = listSemantics(query);
    const selectors = this.selectors(opts.query);
    const namespace = this.type.namespaced && target.namespace ? target.namespace : undefined;

    // Where the list starts: the snapshot revision (undefined = read the current state) and key.
    let atRevision: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    switch (sem.kind) {
      case 'NotOlderThan':
        await this.awaitRevision(sem.revision);
        break;
      case 'Exact':
        await this.awaitRevision(sem.revision);
        await this.checkNotCompacted(sem.revision, 'The resourceVersion for the provided list is too old.');
        atRevision = sem.revision;
        break;
      case 'Continue': {
        const pos = this.deps.continueTokens.decode(sem.token);
        await this.checkNotCompacted(pos.revision, EXPIRED_CONTINUE_MESSAGE);
        atRevision = pos.revision;
        after = { namespace: pos.namespace, name: pos.name };
        break;
      }
      default:
        break;
    }

    const limit = query.limit && query.limit > 0 ? query.limit : undefined;
    const items: KubeObject[] = [];
    let snapshot = atRevision;
    let lastKey: { namespace: string; name: string } | undefined;
    let more = false;
    let remaining: number | undefined;
    // Page through the store so a request never holds more than one page of rows beyond its answer.
    for (;;) {
      const want = limit ? limit - items.length : LIST_PAGE_SIZE;
      const page = await this.store.list(storageResource(this.type), {
        namespace,
        atRevision: snapshot,
        after,
        limit: selectors.filtering ? Math.max(want, LIST_PAGE_SIZE) : want,
      });
      snapshot = page.revision;
      for (const stored of page.items) {
        if (limit && items.length >= limit) {
          more = true;
          break;
        }
        lastKey = { namespace: stored.key.namespace, name: stored.key.name };
        if (selectors.matches(stored.object)) items.push(this.listItem(stored.object));
      }
      if (more) break;
      if (!page.hasMore) break;
      if (limit && items.length >= limit) {
        more = true;
        remaining = selectors.filtering ? undefined : page.remaining;
        break;
      }
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }

    const metadata: KubeList['metadata'] = { resourceVersion: snapshot };
    if (more && lastKey) {
      metadata.continue = this.deps.continueTokens.encode({ revision: snapshot!, ...lastKey });
      if (remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
    }
    return { apiVersion: apiVersionOf(this.type), kind: this.type.listKind, metadata, items };
  }

  /** Parsed label and field selectors of a list, watch or deletecollection; bad syntax is 400. */
  private selectors(query: Record<string, unknown>): ObjectSelectors {
    try {
      const label = parseLabelSelector(firstString(query.labelSelector));
      const supported = [...METADATA_FIELDS, ...(this.type.selectableFields ?? []).map((f) => f.name)];
      const field = parseFieldSelector(firstString(query.fieldSelector), supported);
      return {
        filtering: !label.empty || !field.empty,
        matches: (obj: KubeObject) => label.matches(obj.metadata.labels) && field.matches(fieldsOf(this.type, obj)),
      };
    } catch (err) {
      if (err instanceof SelectorParseError) throw errors.badRequest(`unable to parse requirement: ${err.message}`);
      throw err;
    }
  }

  /** "Not older than" a revision this process has not seen yet: wait briefly, then 504. */
  private async awaitRevision(revision: string): Promise<void> {
    if (await this.deps.feed.waitForRevision(revision, TOO_LARGE_RV_WAIT_MS)) return;
    const current = BigInt(await this.store.currentRevision());
    if (current >= BigInt(revision)) return;
    throw errors.tooLargeResourceVersion(1);
  }

  private async checkNotCompacted(revision: string, message: string): Promise<void> {
    if (BigInt(revision) < BigInt(await this.store.compactedRevision())) throw errors.gone(message);
  }

  // ---- watch ---------------------------------------------------------------------------

  async watch(target: Target, opts: ReadOptions, open: () => WatchStream): Promise<void> {
    const query = opts.query;
    const start = watchSemantics({
      resourceVersion: firstString(query.resourceVersion),
      resourceVersionMatch: firstString(query.resourceVersionMatch),
      sendInitialEvents: query.sendInitialEvents === undefined ? undefined : truthy(query.sendInitialEvents),
      allowWatchBookmarks: truthy(query.allowWatchBookmarks),
    });
    const scope: WatchScope = {
      namespace: this.type.namespaced ? target.namespace : '',
      selectors: this.selectors(query),
      timeoutSeconds: parseTimeoutSeconds(query.timeoutSeconds),
      bookmarks: truthy(query.allowWatchBookmarks),
    };
    if (start.initialEvents && start.from.kind === 'NotOlderThan') await this.awaitRevision(start.from.revision);
    // Everything that can fail as a plain 400/504 has run: from here on errors are events.
    const stream = open();
    await this.deps.feed.serve(stream, target.groupResource, () => this.follow(stream, start, scope));
  }

  /** Streams a watch from its start until it ends (timeout, cut-off, the client leaving). */
  private async follow(stream: WatchStream, start: WatchStart, scope: WatchScope): Promise<void> {
    const feed = this.deps.feed;
    const resource = storageResource(this.type);
    const inScope = (c: Change) => c.key.resource === resource && (!scope.namespace || c.key.namespace === scope.namespace);
    let cursor: string;
    if (start.initialEvents) {
      cursor = await this.sendInitialState(stream, scope.namespace, scope.selectors);
      if (start.initialEventsEndBookmark) stream.send(this.bookmark(cursor, true));
    } else if (start.from.kind === 'Exact') {
      cursor = start.from.revision;
      if (BigInt(cursor) < BigInt(await this.store.compactedRevision())) {
        stream.send({ type: 'ERROR', object: tooOldStatus(cursor) });
        return;
      }
    } else {
      // sendInitialEvents=false without a revision: start at the newest one, with no state.
      cursor = await this.store.currentRevision();
    }

    const deadline = scope.timeoutSeconds !== undefined ? Date.now() + scope.timeoutSeconds * 1000 : Infinity;
    let nextBookmark = Date.now() + this.deps.bookmarkIntervalMs;
    while (!stream.closed) {
      let changes: Change[];
      try {
        changes = await feed.changesAfter(cursor, WATCH_BATCH);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        stream.send({ type: 'ERROR', object: tooOldStatus(cursor) });
        return;
      }
      for (const change of changes) {
        cursor = change.revision;
        if (!inScope(change)) continue;
        const event = this.watchEvent(change, scope.selectors);
        if (event && !stream.send(event, change)) return;
      }
      if (changes.length > 0) continue;
      const now = Date.now();
      if (now >= deadline) return;
      if (scope.bookmarks && now >= nextBookmark) {
        stream.send(this.bookmark(cursor, false));
        nextBookmark = now + this.deps.bookmarkIntervalMs;
      }
      const wait = Math.min(deadline, scope.bookmarks ? nextBookmark : Infinity, now + WATCH_IDLE_WAKE_MS) - now;
      // The stream's signal ends the wait the moment the client goes.
      await feed.waitForNewer(cursor, Math.max(wait, 1), stream.signal);
    }
  }

  /** Synthetic ADDED events for the current state, paged; returns the snapshot revision. */
  private async sendInitialState(stream: WatchStream, namespace: string, selectors: ObjectSelectors): Promise<string> {
    let snapshot: string | undefined;
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await this.store.list(storageResource(this.type), {
        namespace: namespace || undefined,
        atRevision: snapshot,
        after,
        limit: LIST_PAGE_SIZE,
      });
      snapshot = page.revision;
      for (const stored of page.items) {
        if (selectors.matches(stored.object)) stream.send({ type: 'ADDED', object: this.present(stored.object) });
      }
      if (!page.hasMore || stream.closed) return snapshot;
      const last = page.items[page.items.length - 1];
      after = { namespace: last.key.namespace, name: last.key.name };
    }
  }

  /**
   * One change as a watcher with selectors sees it: an object that stops matching is
   * DELETED for it, one that starts matching is ADDED, as kube's watch cache does.
   */
  private watchEvent(change: Change, selectors: ObjectSelectors): WatchEvent | null {
    if (!selectors.filtering) return { type: change.type, object: this.present(change.object) };
    const now = selectors.matches(change.object);
    if (change.type !== 'MODIFIED') return now ? { type: change.type, object: this.present(change.object) } : null;
    const before = change.previous ? selectors.matches(change.previous) : now;
    if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: this.present(change.object) };
    if (!before) return null;
    // The watcher last saw the object as it matched: that content, at the change's revision.
    const last = change.previous!;
    return { type: 'DELETED', object: this.present({ ...last, metadata: { ...last.metadata, resourceVersion: change.revision } }) };
  }

  private bookmark(revision: string, initialEventsEnd: boolean): WatchEvent {
    const metadata: KubeObject['metadata'] = { resourceVersion: revision };
    if (initialEventsEnd) metadata.annotations = { 'platform.io/initial-events-end': 'true' };
    return { type: 'BOOKMARK', object: { apiVersion: apiVersionOf(this.type), kind: this.type.kind, metadata } };
  }

  // ---- create ------------------------------------------------------------------------

  async create(target: Target, body: Record<string, unknown>, opts: WriteOptions): Promise<WriteResult> {
    const obj = this.decodeObject(body, target);
    this.checkBodyNamespace(obj, target);
    this.fields.update(null, obj, this.managerOf(opts));
    return this.createObject(target, obj, opts);
  }

  /** `viaUpdate`: a PUT or apply found no object; kube then also requires `create` permission. */
  private async createObject(target: Target, obj: KubeObject, opts: WriteOptions, viaUpdate = false): Promise<WriteResult> {
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
    const named: Target = { ...target, name: obj.metadata.name! };
    if (viaUpdate) await this.deps.authorizeCreate?.(named, opts.user);
    await this.admission.admit({ operation: 'CREATE', target: named, object: obj, options: opts, pathName: target.name });
    if (opts.dryRun) {
      if (!wantsGeneratedName && (await this.store.get(this.key(named)))) {
        throw errors.alreadyExists(target.groupResource, named.name);
      }
      return { object: this.present(obj), created: true };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = await this.store.create(this.key({ ...target, name: obj.metadata.name! }), obj);
        this.notifyWritten();
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
    return this.guaranteedUpdate(target, opts, !requested && opts.ifMatch === undefined, async (current) => {
      if (!current && !this.type.strategy.allowCreateOnUpdate) throw errors.notFound(target.groupResource, target.name);
      const next = deepClone(obj);
      this.fields.update(current?.object ?? null, next, this.managerOf(opts));
      return current ? { update: next } : { create: next };
    });
  }

  async patch(target: Target, patch: { contentType: string; body: Buffer }, opts: WriteOptions): Promise<WriteResult> {
    if (isApplyPatch(patch.contentType)) return this.apply(target, patch.body, opts);
    // The patch type and document are checked before the object is read (415 and 400 first).
    const parsed = parsePatch(nonApplyPatchType(patch.contentType), patch.body);
    return this.guaranteedUpdate(target, opts, opts.ifMatch === undefined, async (current) => {
      if (!current) throw errors.notFound(target.groupResource, target.name);
      const patched = applyPatch(this.type, current.object as Record<string, unknown>, parsed, opts.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
      for (const warning of patched.warnings) opts.warn?.(warning);
      const obj = this.decodeObject(patched.object, target);
      this.fields.update(current.object, obj, this.managerOf(opts));
      // A resourceVersion written by the patch is a precondition; otherwise the read one is.
      if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.revision;
      return { update: obj };
    });
  }

  /**
   * Server-side apply: the configuration is merged into the object by the kind's schema
   * and its managed fields, or creates the object when there is none (kube's applyPatcher).
   */
  private async apply(target: Target, body: Buffer, opts: WriteOptions): Promise<WriteResult> {
    const { config, warnings } = decodeApplyConfiguration(body, this.type, target, opts.fieldValidation);
    let warned = false;
    return this.guaranteedUpdate(target, opts, opts.ifMatch === undefined, async (current) => {
      let applied: KubeObject;
      try {
        applied = this.fields.apply(current?.object ?? null, deepClone(config), opts.fieldManager ?? '', opts.force === true);
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
      if (!current) return { create: obj };
      // A resourceVersion in the configuration is a precondition; otherwise the read one is.
      if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.revision;
      return { update: obj };
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
    transform: (current: StoredObject | null) => Promise<{ create?: KubeObject; update?: KubeObject }>,
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
          return await this.createObject(target, next.create, opts, true);
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
        return await this.updateObject(target, obj, old, opts);
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

  private async updateObject(target: Target, obj: KubeObject, old: StoredObject, opts: WriteOptions): Promise<WriteResult> {
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
    await this.admission.admit({ operation: 'UPDATE', target, object: obj, old: old.object, options: opts });
    obj.metadata.resourceVersion = old.revision;
    keepTimestampsOfNoopWrite(obj, old.object);
    // An update that changes nothing is not written (no new revision), as in kube.
    if (jsonEqual(obj, old.object)) return { object: this.present(old.object), created: false };
    if (opts.dryRun) return { object: this.present(obj), created: false };
    if (this.shouldDeleteDuringUpdate(obj)) {
      // The last finalizer is gone from an object being deleted: it is removed now.
      const deleted = await this.store.delete(this.key(target), { revision: old.revision });
      this.notifyWritten();
      return { object: this.present({ ...obj, metadata: { ...obj.metadata, resourceVersion: deleted.revision } }), created: false };
    }
    const stored = await this.store.update(this.key(target), obj, { revision: old.revision });
    this.notifyWritten();
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
      try {
        if (current.object.metadata.finalizers?.length) return await this.markDeleting(target, current, opts);
        const deleted = await this.store.delete(key, { revision: current.revision });
        this.notifyWritten();
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
    const stored = await this.store.update(this.key(target), obj, { revision: current.revision });
    this.notifyWritten();
    return { body: this.present(stored.object), code: 200 };
  }

  async deleteCollection(target: Target, opts: DeleteOptions & ReadOptions): Promise<Status> {
    const list = await this.list(target, opts);
    for (const item of list.items) {
      try {
        await this.delete({ ...target, namespace: item.metadata.namespace ?? '', name: item.metadata.name! }, opts);
      } catch (err) {
        // Deleted concurrently: the goal is reached.
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return successStatus();
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

  /** Local writes reach this process's watchers at once; NOTIFY and polling cover the others. */
  protected notifyWritten(): void {
    void this.deps.feed.poke();
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
    const obj = deepClone(body) as KubeObject;
    obj.apiVersion = apiVersion;
    obj.kind = this.type.kind;
    obj.metadata = (obj.metadata ?? {}) as KubeObject['metadata'];
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

  /** List items carry no TypeMeta of their own in kube's responses. */
  private listItem(obj: KubeObject): KubeObject {
    const { apiVersion: _a, kind: _k, ...rest } = obj;
    return rest as KubeObject;
  }
}

