import { ContinuePosition } from '../../registry/generic/continue-token';
import { ResourceStorage, Reader, Target } from '../../registry/rest/storage';
import { GetOptions, ListOptions } from '../../registry/options/read-options';
import { apiVersionOf, ResourceType } from '../../runtime/schema/resource-type';
import { errors } from '../../apimachinery/errors';
import { KubeList, KubeObject } from '../../apimachinery/types';
import { FieldSelector } from '../../apimachinery/selectors/field-selector';

/** What a read asks of the objects: its field selector (a kind may read parameters from it) and a way to warn. */
export interface ComputedRead {
  field?: FieldSelector;
  warn?(message: string): void;
}

export interface ComputedSources<T extends KubeObject> {
  /** Every object, computed at the read (any order: they are sorted by name). */
  objects(read: ComputedRead): Promise<T[]>;
  /** The revision lists report (the policy index's). */
  revision(): string;
  continueTokens: { encode(pos: ContinuePosition): string; decode(token: string): ContinuePosition };
}

const byName = (a: KubeObject, b: KubeObject) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);

/**
 * The storage of a read-only kind computed at each read (cluster-scoped): get by name, and
 * lists in name order with the generic predicate (field and label selectors), `limit` and
 * signed `continue` tokens, as BindingUsageStorage does. No other verb exists: the generic
 * handlers answer 405.
 */
export class ComputedStorage<T extends KubeObject> implements ResourceStorage {
  constructor(
    private readonly type: ResourceType,
    private readonly sources: ComputedSources<T>,
  ) {}

  async get(target: Target, opts: GetOptions & Reader): Promise<KubeObject> {
    const found = (await this.sources.objects({ warn: opts.warn })).find((o) => o.metadata.name === target.name);
    if (!found) throw errors.notFound(target.groupResource, target.name);
    return { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...found };
  }

  async list(_target: Target, opts: ListOptions & Reader): Promise<KubeList> {
    const all = (await this.sources.objects({ field: opts.predicate.field, warn: opts.warn })).sort(byName);
    const revision = this.sources.revision();
    const after = opts.semantics.kind === 'Continue' ? this.sources.continueTokens.decode(opts.semantics.token).name : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const page: T[] = [];
    let rest = 0;
    for (const o of all) {
      if (after !== undefined && o.metadata.name! <= after) continue;
      if (!opts.predicate.matches(o)) continue;
      if (limit !== undefined && page.length >= limit) rest++;
      else page.push(o);
    }
    const metadata: KubeList['metadata'] = { resourceVersion: revision };
    if (rest > 0 && page.length) {
      metadata.continue = this.sources.continueTokens.encode({ revision, namespace: '', name: page[page.length - 1].metadata.name! });
      metadata.remainingItemCount = rest;
    }
    return { apiVersion: apiVersionOf(this.type), kind: this.type.listKind, metadata, items: page };
  }
}
