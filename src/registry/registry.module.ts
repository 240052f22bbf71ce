import { Module } from '@nestjs/common';
import { ADMISSION_PLUGINS, SERVER_OPTIONS, ServerOptions } from '../config/options';
import { ContinueTokenService } from './generic/continue-token.service';
import { BOOKMARK_INTERVAL_MS, GenericStorageFactory } from './generic/generic-storage.factory';
import { ResourceRegistry } from './resources/registry';
import { AdmissionChain } from './rest/admission';

/**
 * The registry layer: the kinds and their storages (the generic store for stored kinds),
 * the admission chain and continue tokens. Feature modules import it to register kinds and
 * admission plugins; the endpoints serve what it holds. Its generic storages ask
 * CREATE_PERMISSION_CHECK, which the server binds to the authorizer chain.
 */
@Module({
  providers: [
    ResourceRegistry,
    // The cross-cutting admission plugins, run in the one order ADMISSION_PLUGINS gives.
    { provide: AdmissionChain, useFactory: () => new AdmissionChain(ADMISSION_PLUGINS) },
    GenericStorageFactory,
    ContinueTokenService,
    {
      provide: BOOKMARK_INTERVAL_MS,
      useFactory: (options: ServerOptions) => options.bookmarkIntervalMs,
      inject: [SERVER_OPTIONS],
    },
  ],
  exports: [ResourceRegistry, AdmissionChain, GenericStorageFactory, ContinueTokenService],
})
export class RegistryModule {}
