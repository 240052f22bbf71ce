import { createHmac, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certificates';

type Alg = 'RS256' | 'ES256' | 'PS256';

interface SigningKey {
  kid: string;
  alg: Alg;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface SignOptions {
  /** Sign with this key instead of the current one (an old key after rotation). */
  key?: SigningKey;
  /** Header overrides (kid, typ, alg). */
  header?: Record<string, unknown>;
}

/**
 * A local OpenID Connect provider over HTTPS (a CA of its own): discovery at
 * `<issuer>/.well-known/openid-configuration` (and at `discoveryUrl`), the key set at
 * `<origin>/keys`. Signs ID tokens with its current key; can rotate keys, serve another
 * `issuer` in discovery, or serve a key set without the current key.
 */
export class TestOidcProvider {
  readonly keys: SigningKey[] = [];
  /** What discovery says `issuer` is (tests set another value). */
  servedIssuer: string;
  /** Requests per path (discovery, keys). */
  readonly hits = new Map<string, number>();
  /** The served key set answers 503 while set. */
  down = false;

  private constructor(
    private readonly server: https.Server,
    readonly origin: string,
    readonly issuer: string,
    readonly caPem: string,
  ) {
    this.servedIssuer = issuer;
  }

  /** `path` puts the issuer below the origin (`/tenant-a`), so several issuers can share a host. */
  static async start(path = ''): Promise<TestOidcProvider> {
    const ca = createCertificateAuthority();
    const serving = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');
    let provider: TestOidcProvider | undefined;
    const server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => provider!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    provider = new TestOidcProvider(server, origin, `${origin}${path}`, ca.certPem);
    provider.rotate();
    return provider;
  }

  /** A discovery location other than the issuer's (for `discoveryURL`). */
  get discoveryUrl(): string {
    return `${this.origin}/discovery/openid-configuration`;
  }

  get current(): SigningKey {
    return this.keys[this.keys.length - 1];
  }

  /** A new signing key, published next to the old ones; returns it. */
  rotate(alg: Alg = 'RS256'): SigningKey {
    const key = TestOidcProvider.unpublishedKey(alg);
    this.keys.push(key);
    return key;
  }

  /** A key the provider does not publish (sign with it through `options.key`). */
  static unpublishedKey(alg: Alg = 'RS256'): SigningKey {
    const pair = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { kid: randomBytes(6).toString('hex'), alg, ...pair };
  }

  /** Claims a valid token has: issuer, audience, subject, issued now, expiring in an hour. */
  claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return { iss: this.issuer, aud: 'platform', sub: 'alice-id', iat: now, exp: now + 3600, ...overrides };
  }

  /** An ID token with `claims` merged over the defaults (a claim set to undefined is left out). */
  sign(overrides: Record<string, unknown> = {}, options: SignOptions = {}): string {
    const key = options.key ?? this.current;
    const header = { alg: key.alg, typ: 'JWT', kid: key.kid, ...options.header };
    const input = `${b64(header)}.${b64(this.claims(overrides))}`;
    const signature =
      key.alg === 'ES256'
        ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
        : key.alg === 'PS256'
          ? sign('sha256', Buffer.from(input), { key: key.privateKey, padding: 6, saltLength: 32 })
          : sign('sha256', Buffer.from(input), key.privateKey);
    return `${input}.${signature.toString('base64url')}`;
  }

  /** Algorithm confusion: HS256 with the provider's public key (PEM) as the HMAC secret. */
  signHmacWithPublicKey(overrides: Record<string, unknown> = {}): string {
    const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: this.current.kid })}.${b64(this.claims(overrides))}`;
    const secret = this.current.publicKey.export({ type: 'spki', format: 'pem' });
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  }

  /** An unsecured token (`alg: none`, no signature). */
  unsigned(overrides: Record<string, unknown> = {}): string {
    return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(this.claims(overrides))}.`;
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const issuerPath = this.issuer.slice(this.origin.length);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === `${issuerPath}/.well-known/openid-configuration` || path === '/discovery/openid-configuration') {
      return json(200, {
        issuer: this.servedIssuer,
        jwks_uri: `${this.origin}/keys`,
        authorization_endpoint: `${this.origin}/auth`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256', 'PS256'],
      });
    }
    if (path === '/keys') {
      if (this.down) return json(503, { error: 'unavailable' });
      const keys = this.keys
        .map((k) => ({ ...(k.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: k.kid, alg: k.alg, use: 'sig' }));
      return json(200, { keys });
    }
    json(404, { error: 'not found' });
  }
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
