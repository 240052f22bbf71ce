import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ServiceAccountTokens } from '../authentication/serviceaccount/service-account-tokens';

/** kube's discovery path for the JWKS, relative to the issuer. */
export const JWKS_PATH = '/openid/v1/jwks';

/**
 * Service-account issuer discovery (kube's ServiceAccountIssuerDiscovery): the OpenID
 * provider configuration and the key set that verify this server's tokens, so another
 * party can check them without calling the server per token. Not public: the default
 * ClusterRole system:service-account-issuer-discovery grants them to every service account.
 */
@Controller()
export class IssuerDiscoveryController {
  private configuration?: Buffer;
  private keySet?: Buffer;

  constructor(@Inject(ServiceAccountTokens) private readonly tokens: ServiceAccountTokens) {}

  @Get('.well-known/openid-configuration')
  openidConfiguration(@Res() res: Response): void {
    this.configuration ??= Buffer.from(
      JSON.stringify({
        issuer: this.tokens.issuer,
        jwks_uri: this.tokens.settings.jwksUri ?? `${this.tokens.issuer.replace(/\/+$/, '')}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: this.tokens.algorithms(),
      }),
    );
    send(res, 'application/json', this.configuration);
  }

  @Get('openid/v1/jwks')
  async jwks(@Res() res: Response): Promise<void> {
    this.keySet ??= Buffer.from(JSON.stringify(await this.tokens.jwks()));
    send(res, 'application/jwk-set+json', this.keySet);
  }
}

/** kube lets both be cached for an hour (keys change only with a restart). */
function send(res: Response, contentType: string, body: Buffer): void {
  res.status(200).setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.end(body);
}
