import { Inject, Injectable } from '@nestjs/common';
import { OBJECT_STORE, ObjectStore, SERVING_STORE } from '../../storage/mvcc/object-store';
import { ResourceType } from '../../runtime/schema/resource-type';
import { ChangeFeedService } from '../../storage/changefeed/change-feed.service';
import { AdmissionChain } from '../rest/admission';
import { ContinueTokenService } from './continue-token.service';
import { CreatePermissionCheck, GenericStorage } from './generic-storage';

/** How often an idle watch with allowWatchBookmarks gets a BOOKMARK (kube: about a minute). */
export const BOOKMARK_INTERVAL_MS = Symbol('BOOKMARK_INTERVAL_MS');

/**
 * The CreatePermissionCheck of the generic storages. Authorization sits above this layer,
 * so the server binds this token to its authorizer chain.
 */
export const CREATE_PERMISSION_CHECK = Symbol('CREATE_PERMISSION_CHECK');

/** Builds the generic storage of a kind; feature modules call it when they register kinds. */
@Injectable()
export class GenericStorageFactory {
  constructor(
    @Inject(SERVING_STORE) private readonly store: ObjectStore,
    @Inject(OBJECT_STORE) private readonly uncachedStore: ObjectStore,
    private readonly admission: AdmissionChain,
    private readonly feed: ChangeFeedService,
    private readonly continueTokens: ContinueTokenService,
    @Inject(BOOKMARK_INTERVAL_MS) private readonly bookmarkIntervalMs: number,
    @Inject(CREATE_PERMISSION_CHECK) private readonly authorizeCreate: CreatePermissionCheck,
  ) {}

  create(type: ResourceType): GenericStorage {
    return new GenericStorage(...this.argsFor(type));
  }

  /** The constructor arguments, for storages that extend the generic one. */
  argsFor(type: ResourceType): ConstructorParameters<typeof GenericStorage> {
    return [
      type,
      type.watchCache === false ? this.uncachedStore : this.store,
      this.admission,
      {
        feed: this.feed,
        continueTokens: this.continueTokens,
        bookmarkIntervalMs: this.bookmarkIntervalMs,
        // A PUT or apply that creates is authorized as update/patch; creating needs `create` too.
        authorizeCreate: this.authorizeCreate,
      },
    ];
  }
}
