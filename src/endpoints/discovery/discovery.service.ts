import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { errors } from '../../apimachinery/errors';
import { ResourceRegistry } from '../../registry/resources/registry';

/**
 * Legacy (v1) discovery documents generated from the registry: kubectl reads these to
 * map `kubectl get roles` onto a group, version, scope and verbs.
 */
@Injectable()
export class DiscoveryService {
  constructor(private readonly registry: ResourceRegistry) {}

  coreVersions(serverAddress: string) {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  groupList() {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.registry.groups().map(({ group, versions }) => this.groupDocument(group, versions)),
    };
  }

  group(name: string) {
    const found = this.registry.groups().find((g) => g.group === name);
    if (!found) throw errors.pathNotFound();
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.groupDocument(found.group, found.versions) };
  }

  resourceList(group: string, version: string) {
    const entries = this.registry.resourcesOf(group, version);
    if (entries.length === 0) throw errors.pathNotFound();
    const groupVersion = group ? `${group}/${version}` : version;
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion,
      resources: entries.flatMap(({ type }) => {
        const resource: Record<string, unknown> = {
          name: type.plural,
          singularName: type.singular,
          namespaced: type.namespaced,
          kind: type.kind,
          verbs: [...type.verbs].sort(),
        };
        if (type.shortNames?.length) resource.shortNames = type.shortNames;
        if (type.categories?.length) resource.categories = type.categories;
        // Only stored kinds (written and read back) have a storage version; kube gives the
        // virtual reviews none, nor read-only views such as componentstatuses.
        if (type.verbs.includes('get') && type.verbs.includes('create')) resource.storageVersionHash = storageVersionHash(group, version, type.kind);
        // Subresources follow their resource, naming the group and version of their own kind (kube's TokenRequest).
        const subresources = this.registry.subresourcesOf(type).map((sub) => ({
          name: `${type.plural}/${sub.subresource}`,
          singularName: '',
          namespaced: type.namespaced,
          group: sub.type.group,
          version: sub.type.version,
          kind: sub.type.kind,
          verbs: [...sub.type.verbs].sort(),
        }));
        return [resource, ...subresources];
      }),
    };
  }

  private groupDocument(group: string, versions: string[]) {
    const docs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
    return { name: group, versions: docs, preferredVersion: docs[0] };
  }
}

/** kube's hash of the storage version: 8 bytes of sha256, base64. */
function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
