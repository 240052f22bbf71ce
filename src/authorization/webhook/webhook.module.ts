import { Inject, Module } from '@nestjs/common';
import { Clock, CLOCK } from '../../apimachinery/clock';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizerFactories } from '../authorizer-factories';
import { WebhookConfiguration } from './webhook-configuration';
import { createWebhookAuthorizer } from './webhook-factory';

/**
 * The Webhook authorizer type. Its entries carry a validated `webhook` block: from
 * `--authorization-config`, or built from the `--authorization-webhook-*` flags.
 */
@Module({ imports: [AuthorizationModule] })
export class WebhookAuthorizationModule {
  constructor(factories: AuthorizerFactories, @Inject(SERVER_OPTIONS) options: ServerOptions, @Inject(CLOCK) clock: Clock) {
    factories.register('Webhook', (entry) => {
      const webhook = entry.config?.webhook as WebhookConfiguration | undefined;
      if (!webhook) throw new Error(`authorizer ${JSON.stringify(entry.name)} of type Webhook has no webhook configuration`);
      return createWebhookAuthorizer(entry.name, webhook, {
        withSelectors: options.featureGates.enabled('AuthorizeWithSelectors'),
        clock,
      });
    });
  }
}
