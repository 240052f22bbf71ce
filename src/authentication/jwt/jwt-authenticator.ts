import { CelEvaluationError } from '../../cel';
import { UserInfo } from '../../apimachinery/user-info';
import { issuerHash, recordJwtAuthentication } from '../../metrics/jwt-authenticator-metrics';
import { loadJose } from '../serviceaccount/jose';
import { evaluateExpression, stringList, userVariable } from './expressions';
import { IssuerKeys } from './issuer-keys';
import { JWTAuthenticator } from './types';
import { CompiledExpressions } from './validation';

/** go-oidc lets `nbf` be this far in the future (clock skew); we allow the same for `iat`. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A token of this authenticator's issuer that does not authenticate; the message is kube's. */
export class TokenRejected extends Error {}

export interface AuthenticatedToken {
  user: UserInfo;
  /** The token's `exp`, in ms. */
  expiresAt: number;
}

type Claims = Record<string, unknown>;

const goList = (values: readonly unknown[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** The payload of a compact JWS without verifying it (to pick the authenticator by `iss`); undefined if it is none. */
export function unverifiedClaims(token: string): Claims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One `jwt` entry of the authentication configuration (kube's oidc authenticator): verifies
 * the signature with the issuer's keys and the allowed algorithms, the issuer, audiences and
 * times, then maps claims to a user (claims or CEL) and applies the validation rules.
 */
export class JwtAuthenticator {
  private readonly audiences: ReadonlySet<string>;
  private readonly issuerLabel: string;
  private readonly requiredClaims: Array<{ claim: string; value: string }>;

  constructor(
    readonly config: JWTAuthenticator,
    private readonly compiled: CompiledExpressions,
    private readonly algorithms: string[],
    readonly keys: IssuerKeys,
  ) {
    this.audiences = new Set(config.issuer.audiences);
    this.issuerLabel = issuerHash(config.issuer.url);
    this.requiredClaims = config.claimValidationRules.filter((r) => r.claim).map((r) => ({ claim: r.claim, value: r.requiredValue }));
  }

  get issuer(): string {
    return this.config.issuer.url;
  }

  async authenticate(token: string): Promise<AuthenticatedToken> {
    const started = performance.now();
    try {
      const result = await this.check(token);
      recordJwtAuthentication(this.issuerLabel, 'success', (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      recordJwtAuthentication(this.issuerLabel, 'failure', (performance.now() - started) / 1000);
      throw err;
    }
  }

  private async check(token: string): Promise<AuthenticatedToken> {
    const claims = await this.verify(token);
    const user: UserInfo = { username: this.username(claims), groups: this.groups(claims) };
    const uid = this.uid(claims);
    if (uid) user.uid = uid;
    const extra = this.extra(claims);
    if (Object.keys(extra).length) user.extra = extra;
    for (const { claim, value } of this.requiredClaims) {
      if (!(claim in claims)) throw new TokenRejected(`oidc: required claim ${claim} not present in ID token`);
      const actual = claims[claim];
      if (typeof actual !== 'string') throw new TokenRejected(`oidc: parse claim ${claim}: json: cannot unmarshal ${typeof actual} into Go value of type string`);
      if (actual !== value) throw new TokenRejected(`oidc: required claim ${claim} value does not match. Got = ${actual}, want = ${value}`);
    }
    for (const rule of this.compiled.claimValidation) {
      this.checkRule(rule, { claims }, 'oidc: error evaluating claim validation expression');
    }
    if (this.compiled.userValidation.length) {
      const variables = { user: userVariable(user) };
      for (const rule of this.compiled.userValidation) this.checkRule(rule, variables, 'oidc: error evaluating user info validation rule');
    }
    return { user, expiresAt: (claims.exp as number) * 1000 };
  }

  /** Signature (with a key refetch when the token names an unknown key), then go-oidc's claim checks. */
  private async verify(token: string): Promise<Claims> {
    const jose = await loadJose();
    let payload: Uint8Array | undefined;
    for (let attempt = 0; payload === undefined; attempt++) {
      const resolver = await this.keys.current();
      if (!resolver) throw new TokenRejected(`oidc: authenticator for issuer ${JSON.stringify(this.issuer)} is not initialized: ${this.keys.loadProblem}`);
      try {
        payload = (await jose.compactVerify(token, resolver, { algorithms: this.algorithms })).payload;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'ERR_JWKS_NO_MATCHING_KEY' && attempt === 0) {
          await this.keys.refreshForUnknownKey();
          continue;
        }
        if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') {
          throw new TokenRejected(`oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${goList(this.algorithms)}`);
        }
        throw new TokenRejected(`oidc: verify token: failed to verify signature: ${(err as Error).message}`);
      }
    }
    let claims: Claims;
    try {
      claims = JSON.parse(new TextDecoder().decode(payload)) as Claims;
    } catch (err) {
      throw new TokenRejected(`oidc: verify token: oidc: failed to unmarshal claims: ${(err as Error).message}`);
    }
    if (claims.iss !== this.issuer) {
      throw new TokenRejected(`oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(this.issuer)} got ${JSON.stringify(claims.iss)}`);
    }
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.some((a) => typeof a === 'string' && this.audiences.has(a))) {
      throw new TokenRejected(`oidc: verify token: oidc: expected audience in ${goList([...this.audiences].sort())} got ${goList(aud)}`);
    }
    const now = Date.now();
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < now) {
      const expiry = typeof claims.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : 'none';
      throw new TokenRejected(`oidc: verify token: oidc: token is expired (Token Expiry: ${expiry})`);
    }
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 > now + CLOCK_SKEW_MS) {
      throw new TokenRejected(`oidc: verify token: oidc: current time ${new Date(now).toISOString()} before the nbf (not before) time: ${new Date(claims.nbf * 1000).toISOString()}`);
    }
    if (typeof claims.iat === 'number' && claims.iat * 1000 > now + CLOCK_SKEW_MS) {
      throw new TokenRejected(`oidc: verify token: oidc: issued at time ${new Date(claims.iat * 1000).toISOString()} is in the future`);
    }
    return claims;
  }

  private evaluate(what: string, program: NonNullable<CompiledExpressions['username']>, claims: Claims): unknown {
    try {
      return evaluateExpression(program, { claims });
    } catch (err) {
      if (err instanceof CelEvaluationError) throw new TokenRejected(`oidc: error evaluating ${what} claim expression: ${err.message}`);
      throw err;
    }
  }

  private username(claims: Claims): string {
    const mapping = this.config.claimMappings.username;
    if (this.compiled.username) {
      const value = this.evaluate('username', this.compiled.username, claims);
      if (typeof value !== 'string') throw new TokenRejected('oidc: error evaluating username claim expression: username claim expression must return a string');
      if (value === '') throw new TokenRejected('oidc: empty username via CEL expression is not allowed');
      return value;
    }
    const value = claims[mapping.claim];
    if (typeof value !== 'string') throw new TokenRejected(`oidc: parse username claims ${JSON.stringify(mapping.claim)}: ${value === undefined ? 'claim not present' : `json: cannot unmarshal ${typeof value} into Go value of type string`}`);
    if (mapping.claim === 'email' && 'email_verified' in claims) {
      if (typeof claims.email_verified !== 'boolean') throw new TokenRejected("oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool");
      if (!claims.email_verified) throw new TokenRejected('oidc: email not verified');
    }
    return (mapping.prefix ?? '') + value;
  }

  private groups(claims: Claims): string[] {
    const mapping = this.config.claimMappings.groups;
    if (mapping.claim && mapping.claim in claims) {
      const value = claims[mapping.claim];
      const groups = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((g) => typeof g === 'string') ? (value as string[]) : undefined;
      if (!groups) throw new TokenRejected(`oidc: parse groups claim ${JSON.stringify(mapping.claim)}: json: cannot unmarshal ${typeof value} into Go value of type string`);
      return groups.map((g) => (mapping.prefix ?? '') + g);
    }
    if (!this.compiled.groups) return [];
    const value = this.evaluate('group', this.compiled.groups, claims);
    try {
      return stringList(value, 'group');
    } catch (err) {
      throw new TokenRejected(`oidc: error evaluating group claim expression: ${(err as Error).message}`);
    }
  }

  private uid(claims: Claims): string {
    const mapping = this.config.claimMappings.uid;
    if (mapping.claim) {
      const value = claims[mapping.claim];
      if (typeof value !== 'string') throw new TokenRejected(`oidc: parse uid claim ${JSON.stringify(mapping.claim)}: ${value === undefined ? 'claim not present' : 'not a string'}`);
      return value;
    }
    if (!this.compiled.uid) return '';
    const value = this.evaluate('uid', this.compiled.uid, claims);
    if (typeof value !== 'string') throw new TokenRejected('oidc: error evaluating uid claim expression: uid claim expression must return a string');
    return value;
  }

  private extra(claims: Claims): Record<string, string[]> {
    const extra: Record<string, string[]> = {};
    for (const { key, program } of this.compiled.extra) {
      const value = this.evaluate('extra', program, claims);
      let values: string[];
      try {
        values = stringList(value, 'extra');
      } catch (err) {
        throw new TokenRejected(`oidc: error evaluating extra claim expression: ${program.expression}: ${(err as Error).message}`);
      }
      if (values.length) extra[key] = values;
    }
    return extra;
  }

  /** kube's checkValidationRulesEvaluation: each rule must be true. */
  private checkRule(rule: CompiledExpressions['claimValidation'][number], variables: Record<string, unknown>, context: string): void {
    let result: unknown;
    try {
      result = evaluateExpression(rule.program, variables);
    } catch (err) {
      if (err instanceof CelEvaluationError) throw new TokenRejected(`${context}: expression '${rule.program.expression}' resulted in error: ${err.message}`);
      throw err;
    }
    if (result !== true) {
      throw new TokenRejected(`${context}: validation expression '${rule.program.expression}' failed${rule.message ? `: ${rule.message}` : ''}`);
    }
  }
}
