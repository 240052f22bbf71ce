import { DynamicModule, Module } from '@nestjs/common';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { ApiModule } from '../endpoints/api.module';
import { FiltersModule } from '../endpoints/filters/filters.module';
import { CREATE_PERMISSION_CHECK } from '../registry/generic/generic-storage.factory';
import { UnknownPathModule } from '../endpoints/handlers/unknown-path.controller';
import { AuthenticationModule } from '../authentication/authentication.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { AuthorizationConfigModule } from '../authorization/config/authorization-config.module';
import { createPermissionCheck } from '../authorization/create-authorization';
import { AbacModule } from '../authorization/abac/abac.module';
import { WebhookAuthorizationModule } from '../authorization/webhook/webhook.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RbacAuthorizationModule } from '../authorization/rbac/rbac-authorization.module';
import { NodeAuthorizerModule } from '../authorization/node/node-authorizer.module';
import { SERVER_OPTIONS } from '../config/options';
import { CoreModule } from '../core/core.module';
import { HealthModule } from '../health/health.module';
import { OpenApiUiModule } from '../openapi-ui/openapi-ui.module';
import { AccessExplorerModule } from '../access-explorer/access-explorer.module';
import { RbacModule } from '../rbac/rbac.module';
import { ReviewsModule } from '../reviews/reviews.module';
import { ServiceAccountModule } from '../serviceaccount/serviceaccount.module';
import { BootstrapTokenModule } from '../authentication/bootstrap-token/bootstrap-token.module';
import { TokenWebhookModule } from '../authentication/token-webhook/token-webhook.module';
import { AuthenticationTrustModule } from '../authentication/authentication-trust.module';
import { ControllersModule } from '../controllers/controllers.module';
import { SERVICE_ACCOUNT_TOKEN_SETTINGS } from '../authentication/serviceaccount/service-account-tokens';
import { AccessModule } from '../access/access.module';
import { LeastPrivilegeModule } from '../access/least-privilege/least-privilege.module';
import { AccessRequestsModule } from '../access/requests/access-requests.module';
import { GuardrailsModule } from '../access/guardrails/guardrails.module';
import { EscalationPathsModule } from '../access/escalation-paths/escalation-paths.module';
import { AUTHENTICATION_SETTINGS } from '../authentication/authenticator';
import { JwtAuthenticationModule } from '../authentication/jwt/jwt-authentication.module';
import { STARTUP_JWT_AUTHENTICATION } from '../authentication/jwt/startup';
import { ABAC_POLICIES } from '../authorization/abac/abac.module';
import { STARTUP_AUTHORIZATION } from '../authorization/config/authorization-setup';
import type { ServerConfiguration } from './configuration';
import { AUDIT_SETTINGS } from '../audit/audit-settings';
import { Database } from '../storage/engine/database';
import { StorageModule } from '../storage/storage.module';

/** Everything the server consists of, wired for one loaded configuration and an open store. */
@Module({})
export class AppModule {
  static forRoot(configuration: ServerConfiguration, db: Database, clock: Clock = systemClock): DynamicModule {
    const { options } = configuration;
    const configured = [
      // Where every time-dependent decision reads the time (tests move it instead of waiting).
      { provide: CLOCK, useValue: clock },
      { provide: SERVER_OPTIONS, useValue: options },
      { provide: AUTHENTICATION_SETTINGS, useValue: configuration.authentication },
      { provide: STARTUP_JWT_AUTHENTICATION, useValue: configuration.jwtAuthentication },
      { provide: STARTUP_AUTHORIZATION, useValue: configuration.authorization },
      { provide: ABAC_POLICIES, useValue: configuration.abacPolicies },
      { provide: AUDIT_SETTINGS, useValue: configuration.audit },
      { provide: SERVICE_ACCOUNT_TOKEN_SETTINGS, useValue: configuration.serviceAccountTokens },
      // The generic storages' create check, answered by the authorizer chain (a layer above them).
      { provide: CREATE_PERMISSION_CHECK, useFactory: (chain: AuthorizerChain) => createPermissionCheck(chain), inject: [AuthorizerChain] },
    ];
    return {
      module: AppModule,
      global: true,
      imports: [
        StorageModule.forRoot(db, { historyWindowSeconds: options.historyWindowSeconds }),
        ApiModule,
        AuthorizationModule,
        // Before the feature modules, so the chain is built before their start-up work runs.
        AuthorizationConfigModule,
        CoreModule,
        RbacModule,
        ReviewsModule,
        AccessModule,
        LeastPrivilegeModule,
        AccessRequestsModule,
        GuardrailsModule,
        EscalationPathsModule,
        AuthenticationModule,
        JwtAuthenticationModule,
        BootstrapTokenModule,
        ServiceAccountModule,
        TokenWebhookModule,
        AuthenticationTrustModule,
        ControllersModule,
        RbacAuthorizationModule,
        NodeAuthorizerModule,
        AbacModule,
        WebhookAuthorizationModule,
        MetricsModule,
        HealthModule,
        FiltersModule,
        OpenApiUiModule,
        AccessExplorerModule,
        // Last: its catch-all route answers what no route above serves.
        UnknownPathModule,
      ],
      providers: configured,
      exports: configured.map((p) => p.provide),
    };
  }
}
