import { Inject, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Clock, CLOCK } from '../../apimachinery/clock';
import { AuthenticationModule } from '../authentication.module';
import { AUTHENTICATION_SETTINGS, AuthenticationSettings, Authenticator } from '../authenticator';
import { ServiceAccountTokens } from '../serviceaccount/service-account-tokens';
import { ServiceAccountAuthenticationModule } from '../serviceaccount/service-account-authentication.module';
import { WebhookTransport } from '../../webhook-client/webhook-transport';
import { TokenWebhookStrategy } from './token-webhook.strategy';

/**
 * --authentication-token-webhook-config-file: a remote service reviews bearer tokens, after
 * the local token methods (it imports theirs, so it registers last, as kube orders them).
 */
@Module({ imports: [AuthenticationModule, ServiceAccountAuthenticationModule] })
export class TokenWebhookModule implements OnModuleInit, OnModuleDestroy {
  private strategy?: TokenWebhookStrategy;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly serviceAccountTokens: ServiceAccountTokens,
    @Inject(AUTHENTICATION_SETTINGS) private readonly settings: AuthenticationSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const webhook = this.settings.tokenWebhook;
    if (!webhook) return;
    this.strategy = new TokenWebhookStrategy({
      transport: new WebhookTransport(webhook.connection),
      version: webhook.version,
      cacheTtlMs: webhook.cacheTtlMs,
      apiAudiences: this.serviceAccountTokens.settings.apiAudiences,
      clock: this.clock,
    });
    this.authenticator.register(this.strategy);
  }

  onModuleDestroy(): void {
    this.strategy?.close();
  }
}
