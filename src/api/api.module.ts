import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { NegotiationInterceptor } from './codec/negotiation.interceptor';
import { ProtobufKindsCheck } from './codec/protobuf-kinds.check';
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
import { WriteOptionsInterceptor } from './resources/write-options.interceptor';
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
    ProtobufKindsCheck,
    // Content negotiation is decided before the handler runs, so a 406 costs nothing.
    { provide: APP_INTERCEPTOR, useClass: NegotiationInterceptor },
    // Write options (dryRun, fieldValidation, ...) are parsed and checked once, after negotiation.
    { provide: APP_INTERCEPTOR, useClass: WriteOptionsInterceptor },
    {
      provide: BOOKMARK_INTERVAL_MS,
      useFactory: (options: ServerOptions) => options.bookmarkIntervalMs,
      inject: [SERVER_OPTIONS],
    },
  ],
  exports: [ResourceRegistry, AdmissionChain, GenericStorageFactory, ChangeFeedService],
})
export class ApiModule {}
