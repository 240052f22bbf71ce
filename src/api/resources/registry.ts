import { Injectable } from '@nestjs/common';
import { apiVersionOf, ResourceType } from '../schema/resource-type';
import { ResourceStorage, VERB_METHODS } from './storage';

export interface GroupVersions {
  group: string;
  versions: string[];
}

export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * Another group/version whose paths some served kinds also answer, as if addressed by
 * their own (kubectl posts its reviews to kube's `authorization.k8s.io/v1`). An alias is
 * neither listed in discovery nor in OpenAPI; requests through it are authorized as the
 * served group and their bodies speak the alias's apiVersion.
 */
export interface GroupVersionAlias {
  alias: GroupVersion;
  served: GroupVersion;
  /** The plurals of the served kinds the alias answers. */
  resources: string[];
}

/**
 * A subresource of a served kind (`serviceaccounts/token`): the kind its bodies are (which
 * may belong to another group, as kube's TokenRequest does) and the storage of its verbs,
 * addressed by the parent object's path plus the subresource's name.
 */
export interface RegisteredSubresource extends RegisteredResource {
  parent: ResourceType;
  subresource: string;
}

/** A served kind: its definition and the storage that implements its verbs. */
export interface RegisteredResource {
  type: ResourceType;
  storage: ResourceStorage;
}

/**
 * Every kind the server serves, registered by its feature module at start-up.
 * The resource controller, discovery and (later) OpenAPI all read from here.
 */
@Injectable()
export class ResourceRegistry {
  private readonly entries = new Map<string, RegisteredResource>();
  /** Alias `<group>/<version>/<plural>` -> the served group/version. */
  private readonly aliases = new Map<string, GroupVersion>();
  /** `<group>/<version>/<plural>/<subresource>` -> the subresource. */
  private readonly subresources = new Map<string, RegisteredSubresource>();

  register(type: ResourceType, storage: ResourceStorage): void {
    const id = this.id(type.group, type.version, type.plural);
    if (this.entries.has(id)) throw new Error(`resource ${id} registered twice`);
    // A kind declares its verbs; its storage must implement each of them.
    for (const verb of type.verbs) {
      if (!storage[VERB_METHODS[verb]]) throw new Error(`resource ${id} declares verb ${verb} but its storage lacks ${VERB_METHODS[verb]}`);
    }
    this.entries.set(id, { type, storage });
  }

  registerSubresource(parent: ResourceType, subresource: string, type: ResourceType, storage: ResourceStorage): void {
    const id = `${this.id(parent.group, parent.version, parent.plural)}/${subresource}`;
    if (!this.lookup(parent.group, parent.version, parent.plural)) throw new Error(`subresource ${id} of a resource that is not registered`);
    if (this.subresources.has(id)) throw new Error(`subresource ${id} registered twice`);
    for (const verb of type.verbs) {
      if (!storage[VERB_METHODS[verb]]) throw new Error(`subresource ${id} declares verb ${verb} but its storage lacks ${VERB_METHODS[verb]}`);
    }
    this.subresources.set(id, { parent, subresource, type, storage });
  }

  lookupSubresource(group: string, version: string, plural: string, subresource: string): RegisteredSubresource | undefined {
    return this.subresources.get(`${this.id(group, version, plural)}/${subresource}`);
  }

  /** The subresources of a kind (discovery lists them after it). */
  subresourcesOf(parent: ResourceType): RegisteredSubresource[] {
    return [...this.subresources.values()].filter((s) => s.parent === parent);
  }

  registerAlias({ alias, served, resources }: GroupVersionAlias): void {
    for (const plural of resources) {
      if (!this.lookup(served.group, served.version, plural)) throw new Error(`alias of ${this.id(served.group, served.version, plural)}, which is not registered`);
      const id = this.id(alias.group, alias.version, plural);
      if (this.entries.has(id) || this.aliases.has(id)) throw new Error(`alias ${id} registered twice or over a served resource`);
      this.aliases.set(id, served);
    }
  }

  /** The served group/version a path's group/version/plural is an alias of, if any. */
  aliasOf(group: string, version: string, plural: string): GroupVersion | undefined {
    return this.aliases.get(this.id(group, version, plural));
  }

  lookup(group: string, version: string, plural: string): RegisteredResource | undefined {
    return this.entries.get(this.id(group, version, plural));
  }

  all(): RegisteredResource[] {
    return [...this.entries.values()];
  }

  /** Named groups (core excluded) with their versions, in registration order. */
  groups(): GroupVersions[] {
    const byGroup = new Map<string, string[]>();
    for (const { type } of this.entries.values()) {
      if (!type.group) continue;
      const versions = byGroup.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      byGroup.set(type.group, versions);
    }
    return [...byGroup.entries()].map(([group, versions]) => ({ group, versions }));
  }

  resourcesOf(group: string, version: string): RegisteredResource[] {
    return this.all().filter((e) => e.type.group === group && e.type.version === version);
  }

  private id(group: string, version: string, plural: string): string {
    return `${apiVersionOf({ group, version })}/${plural}`;
  }
}
