import { Module } from '@nestjs/common';
import { ProtobufKindsCheck } from './protobuf-kinds.check';
import { DiscoveryController } from './discovery/discovery.controller';
import { DiscoveryService } from './discovery/discovery.service';
import { OpenApiController } from './discovery/openapi.controller';
import { OpenApiService } from './discovery/openapi.service';
import { OpenApiV2Controller } from './discovery/openapi-v2.controller';
import { OpenApiV2Service } from './discovery/openapi-v2.service';
import { ResourceHandler } from './handlers/resource-handler';
import { TargetResolver } from './request/target-resolver';
import { ResourceController } from './handlers/resource.controller';
import { ContentNegotiationPipe } from './handlers/content-negotiation.pipe';
import { WriteOptionsPipe } from './handlers/write-options.pipe';
import { ResourceOptionsPipe } from './handlers/resource-options.pipe';
import { VersionController } from './discovery/version.controller';
import { DeprecatedApiNotice } from './handlers/deprecated-api';
import { RuntimeConfigCheck } from './runtime-config.check';
import { RegistryModule } from '../registry/registry.module';

/**
 * The endpoints: the one controller of resource paths over the registry's kinds, discovery,
 * OpenAPI and version.
 */
@Module({
  imports: [RegistryModule],
  // The resource controller first: express tries routes in the order Nest registers them, and
  // resource requests are nearly all requests.
  controllers: [ResourceController, DiscoveryController, OpenApiController, OpenApiV2Controller, VersionController],
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
    // The resource controller's pipes, in order: negotiation (404 and 406 before any work), write options, read options.
    ContentNegotiationPipe,
    WriteOptionsPipe,
    ResourceOptionsPipe,
  ],
  exports: [RegistryModule],
})
export class ApiModule {}
