import { Module } from '@nestjs/common';
import { ResponseNegotiation } from './resources/response-negotiation';
import { ProtobufKindsCheck } from './protobuf-kinds.check';
import { DiscoveryController } from './discovery/discovery.controller';
import { DiscoveryService } from './discovery/discovery.service';
import { OpenApiController } from './discovery/openapi.controller';
import { OpenApiService } from './discovery/openapi.service';
import { OpenApiV2Controller } from './discovery/openapi-v2.controller';
import { OpenApiV2Service } from './discovery/openapi-v2.service';
import { ResourceRegistry } from './resources/registry';
import { AdmissionChain } from './resources/admission';
import { ADMISSION_PLUGINS } from '../config/flags';
import { GenericStorageFactory } from './resources/generic-storage.factory';
import { ResourceHandler } from './resources/resource-handler';
import { TargetResolver } from './resources/target-resolver';
import { ResourceRequestOptions } from './resources/resource-request-options';
import { ResourceRoutes } from './resources/resource-routes';
import { VersionController } from './discovery/version.controller';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { BOOKMARK_INTERVAL_MS } from './resources/generic-storage.factory';
import { ContinueTokenService } from './resources/continue-token.service';
import { DeprecatedApiNotice } from './resources/deprecated-api';
import { RuntimeConfigCheck } from './runtime-config.check';

/**
 * The generic API layer: the kind registry, the one route table of resource paths, discovery and
 * version. Feature modules import it to register kinds and admission plugins. Its generic
 * storages ask CREATE_PERMISSION_CHECK, which the server binds to the authorizer chain.
 */
@Module({
  // Resource paths are served by ResourceRoutes, which the request pipeline calls.
  controllers: [DiscoveryController, OpenApiController, OpenApiV2Controller, VersionController],
  providers: [
    ResourceRegistry,
    // The cross-cutting admission plugins, run in the one order ADMISSION_PLUGINS gives.
    { provide: AdmissionChain, useFactory: () => new AdmissionChain(ADMISSION_PLUGINS) },
    GenericStorageFactory,
    TargetResolver,
    ResourceHandler,
    DiscoveryService,
    OpenApiService,
    OpenApiV2Service,
    ContinueTokenService,
    ProtobufKindsCheck,
    RuntimeConfigCheck,
    // The Warning header, gauge and audit field of requests to deprecated API versions.
    DeprecatedApiNotice,
    // Content negotiation is decided before the handler runs, so a 406 costs nothing.
    ResponseNegotiation,
    // Negotiation, then write options (dryRun, fieldValidation, ...), parsed and checked once.
    ResourceRequestOptions,
    ResourceRoutes,
    {
      provide: BOOKMARK_INTERVAL_MS,
      useFactory: (options: ServerOptions) => options.bookmarkIntervalMs,
      inject: [SERVER_OPTIONS],
    },
  ],
  exports: [ResourceRegistry, AdmissionChain, GenericStorageFactory, ContinueTokenService, ResourceRoutes],
})
export class ApiModule {}
