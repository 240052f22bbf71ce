import { ResourceRegistry } from '../registry/resources/registry';
import { ResourceStorage, Target } from '../registry/rest/storage';
import { ResourceType } from '../runtime/schema/resource-type';
import { StatusError } from '../apimachinery/errors';
import { storageResource } from '../apimachinery/store-key';
import { KubeObject } from '../apimachinery/types';
import { controllerUser, UserInfo } from '../apimachinery/user-info';
import { NAMESPACE_INDEX } from '../storage/informer/informer';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';

/**
 * What a controller reads and writes with: reads from the shared informers' caches (never
 * changed in place), writes through each kind's storage (validation, admission, watch
 * events), as `system:controller:<name>`.
 */
export class ControllerContext {
  readonly user: UserInfo;

  constructor(
    readonly name: string,
    private readonly registry: ResourceRegistry,
    private readonly informers: SharedInformerFactory,
    user?: UserInfo,
  ) {
    this.user = user ?? controllerUser(name);
  }

  /** Every object of a kind (in one namespace, or all), from its informer's cache. */
  async list<T extends KubeObject>(type: ResourceType, namespace?: string): Promise<T[]> {
    const informer = this.informers.informerFor<T>(storageResource(type));
    return namespace === undefined ? informer.list() : informer.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** One object of a kind from its informer's cache. */
  get<T extends KubeObject>(type: ResourceType, namespace: string, name: string): T | undefined {
    return this.informers.informerFor<T>(storageResource(type)).get(namespace, name);
  }

  /**
   * The objects of a kind that `indexFn` files under `value`, from an index of the shared
   * informer added the first time it is asked for (client-go's AddIndexers and ByIndex): a
   * controller that cares about a few objects among 100,000 reads those, not every one.
   */
  byIndex<T extends KubeObject>(type: ResourceType, indexName: string, indexFn: (obj: T) => string[], value: string): T[] {
    const informer = this.informers.informerFor<T>(storageResource(type));
    if (!informer.hasIndex(indexName)) informer.addIndexers({ [indexName]: indexFn });
    return informer.byIndex(indexName, value);
  }

  private storage(type: ResourceType): ResourceStorage {
    const entry = this.registry.lookup(type.group, type.version, type.plural);
    if (!entry) throw new Error(`${type.plural} is not served`);
    return entry.storage;
  }

  private target(type: ResourceType, namespace: string, name: string): Target {
    return { type, groupResource: { group: type.group, resource: type.plural }, namespace, name };
  }

  /** Creates an object; one that exists already is left as it is (false). */
  async create(type: ResourceType, namespace: string, object: KubeObject): Promise<boolean> {
    try {
      await this.storage(type).create!(this.target(type, namespace, ''), object as unknown as Record<string, unknown>, { user: this.user, dryRun: false, fieldManager: this.name });
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'AlreadyExists') return false;
      throw err;
    }
  }

  /** Updates an object at the version it was read (a conflict is retried at the next sync). */
  async update(type: ResourceType, object: KubeObject): Promise<void> {
    await this.storage(type).update!(this.target(type, object.metadata.namespace ?? '', object.metadata.name!), object as unknown as Record<string, unknown>, {
      user: this.user,
      dryRun: false,
      fieldManager: this.name,
    });
  }

  /** Deletes the object if it is still the one read (same uid); already gone is fine (false). */
  async delete(type: ResourceType, object: KubeObject): Promise<boolean> {
    try {
      await this.storage(type).delete!(this.target(type, object.metadata.namespace ?? '', object.metadata.name!), {
        user: this.user,
        dryRun: false,
        preconditions: { uid: object.metadata.uid },
      });
      return true;
    } catch (err) {
      if (err instanceof StatusError && (err.reason === 'NotFound' || err.reason === 'Conflict')) return false;
      throw err;
    }
  }
}

/**
 * One controller: `sync` brings everything it owns to the desired state and may say when
 * it wants to run again at the latest (a token's expiry), in ms since the epoch.
 */
export interface Controller {
  readonly name: string;
  /** The kinds whose informers it reads (their changes wake it). */
  readonly watches: ResourceType[];
  sync(): Promise<number | void>;
}
