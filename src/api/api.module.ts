import { Global, Module } from '@nestjs/common';
import { DiscoveryController } from './discovery/discovery.controller';
import { DiscoveryService } from './discovery/discovery.service';
import { OpenApiController } from './discovery/openapi.controller';
import { OpenApiService } from './discovery/openapi.service';
import { ResourceRegistry } from './registry';
import { AdmissionChain } from './resources/admission';
import { GenericStorageFactory } from './resources/generic-storage.factory';
import { ResourceController } from './resources/resource.controller';
import { ResourceHandler } from './resources/resource-handler';
import { TargetResolver } from './resources/target-resolver';
import { VersionController } from './version.controller';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { BOOKMARK_INTERVAL_MS } from './resources/generic-storage.factory';
import { ContinueTokenService } from './resources/continue-token.service';
import { ChangeFeedService } from './watch/change-feed.service';

/**
 * The generic API layer: the kind registry, the one resource controller, discovery and
 * version. Global, so feature modules can register kinds and admission plugins.
 */
@Global()
@Module({
  controllers: [DiscoveryController, OpenApiController, VersionController, ResourceController],
  providers: [
    ResourceRegistry,
    AdmissionChain,
    GenericStorageFactory,
    TargetResolver,
    ResourceHandler,
    DiscoveryService,
    OpenApiService,
    ChangeFeedService,
    ContinueTokenService,
    {
      provide: BOOKMARK_INTERVAL_MS,
      useFactory: (options: ServerOptions) => options.bookmarkIntervalMs,
      inject: [SERVER_OPTIONS],
    },
  ],
  exports: [ResourceRegistry, AdmissionChain, GenericStorageFactory, ChangeFeedService],
})
export class ApiModule {}
