import { Inject, Injectable, Optional } from '@nestjs/common';
import { EMPTY_RUNTIME_CONFIG, RuntimeConfig } from '../../config/runtime-config';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { apiVersionOf, ResourceType } from '../../runtime/schema/resource-type';
import { GroupVersionDeclaration, GroupVersionLifecycle, lifecycleOf, servedWith, stabilityOfVersion } from './api-versions';
import { ResourceStorage, VERB_METHODS } from '../rest/storage';

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
 * Every kind the server has, registered by its feature module at start-up, with the
 * lifecycle of its group version. `--runtime-config` decides which of them are served:
 * routing, discovery and OpenAPI read only the served ones (`lookupServed`, `served`,
 * `groups`, `resourcesOf`); the server's own controllers reach every kind (`lookup`, `all`).
 */
@Injectable()
export class ResourceRegistry {
  private readonly entries = new Map<string, RegisteredResource>();
  /** Alias `<group>/<version>/<plural>` -> the served group/version. */
  private readonly aliases = new Map<string, GroupVersion>();
  /** Declared group versions by apiVersion. */
  private readonly versions = new Map<string, GroupVersionLifecycle>();
  /** Whether each registered `<group>/<version>/<plural>` is served, settled at registration. */
  private readonly servedIds = new Set<string>();
  private readonly runtimeConfig: RuntimeConfig;

  constructor(@Optional() @Inject(SERVER_OPTIONS) options?: ServerOptions) {
    this.runtimeConfig = options?.runtimeConfig ?? EMPTY_RUNTIME_CONFIG;
  }

  /** Declares a group version's stability and deprecation; before any of its kinds registers. */
  declareGroupVersion(declaration: GroupVersionDeclaration): void {
    const apiVersion = apiVersionOf(declaration);
    if (this.versions.has(apiVersion)) throw new Error(`group version ${apiVersion} declared twice`);
    if ([...this.entries.values()].some((e) => apiVersionOf(e.type) === apiVersion)) throw new Error(`group version ${apiVersion} declared after its kinds`);
    this.versions.set(apiVersion, lifecycleOf(declaration));
  }

  /** The lifecycle of a group version: as declared, or (for a stable one) the default its name gives. */
  lifecycle(group: string, version: string): GroupVersionLifecycle | undefined {
    const declared = this.versions.get(apiVersionOf({ group, version }));
    if (declared) return declared;
    return stabilityOfVersion(version) === 'stable' ? { stability: 'stable' } : undefined;
  }
  /** `<group>/<version>/<plural>/<subresource>` -> the subresource. */
  private readonly subresources = new Map<string, RegisteredSubresource>();

  register(type: ResourceType, storage: ResourceStorage): void {
    const id = this.id(type.group, type.version, type.plural);
    if (this.entries.has(id)) throw new Error(`resource ${id} registered twice`);
    const lifecycle = this.lifecycle(type.group, type.version);
    if (!lifecycle) throw new Error(`resource ${id} registered in group version ${apiVersionOf(type)}, which declares no lifecycle`);
    // A kind declares its verbs; its storage must implement each of them.
    for (const verb of type.verbs) {
      if (!storage[VERB_METHODS[verb]]) throw new Error(`resource ${id} declares verb ${verb} but its storage lacks ${VERB_METHODS[verb]}`);
    }
    this.entries.set(id, { type, storage });
    if (servedWith(this.runtimeConfig, type.group, type.version, lifecycle, type.plural)) this.servedIds.add(id);
  }

  /** Whether routing, discovery and OpenAPI serve this kind. */
  isServed(group: string, version: string, plural: string): boolean {
    return this.servedIds.has(this.id(group, version, plural));
  }

  /** The kind a request path names, if it is served. */
  lookupServed(group: string, version: string, plural: string): RegisteredResource | undefined {
    return this.isServed(group, version, plural) ? this.lookup(group, version, plural) : undefined;
  }

  /** Every served kind. */
  served(): RegisteredResource[] {
    return this.all().filter(({ type }) => this.isServed(type.group, type.version, type.plural));
  }

  /**
   * The `--runtime-config` keys that name no registered group version or resource, as the
   * start-up error names them; empty when every key is known.
   */
  unknownRuntimeConfigKeys(): string[] {
    const known = new Set(this.all().map(({ type }) => apiVersionOf(type)));
    return this.runtimeConfig.versions
      .filter(({ group, version, resource }) =>
        resource === undefined ? !known.has(apiVersionOf({ group, version })) : !this.lookup(group, version, resource),
      )
      .map(({ key }) => key);
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

  /** Named groups (core excluded) with their served versions, in registration order. */
  groups(): GroupVersions[] {
    const byGroup = new Map<string, string[]>();
    for (const { type } of this.served()) {
      if (!type.group) continue;
      const versions = byGroup.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      byGroup.set(type.group, versions);
    }
    return [...byGroup.entries()].map(([group, versions]) => ({ group, versions }));
  }

  /** The served kinds of a group version. */
  resourcesOf(group: string, version: string): RegisteredResource[] {
    return this.served().filter((e) => e.type.group === group && e.type.version === version);
  }

  private id(group: string, version: string, plural: string): string {
    return `${apiVersionOf({ group, version })}/${plural}`;
  }
}
