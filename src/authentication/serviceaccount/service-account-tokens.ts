import { KeyObject, randomUUID } from 'node:crypto';
import { signedWith, tooShortRsaKey, TokenRejected, UnverifiedJwt, unverifiedJwt } from '../strategy/jwt-method';
import { loadJose, Jose } from './jose';
import { SigningKey, VerificationKey } from './keys';
import {
  LEGACY_ISSUER,
  LEGACY_NAMESPACE_CLAIM,
  LEGACY_SECRET_NAME_CLAIM,
  LEGACY_SERVICE_ACCOUNT_NAME_CLAIM,
  LEGACY_SERVICE_ACCOUNT_UID_CLAIM,
  ObjectRef,
  PRIVATE_CLAIM,
  PrivateClaims,
  serviceAccountUsername,
  ServiceAccountClaims,
} from './token-claims';

/** What the service-account token issuer and authenticator run with, settled at start. */
export interface ServiceAccountTokenSettings {
  /** --service-account-issuer: the first issues tokens; every one is accepted. */
  issuers: string[];
  /** --api-audiences (default: the issuers). */
  apiAudiences: string[];
  signing: SigningKey;
  /** --service-account-key-file (default: the signing key). */
  verification: VerificationKey[];
  /** --service-account-max-token-expiration in seconds; 0: no cap. */
  maxExpirationSeconds: number;
  /** --service-account-lookup */
  lookup: boolean;
  /** --service-account-jwks-uri */
  jwksUri?: string;
  /** The CA that signs the serving certificate: the `ca.crt` of legacy token Secrets. */
  caCertPem: string;
}

export const SERVICE_ACCOUNT_TOKEN_SETTINGS = Symbol('SERVICE_ACCOUNT_TOKEN_SETTINGS');

/** Only asymmetric signatures are ever accepted (never `none`, never an HMAC with a public key as secret). */
export const SERVICE_ACCOUNT_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'ES384', 'ES512'];

/** go-jose's default leeway for exp and nbf, which kube's validator uses. */
export const CLOCK_LEEWAY_SECONDS = 60;

/** A verified token's claims, or a refusal (a token of ours that is bad). */
type TokenVerdict = { kind: 'claims'; claims: ServiceAccountClaims } | { kind: 'fail'; reason: string };

export interface TokenSpec {
  namespace: string;
  serviceAccount: ObjectRef;
  audiences: string[];
  expirationSeconds: number;
  bound?: { kind: 'Pod' | 'Secret' | 'Node'; ref: ObjectRef };
}

type CryptoKeyLike = Awaited<ReturnType<Jose['importSPKI']>>;

/**
 * The JWTs of service accounts (kube's pkg/serviceaccount): issued with `jose`; verified by
 * passport-jwt in the service-account method, with the keys and claim checks given here.
 */
export class ServiceAccountTokens {
  private jose!: Jose;
  private signingKey!: CryptoKeyLike;
  private verificationKeys: Array<{ alg: string; kid: string; key: CryptoKeyLike }> = [];
  private readonly issuers: Set<string>;

  constructor(readonly settings: ServiceAccountTokenSettings) {
    this.issuers = new Set(settings.issuers);
  }

