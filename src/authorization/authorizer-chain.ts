import { Inject, Injectable, Logger } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authorizer';
import { MODE_AUTHORIZERS, privilegedGroupAuthorizer } from './authorizers';

/**
 * The authorizer chain: system:masters first (before any mode, as kube does), then the
 * configured modes in order. The first Allow or Deny decides; all NoOpinion is a deny.
 * A plain service, so access reviews can ask it questions without an HTTP request.
 */
@Injectable()
export class AuthorizerChain {
  private readonly logger = new Logger('Authorization');
  readonly authorizers: Authorizer[];

  constructor(@Inject(SERVER_OPTIONS) options: ServerOptions) {
    this.authorizers = [privilegedGroupAuthorizer, ...options.authorizationModes.map((mode) => this.build(mode))];
    if (options.authorizationModes.includes('AlwaysAllow')) {
      this.logger.warn('AlwaysAllow authorization is on: every request is allowed, other modes cannot deny (insecure)');
    }
  }

  private build(mode: string): Authorizer {
    const factory = MODE_AUTHORIZERS[mode];
    if (!factory) throw new Error(`unknown authorization mode ${mode}`);
    return factory();
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const errors: string[] = [];
    for (const authorizer of this.authorizers) {
      const result = await authorizer.authorize(attrs);
      if (result.evaluationError) errors.push(result.evaluationError);
      if (result.decision !== 'NoOpinion') return { ...result, evaluationError: errors.join('; ') || undefined };
    }
    return { decision: 'NoOpinion', reason: '', evaluationError: errors.join('; ') || undefined };
  }
}
