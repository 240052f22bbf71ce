import { Injectable } from '@nestjs/common';
import { errors } from '../../apimachinery/errors';
import { RegisteredResource, ResourceRegistry } from '../../registry/resources/registry';
import { RequestInfo } from './request-info';
import { Verb } from '../../runtime/schema/resource-type';
import { ResourceStorage, Target } from '../../registry/rest/storage';

/** The verbs served on a single object's path. */
const ITEM_VERBS: Verb[] = ['get', 'update', 'patch', 'delete'];

export interface ResolvedRequest {
  entry: RegisteredResource;
  target: Target;
  /** True for a path that names one object, false for a collection. */
  single: boolean;
  /** A subresource of the named object (`serviceaccounts/{name}/token`): its own kind and storage. */
  subresource?: boolean;
}

/**
 * Maps request info onto a registered kind and checks the path shape the way kube's
 * installer routes: namespaced kinds live under namespaces/{ns} (plus a cluster-wide
 * list path), cluster-scoped kinds never do, and a verb the storage lacks is 405.
 */
@Injectable()
export class TargetResolver {
  constructor(private readonly registry: ResourceRegistry) {}

  /** Called once per request, by the content negotiation pipe, which keeps the answer in the request's scope. */
  resolve(info: RequestInfo): ResolvedRequest {
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    if (info.apiPrefix === 'api' && info.apiVersion !== 'v1') throw errors.pathNotFound();
    const entry = this.registry.lookupServed(group, info.apiVersion, info.resource);
    if (!entry) throw errors.pathNotFound();
    if (info.subresource) return this.resolveSubresource(info, entry.type);
    const { type } = entry;
    if (info.parts.length > 2) throw errors.pathNotFound();

    const isNamespaceObject = !type.group && type.plural === 'namespaces';
    const pathName = info.parts[1] ?? '';
    // For /api/v1/namespaces/{name}, request info reports the name as namespace too.
    const namespace = isNamespaceObject ? '' : info.namespace;
    if (!type.namespaced && namespace) throw errors.pathNotFound();
    const single = pathName !== '';
    if (type.namespaced && !namespace && single) throw errors.pathNotFound();
    // kube routes only the paths a kind's verbs need: no item path without an item verb, no
    // all-namespaces path without list or watch (the create-only reviews have neither).
    if (single && !ITEM_VERBS.some((v) => type.verbs.includes(v))) throw errors.pathNotFound();
    if (type.namespaced && !namespace && !type.verbs.includes('list') && !type.verbs.includes('watch')) throw errors.pathNotFound();

    const target: Target = {
      type,
      groupResource: { group: type.group, resource: type.plural },
      namespace,
      name: pathName,
    };
    if (info.aliasApiVersion) target.aliasApiVersion = info.aliasApiVersion;
    return { entry, target, single };
  }

  /** `<plural>/<name>/<subresource>`: the object's path, the subresource's kind and storage. */
  private resolveSubresource(info: RequestInfo, parent: RegisteredResource['type']): ResolvedRequest {
    if (info.parts.length !== 3) throw errors.pathNotFound();
    const entry = this.registry.lookupSubresource(parent.group, parent.version, parent.plural, info.subresource);
    if (!entry) throw errors.pathNotFound();
    if (parent.namespaced !== !!info.namespace) throw errors.pathNotFound();
    const target: Target = {
      type: entry.type,
      groupResource: { group: parent.group, resource: parent.plural },
      namespace: info.namespace,
      name: info.parts[1],
    };
    return { entry, target, single: true, subresource: true };
  }

  /** The storage method for a verb, or kube's 405 for a method it registers no route for (a verb the kind lacks). */
  method<K extends keyof ResourceStorage>(resolved: ResolvedRequest, name: K, verb: Verb): NonNullable<ResourceStorage[K]> {
    const fn = resolved.entry.storage[name];
    if (!fn || !resolved.target.type.verbs.includes(verb)) throw errors.methodNotAllowed();
    // A namespaced kind's cluster-wide path serves only list and watch (kube's installer
    // routes no create or deletecollection there).
    if (!resolved.subresource && resolved.target.type.namespaced && !resolved.target.namespace && name !== 'list' && name !== 'watch') throw errors.methodNotAllowed();
    return fn.bind(resolved.entry.storage) as NonNullable<ResourceStorage[K]>;
  }
}
