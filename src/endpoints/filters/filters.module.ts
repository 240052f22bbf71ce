import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApiModule } from '../api.module';
import { AuthenticationModule } from '../../authentication/authentication.module';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { AuthenticationMiddleware } from './authentication.middleware';
import { AuthorizationGuard } from './authorization.guard';
import { ImpersonationMiddleware } from './impersonation.middleware';
import { MaxInflightMiddleware } from './max-inflight.middleware';
import { RequestAuditor } from './request-auditor';
import { RequestBodyMiddleware } from './request-body.middleware';
import { RequestInfoMiddleware } from './request-info.middleware';
import { RequestMetricsMiddleware } from './request-metrics.middleware';
import { RequestPipelineMiddleware } from './request-pipeline.middleware';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';
import { StatusExceptionFilter } from './status.filter';

/**
 * The stages every request passes (RequestPipelineMiddleware lists them all, in order): the
 * middleware stages, the global guard that authorizes every request and the one exception
 * filter that makes every error a Status.
 */
@Module({
  imports: [ApiModule, AuthenticationModule, AuthorizationModule],
  providers: [
    RequestAuditor,
    RequestInfoMiddleware,
    RequestMetricsMiddleware,
    RequestTimeoutMiddleware,
    AuthenticationMiddleware,
    ImpersonationMiddleware,
    MaxInflightMiddleware,
    RequestBodyMiddleware,
    RequestPipelineMiddleware,
    AuthorizationGuard,
    { provide: APP_FILTER, useClass: StatusExceptionFilter },
    { provide: APP_GUARD, useClass: AuthorizationGuard },
  ],
  exports: [RequestPipelineMiddleware],
})
export class FiltersModule {}
