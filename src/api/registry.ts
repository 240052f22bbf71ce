import { Injectable } from '@nestjs/common';
import { apiVersionOf, ResourceType } from './resource-type';
import { ResourceStorage, VERB_METHODS } from './resources/storage';

export interface GroupVersions {
  group: string;
  versions: string[];
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

  register(type: ResourceType, storage: ResourceStorage): void {
    const id = this.id(type.group, type.version, type.plural);
    if (this.entries.has(id)) throw new Error(`resource ${id} registered twice`);
    // A kind declares its verbs; its storage must implement each of them.
    for (const verb of type.verbs) {
      if (!storage[VERB_METHODS[verb]]) throw new Error(`resource ${id} declares verb ${verb} but its storage lacks ${VERB_METHODS[verb]}`);
    }
    this.entries.set(id, { type, storage });
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

/** The store key prefix of a kind: `<group>/<plural>`; the core group is empty. */
export function storageResource(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${t.group}/${t.plural}`;
}
