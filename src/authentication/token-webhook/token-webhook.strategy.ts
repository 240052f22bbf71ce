import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { UserInfo } from '../../apimachinery/user-info';
import { AuthenticationStrategy, CredentialRequest } from '../strategy/authentication-strategy';
import { bearerToken } from '../strategy/bearer-token';
import { Clock } from '../../apimachinery/clock';
import { TtlCache } from '../../apimachinery/ttl-cache';
import { WebhookTransport } from '../../webhook-client/webhook-transport';
import { parseTokenReviewResponse, tokenReviewBody, TokenReviewVersionName } from './token-review';

/** kube's webhook token authenticator gives a review this long, retries included. */
export const TOKEN_WEBHOOK_TIMEOUT_MS = 10_000;
const CACHE_CAPACITY = 10_000;

/** A settled answer: an identity for some audiences, or a refusal (both cached for the TTL). */
type Verdict = { user: UserInfo; audiences: string[] } | { refused: string };

export interface TokenWebhookStrategyOptions {
  transport: Pick<WebhookTransport, 'post' | 'close'>;
  version: TokenReviewVersionName;
  /** --authentication-token-webhook-cache-ttl, for accepted and refused tokens alike (0: no cache). */
  cacheTtlMs: number;
  /** The API's audiences: asked for when a request names none, assumed when the webhook names none. */
  apiAudiences: string[];
  timeoutMs?: number;
  /** The clock of the answer cache (tests move it). */
  clock?: Clock;
}

/** The requested audiences the webhook granted (its status names them, or it means the API's own). */
function grantedAudiences(wanted: readonly string[], answered: readonly string[], implicit: readonly string[]): string[] {
  const granted = answered.length ? answered : implicit;
  return wanted.filter((audience) => granted.includes(audience));
}

/**
 * Bearer tokens reviewed by a remote service (kube's webhook token authenticator behind its
 * token cache): a TokenReview per token, answers kept by the token's SHA-256 (with the
 * audiences) for the TTL. A failed call refuses the token for this request only; it is
 * logged without the token and not cached.
 */
export class TokenWebhookStrategy extends AuthenticationStrategy {
  readonly name = 'webhook-token';
  private readonly logger = new Logger('TokenWebhookAuthenticator');
  private readonly cache: TtlCache<Verdict>;

  constructor(private readonly options: TokenWebhookStrategyOptions) {
    super();
    this.cache = new TtlCache(CACHE_CAPACITY, options.clock);
  }

  authenticate(req: CredentialRequest): void {
    const token = bearerToken(req);
    if (token === undefined) return this.pass();
    const wanted = req.audiences ?? this.options.apiAudiences;
    this.review(token, wanted).then(
      (verdict) => {
        if ('refused' in verdict) return this.fail(verdict.refused, 401);
        this.success({ ...verdict.user, groups: [...verdict.user.groups] }, { audiences: verdict.audiences });
      },
      (err: Error) => {
        this.logger.error(`Failed to make webhook authenticator request: ${err.message}`);
        this.fail(err.message, 401);
      },
    );
  }

  close(): void {
    this.cache.clear();
    this.options.transport.close();
  }

  private async review(token: string, wanted: string[]): Promise<Verdict> {
    const key = createHash('sha256').update(JSON.stringify([wanted, token])).digest('base64');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const body = JSON.stringify(tokenReviewBody(token, wanted, this.options.version));
    const status = await this.options.transport.post(body, this.options.timeoutMs ?? TOKEN_WEBHOOK_TIMEOUT_MS, (text) => parseTokenReviewResponse(text, this.options.version));
    const audiences = grantedAudiences(wanted, status.audiences, this.options.apiAudiences);
    let verdict: Verdict;
    if (wanted.length && !audiences.length) verdict = { refused: 'token audiences not accepted' };
    else if (!status.authenticated) {
      // kube: an error the webhook states makes a failed review, which is not remembered.
      if (status.error) return { refused: status.error };
      verdict = { refused: 'token refused by the webhook' };
    } else verdict = { user: status.user!, audiences };
    this.cache.set(key, verdict, this.options.cacheTtlMs);
    return verdict;
  }
}