  /** Loads the library and imports the keys once; called at start. */
  async init(): Promise<this> {
    this.jose = await loadJose();
    const { signing } = this.settings;
    this.signingKey = await this.jose.importPKCS8(signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), signing.alg);
    this.verificationKeys = await Promise.all(
      this.settings.verification.map(async (k) => ({
        alg: k.alg,
        kid: k.kid,
        key: await this.jose.importSPKI(k.key.export({ type: 'spki', format: 'pem' }).toString(), k.alg, { extractable: true }),
      })),
    );
    return this;
  }

  get issuer(): string {
    return this.settings.issuers[0];
  }

  /** A bound token (TokenRequest); returns it with its expiry (seconds since the epoch). */
  async issue(spec: TokenSpec): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = now + spec.expirationSeconds;
    const privateClaims: PrivateClaims = { namespace: spec.namespace, serviceaccount: spec.serviceAccount };
    if (spec.bound?.kind === 'Pod') privateClaims.pod = spec.bound.ref;
    if (spec.bound?.kind === 'Secret') privateClaims.secret = spec.bound.ref;
    if (spec.bound?.kind === 'Node') privateClaims.node = spec.bound.ref;
    const token = await new this.jose.SignJWT({ [PRIVATE_CLAIM]: privateClaims })
      .setProtectedHeader({ alg: this.settings.signing.alg, kid: this.settings.signing.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(spec.namespace, spec.serviceAccount.name))
      .setAudience(spec.audiences)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(expiresAt)
      .setJti(randomUUID())
      .sign(this.signingKey);
    return { token, expiresAt };
  }

  /** A legacy token for a Secret of type service-account-token: no expiry, no audience. */
  async issueLegacy(namespace: string, serviceAccount: ObjectRef, secretName: string): Promise<string> {
    return new this.jose.SignJWT({
      [LEGACY_NAMESPACE_CLAIM]: namespace,
      [LEGACY_SECRET_NAME_CLAIM]: secretName,
      [LEGACY_SERVICE_ACCOUNT_NAME_CLAIM]: serviceAccount.name,
      [LEGACY_SERVICE_ACCOUNT_UID_CLAIM]: serviceAccount.uid,
    })
      .setProtectedHeader({ alg: this.settings.signing.alg, kid: this.settings.signing.kid })
      .setIssuer(LEGACY_ISSUER)
      .setSubject(serviceAccountUsername(namespace, serviceAccount.name))
      .sign(this.signingKey);
  }

  /**
   * kube's JWT token authenticator routes by issuer: a token that is no JWT or names another
   * issuer is not ours (undefined: the method passes); one of ours comes back decoded, unverified.
   */
  ours(token: string): UnverifiedJwt | undefined {
    const jwt = unverifiedJwt(token);
    const iss = jwt?.claims.iss;
    return jwt && (iss === LEGACY_ISSUER || (typeof iss === 'string' && this.issuers.has(iss))) ? jwt : undefined;
  }

  /**
   * The key a token of ours is verified with: one of the keys of its algorithm (only
   * asymmetric ones), the one its key id names, else the one that made its signature.
   */
  verificationKey(header: UnverifiedJwt['header'], token: string): KeyObject {
    const alg = header.alg;
    if (typeof alg !== 'string' || !SERVICE_ACCOUNT_ALGORITHMS.includes(alg)) throw new TokenRejected('invalid signature algorithm');
    // jose's header checks, which the tokens were verified with: no extension it does not know.
    if (header.crit !== undefined) throw new TokenRejected('invalid token');
    const candidates = this.settings.verification.filter((k) => k.alg === alg);
    const named = candidates.find((k) => k.kid === header.kid);
    const key = named ?? (candidates.length > 1 ? candidates.find((k) => signedWith(token, alg, k.key)) : undefined) ?? candidates[0];
    if (!key) throw new TokenRejected('invalid signature');
    if (tooShortRsaKey(alg, key.key)) throw new TokenRejected('invalid token');
    return key.key;
  }

  /** A verified token's claims, as the kind of token it is (legacy or bound) has them; TokenRejected when they are not a service account's. */
  claims(payload: Record<string, unknown>, audiences: readonly string[]): ServiceAccountClaims {
    // jose checked that `iat`, when given, is a time, as `exp` and `nbf`.
    if (payload.iat !== undefined && typeof payload.iat !== 'number') throw new TokenRejected('service account token is not valid yet');
    const verdict = payload.iss === LEGACY_ISSUER ? this.legacyClaims(payload) : this.boundClaims(payload, audiences);
    if (verdict.kind === 'fail') throw new TokenRejected(verdict.reason);
    return verdict.claims;
  }

  private boundClaims(payload: Record<string, unknown>, audiences: readonly string[]): TokenVerdict {
    if (typeof payload.exp !== 'number') return { kind: 'fail', reason: 'service account token has no expiry' };
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    if (!tokenAudiences.some((a) => audiences.includes(a as string))) return { kind: 'fail', reason: 'token audiences are invalid for the target audiences' };
    const claims = payload[PRIVATE_CLAIM] as Partial<PrivateClaims> | undefined;
    const ref = (value: unknown): ObjectRef | undefined => {
      if (!value || typeof value !== 'object') return undefined;
      const { name, uid } = value as Record<string, unknown>;
      return typeof name === 'string' && name ? { name, uid: typeof uid === 'string' ? uid : '' } : undefined;
    };
    const serviceAccount = ref(claims?.serviceaccount);
    if (!claims || typeof claims.namespace !== 'string' || !claims.namespace || !serviceAccount) {
      return { kind: 'fail', reason: 'service account token claims are incomplete' };
    }
    if (payload.sub !== serviceAccountUsername(claims.namespace, serviceAccount.name)) return { kind: 'fail', reason: 'service account token subject does not match' };
    const result: ServiceAccountClaims = { namespace: claims.namespace, serviceAccount, expiresAt: payload.exp };
    const pod = ref(claims.pod);
    const secret = ref(claims.secret);
    const node = ref(claims.node);
    if (pod) result.pod = pod;
    if (secret) result.secret = secret;
    if (node) result.node = node;
    if (typeof payload.jti === 'string' && payload.jti) result.jti = payload.jti;
    return { kind: 'claims', claims: result };
  }

  private legacyClaims(payload: Record<string, unknown>): TokenVerdict {
    const text = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : '');
    const namespace = text(LEGACY_NAMESPACE_CLAIM);
    const name = text(LEGACY_SERVICE_ACCOUNT_NAME_CLAIM);
    const uid = text(LEGACY_SERVICE_ACCOUNT_UID_CLAIM);
    const secret = text(LEGACY_SECRET_NAME_CLAIM);
    if (!namespace || !name || !uid || !secret) return { kind: 'fail', reason: 'service account token claims are incomplete' };
    if (payload.sub !== serviceAccountUsername(namespace, name)) return { kind: 'fail', reason: 'service account token subject does not match' };
    return { kind: 'claims', claims: { namespace, serviceAccount: { name, uid }, legacySecret: secret } };
  }

  /** The public keys as a JWK Set, each with kube's key id (the discovery document's keys). */
  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    const seen = new Set<string>();
    const keys: Array<Record<string, unknown>> = [];
    for (const k of this.verificationKeys) {
      if (seen.has(k.kid)) continue;
      seen.add(k.kid);
      const jwk = (await this.jose.exportJWK(k.key)) as Record<string, unknown>;
      keys.push({ use: 'sig', kty: jwk.kty, kid: k.kid, alg: k.alg, ...jwk });
    }
    return { keys };
  }

  /** The algorithms the verification keys sign with (discovery's id_token_signing_alg_values_supported). */
  algorithms(): string[] {
    return [...new Set(this.settings.verification.map((k) => k.alg))].sort();
  }
}
