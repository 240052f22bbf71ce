import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthChecks, withinTimeout } from '../health/health-checks';
import { StoreLivenessCheck } from '../health/store-liveness';
import { HealthModule } from '../health/health.module';
import { CHANGE_WAKEUPS, WakeupSource } from './changefeed/change-feed';
import { ChangeFeedService } from './changefeed/change-feed.service';
import { CurrentRevision, revisionReadWithin } from './mvcc/current-revision';
import { ChangeNotifier } from './engine/change-notifier';
import { Compactor } from './mvcc/compactor';
import { Database, POLLED_CHANGE_LOG_MS } from './engine/database';
import { serverInstance } from './engine/session-features';
import { serverStore } from './mvcc/mvcc-store';
import { OBJECT_STORE, ObjectStore, SERVING_STORE } from './mvcc/object-store';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { SharedInformerFactory } from './informer/shared-informer-factory';
import { CachingStore } from './cacher/caching-store';
import { StoredObjectsMetric } from './stored-objects-metric';
import { storageFailureOf } from './engine/storage-errors';
import { DISK_FULL_REASON, StoreDiskSpace } from './engine/store-disk-space';
import { StoreWritability, WRITE_CHECK } from './engine/store-writability';

/** The storage check is a real round trip, bounded so a hung database fails the probe instead of hanging it. */
const STORAGE_CHECK_TIMEOUT_MS = 2000;

/** The open Database (engine, DataSource, notifier). */
export const DATABASE = Symbol('DATABASE');
/** The ChangeNotifier: LISTEN/NOTIFY on the change log. */
export const CHANGE_NOTIFIER = Symbol('CHANGE_NOTIFIER');
const COMPACTOR = Symbol('COMPACTOR');


export interface StorageSettings {
  /** `--history-window`: how long superseded versions stay readable. */
  historyWindowSeconds: number;
}

/** Starts compaction once the app runs and stops it with the app (whoever opened the database closes it). */
@Injectable()
class StorageLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Storage');

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(COMPACTOR) private readonly compactor: Compactor,
    feed: ChangeFeedService,
    informers: SharedInformerFactory,
    diskSpace: StoreDiskSpace,
    @Optional() health?: HealthChecks,
  ) {
    // informer-sync: the change feed, and every informer started (RBAC index, node graph, controllers).
    health?.addInformer(feed);
    health?.addInformers(() =>
      informers.syncStates().map((state) => ({ name: state.resource, isStarted: () => true, hasSynced: () => state.synced })),
    );
    // Readiness waits for its own round trip; liveness does not wait behind queued writes (store-liveness.ts).
    health?.register('storage', ['readyz', 'healthz'], () => this.roundTrip());
    const liveness = new StoreLivenessCheck(() => this.roundTrip(), STORAGE_CHECK_TIMEOUT_MS);
    health?.register('storage', ['livez'], () => liveness.check());
    // Readiness only: a process whose store refuses writes for space is alive and serves reads.
    health?.register('storage-space', ['readyz'], () => diskSpace.check());
    // Readiness only, and a real write: a standby or a demoted primary answers reads (and the
    // `storage` check) but stores nothing; the process itself is fine and serves decisions.
    const writability = new StoreWritability(() => db.sql.query(WRITE_CHECK));
    health?.register('storage-writable', ['readyz'], () => writability.check());
    // The migrations ran when the store opened, before the application was built.
    health?.postStartHook('storage-migrations').done();
  }

  /** One query to the store, answered within STORAGE_CHECK_TIMEOUT_MS; the reason given never carries the driver's text. */
  private async roundTrip(): Promise<void> {
    try {
      await withinTimeout(this.db.dataSource.query('SELECT 1'), STORAGE_CHECK_TIMEOUT_MS, 'the store');
    } catch (err) {
      this.logger.debug(`storage check failed: ${(err as Error).message}`);
      const failure = storageFailureOf(err);
      if (failure === 'unavailable') throw new Error('the store is unreachable');
      if (failure === 'disk-full') throw new Error(DISK_FULL_REASON);
      if (failure === 'timeout' || /did not answer/.test((err as Error).message)) throw new Error(`the store did not answer within ${STORAGE_CHECK_TIMEOUT_MS / 1000}s`);
      throw new Error('the store failed a query');
    }
  }

  onApplicationBootstrap(): void {
    this.compactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.compactor.stop();
  }
}

