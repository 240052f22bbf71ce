import { ContinuePosition } from '../registry/generic/continue-token';
import { ResourceStorage, Reader, Target } from '../registry/rest/storage';
import { GetOptions, ListOptions } from '../registry/options/read-options';
import { apiVersionOf } from '../runtime/schema/resource-type';
import { errors } from '../apimachinery/errors';
import { KubeList, KubeObject } from '../apimachinery/types';
import { GrantingBinding } from '../authorization/authorizer';
import { PolicyIndex } from '../authorization/rbac/policy-index';
import { BindingUsage, bindingUsageType } from './binding-usage-kind';
import { bindingUsageName } from './binding-usage-names';
import { StoredUsage } from './binding-usage-table';

/** What the storage reads: the bindings that exist, and their counted usage. */
export interface BindingUsageSources {
  policy: Pick<PolicyIndex, 'objectsOf'> & { ready(): Promise<void>; syncedRevision(): string };
  usageOf(uids: readonly string[]): Promise<Map<string, StoredUsage>>;
  continueTokens: { encode(pos: ContinuePosition): string; decode(token: string): ContinuePosition };
}

const BINDING_KINDS: ReadonlyArray<GrantingBinding['kind']> = ['ClusterRoleBinding', 'RoleBinding'];

/** RFC 3339 to the second, as kube writes metav1.Time. */
const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** A binding's BindingUsage before counts are added (shared: never modified). */
function skeletonOf(kind: GrantingBinding['kind'], binding: KubeObject): BindingUsage {
  const meta = binding.metadata;
  const namespace = kind === 'RoleBinding' ? (meta.namespace ?? '') : '';
  const name = meta.name ?? '';
  return {
    metadata: { name: bindingUsageName(kind, namespace, name), ...(meta.creationTimestamp ? { creationTimestamp: meta.creationTimestamp } : {}) },
    bindingRef: { kind, ...(namespace ? { namespace } : {}), name, uid: meta.uid ?? '' },
    grants: 0,
    ...(meta.creationTimestamp ? { bindingCreated: meta.creationTimestamp } : {}),
  };
}

/**
 * The read-only storage of bindingusages: one BindingUsage per binding the RBAC index holds
 * (so a deleted binding's usage is gone with it), in name order, with the counts of the
 * usage table and this replica's unflushed ones. `limit` and `continue` page by name (the
 * token is signed like every list's); selectors filter on the binding's kind and namespace.
 * No other verb exists: the generic handlers answer 405.
 */
export class BindingUsageStorage implements ResourceStorage {
  /** Per binding object (a new one on every change), its usage without counts: names are hashed once. */
  private readonly skeletons = new WeakMap<KubeObject, BindingUsage>();

  constructor(private readonly sources: BindingUsageSources) {}

  async get(target: Target, _opts: GetOptions & Reader): Promise<KubeObject> {
    const found = (await this.usages()).find((u) => u.metadata.name === target.name);
    if (!found) throw errors.notFound(target.groupResource, target.name);
    const [filled] = await this.fill([found]);
    return { apiVersion: apiVersionOf(bindingUsageType), kind: bindingUsageType.kind, ...filled };
  }

  async list(_target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    const all = await this.usages();
    const revision = this.sources.policy.syncedRevision();
    const after = opts.semantics.kind === 'Continue' ? this.sources.continueTokens.decode(opts.semantics.token).name : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const page: BindingUsage[] = [];
    let rest = 0;
    for (const usage of all) {
      if (after !== undefined && usage.metadata.name! <= after) continue;
      if (!opts.predicate.matches(usage)) continue;
      if (limit !== undefined && page.length >= limit) rest++;
      else page.push(usage);
    }
    const metadata: KubeList['metadata'] = { resourceVersion: revision };
    if (rest > 0 && page.length) {
      metadata.continue = this.sources.continueTokens.encode({ revision, namespace: '', name: page[page.length - 1].metadata.name! });
      metadata.remainingItemCount = rest;
    }
    return { apiVersion: apiVersionOf(bindingUsageType), kind: bindingUsageType.listKind, metadata, items: await this.fill(page) };
  }

  /** Every binding's BindingUsage with no counts yet, sorted by name. */
  private async usages(): Promise<BindingUsage[]> {
    await this.sources.policy.ready();
    const usages: BindingUsage[] = [];
    for (const kind of BINDING_KINDS) {
      for (const binding of this.sources.policy.objectsOf(kind)) {
        let usage = this.skeletons.get(binding);
        if (!usage) this.skeletons.set(binding, (usage = skeletonOf(kind, binding)));
        usages.push(usage);
      }
    }
    return usages.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  }

  /** Adds the counts (read for these bindings only). */
  private async fill(usages: BindingUsage[]): Promise<BindingUsage[]> {
    const counted = await this.sources.usageOf(usages.map((u) => u.bindingRef.uid).filter(Boolean));
    return usages.map(({ metadata, bindingRef, bindingCreated }) => {
      const stored = counted.get(bindingRef.uid);
      // Copies: the skeletons are shared by every list.
      return {
        metadata: { ...metadata },
        bindingRef: { ...bindingRef },
        grants: stored?.grants ?? 0,
        ...(stored ? { lastGranted: rfc3339(stored.lastGranted) } : {}),
        ...(bindingCreated ? { bindingCreated } : {}),
      };
    });
  }
}
