import { Module } from '@nestjs/common';
import { ResponseNegotiation } from './handlers/response-negotiation';
import { ProtobufKindsCheck } from './protobuf-kinds.check';
import { DiscoveryController } from './discovery/discovery.controller';
import { DiscoveryService } from './discovery/discovery.service';
import { OpenApiController } from './discovery/openapi.controller';
import { OpenApiService } from './discovery/openapi.service';
import { OpenApiV2Controller } from './discovery/openapi-v2.controller';
import { OpenApiV2Service } from './discovery/openapi-v2.service';
import { ResourceHandler } from './handlers/resource-handler';
import { TargetResolver } from './handlers/target-resolver';
import { ResourceRequestOptions } from './handlers/resource-request-options';
import { ResourceRoutes } from './handlers/resource-routes';
import { VersionController } from './discovery/version.controller';
import { DeprecatedApiNotice } from './handlers/deprecated-api';
import { RuntimeConfigCheck } from './runtime-config.check';
import { RegistryModule } from '../registry/registry.module';

/**
 * The endpoints: the one route table of resource paths over the registry's kinds, discovery,
 * OpenAPI and version.
 */
@Module({
  imports: [RegistryModule],
  // Resource paths are served by ResourceRoutes, which the request pipeline calls.
  controllers: [DiscoveryController, OpenApiController, OpenApiV2Controller, VersionController],
  providers: [
    TargetResolver,
    ResourceHandler,
    DiscoveryService,
    OpenApiService,
    OpenApiV2Service,
    ProtobufKindsCheck,
    RuntimeConfigCheck,
    // The Warning header, gauge and audit field of requests to deprecated API versions.
    DeprecatedApiNotice,
    // Content negotiation is decided before the handler runs, so a 406 costs nothing.
    ResponseNegotiation,
    // Negotiation, then write options (dryRun, fieldValidation, ...), parsed and checked once.
    ResourceRequestOptions,
    ResourceRoutes,
  ],
  exports: [RegistryModule, ResourceRoutes],
})
export class ApiModule {}