/** How often the change feed reads the PostgreSQL log without a NOTIFY (see CHANGE_WAKEUPS below). */
const POSTGRES_GUARD_POLL_MS = 5_000;

/**
 * An open database (PostgreSQL or the embedded engine, migrated; opened before the
 * application is built, so a store that cannot open stops the start cleanly) behind the
 * ObjectStore interface, the change feed that follows its log, and the shared informers
 * built on both.
 */
@Module({})
export class StorageModule {
  static forRoot(db: Database, settings: StorageSettings): DynamicModule {
    return {
      module: StorageModule,
      global: true,
      imports: [HealthModule],
      providers: [
        { provide: DATABASE, useValue: db },
        { provide: DataSource, useFactory: (db: Database) => db.dataSource, inject: [DATABASE] },
        { provide: StoreDiskSpace, useValue: new StoreDiskSpace() },
        {
          provide: OBJECT_STORE,
          useFactory: (db: Database, diskSpace: StoreDiskSpace) => serverStore(db, diskSpace),
          inject: [DATABASE, StoreDiskSpace],
        },
        { provide: CHANGE_NOTIFIER, useFactory: (db: Database) => db.notifier, inject: [DATABASE] },
        {
          provide: CHANGE_WAKEUPS,
          // The embedded store has one writer, this process, whose NOTIFYs arrive: no polling.
          // PostgreSQL delivers every NOTIFY to a connected listener, and the listener wakes the
          // feed after reconnecting: a slow poll only guards (idle CPU stays low). Where NOTIFYs
          // cannot arrive (a pooler in transaction mode), the log is polled instead.
          useFactory: (notifier: ChangeNotifier, db: Database): WakeupSource =>
            db.sessionFeatures.listen
              ? {
                  subscribe: (onWake: (revision?: string) => void) => notifier.listen((revision) => onWake(revision)),
                  complete: db.engine === 'pglite',
                  guardPollIntervalMs: POSTGRES_GUARD_POLL_MS,
                }
              : {
                  subscribe: async () => async () => undefined,
                  guardPollIntervalMs: POLLED_CHANGE_LOG_MS,
                  // No listener reconnects to tell of a failover: each poll asks which server answers.
                  serverInstance: () => serverInstance(db.sql),
                },
          inject: [CHANGE_NOTIFIER, DATABASE],
        },
        {
          provide: COMPACTOR,
          useFactory: (store: ObjectStore) => new Compactor(store, settings.historyWindowSeconds * 1000),
          inject: [OBJECT_STORE],
        },
        ChangeFeedService,
        {
          provide: CurrentRevision,
          // The embedded store has one writer, this process: what it committed is the store's revision.
          useFactory: (db: Database, store: ObjectStore, feed: ChangeFeedService) =>
            new CurrentRevision(
              revisionReadWithin(() => store.currentRevision()),
              db.engine === 'pglite' ? () => feed.committedRevision() : undefined,
            ),
          inject: [DATABASE, OBJECT_STORE, ChangeFeedService],
        },
        SharedInformerFactory,
        {
          provide: SERVING_STORE,
          // --watch-cache: reads served from the informers' memory (kube's watch cache), else the store.
          useFactory: (store: ObjectStore, informers: SharedInformerFactory, revision: CurrentRevision, options?: ServerOptions): ObjectStore =>
            options?.watchCache === false
              ? store
              : new CachingStore({
                  store,
                  informerFor: (resource) => informers.informerFor(resource),
                  currentRevision: (arrivedAt) => revision.since(arrivedAt),
                }),
          inject: [OBJECT_STORE, SharedInformerFactory, CurrentRevision, { token: SERVER_OPTIONS, optional: true }],
        },
        StorageLifecycle,
        StoredObjectsMetric,
      ],
      exports: [DATABASE, DataSource, OBJECT_STORE, SERVING_STORE, CHANGE_NOTIFIER, CHANGE_WAKEUPS, ChangeFeedService, CurrentRevision, SharedInformerFactory],
    };
  }
}
