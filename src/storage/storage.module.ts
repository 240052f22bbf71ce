import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthChecks } from '../health/health-checks';
import { Compactor } from './compactor';
import { Database, openDatabase } from './database';
import { OBJECT_STORE, ObjectStore } from './object-store';
import { MvccStore } from './mvcc-store';

export const DATABASE = Symbol('DATABASE');
/** The wake-up source (LISTEN/NOTIFY) of the change feed. */
export const CHANGE_WAKEUPS = Symbol('CHANGE_WAKEUPS');
const COMPACTOR = Symbol('COMPACTOR');

export interface StorageSettings {
  databaseUrl?: string;
  dataDir: string;
  historyWindowSeconds: number;
}

/** Settings only tests use: a migrated template for the embedded store, a schema on PostgreSQL. */
export interface StorageTestHooks {
  templateDump?: Buffer;
  schema?: string;
}

/** Starts compaction once the app runs and closes the database last. */
@Injectable()
class StorageLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(COMPACTOR) private readonly compactor: Compactor,
    health: HealthChecks,
  ) {
    health.register('storage', ['livez', 'readyz'], async () => {
      await this.db.dataSource.query('SELECT 1');
    });
  }

  onApplicationBootstrap(): void {
    this.compactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.compactor.stop();
    await this.db.close();
  }
}

/** PostgreSQL or the embedded store, migrated, behind the ObjectStore interface. */
@Module({})
export class StorageModule {
  static forRoot(settings: StorageSettings, hooks: StorageTestHooks = {}): DynamicModule {
    return {
      module: StorageModule,
      global: true,
      providers: [
        {
          provide: DATABASE,
          useFactory: () => openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir, ...hooks }),
        },
        { provide: DataSource, useFactory: (db: Database) => db.dataSource, inject: [DATABASE] },
        { provide: OBJECT_STORE, useFactory: (ds: DataSource) => new MvccStore(ds), inject: [DataSource] },
        { provide: CHANGE_WAKEUPS, useFactory: (db: Database) => db.wakeups, inject: [DATABASE] },
        {
          provide: COMPACTOR,
          useFactory: (store: ObjectStore) => new Compactor(store, settings.historyWindowSeconds * 1000),
          inject: [OBJECT_STORE],
        },
        StorageLifecycle,
      ],
      exports: [DATABASE, DataSource, OBJECT_STORE, CHANGE_WAKEUPS],
    };
  }
}
