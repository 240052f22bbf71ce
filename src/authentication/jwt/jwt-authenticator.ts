import { KeyObject } from 'node:crypto';
import { CelEvaluationError } from '../../cel';
import { UserInfo } from '../../apimachinery/user-info';
import { issuerHash, recordJwtAuthentication } from '../../metrics/jwt-authenticator-metrics';
import { jwtVerifierError, tooShortRsaKey, TokenRejected, unverifiedClaims } from '../strategy/jwt-method';
import { evaluateExpression, stringList, userVariable } from './expressions';
import { IssuerKeys } from './issuer-keys';
import { JwtStrategy } from './jwt.strategy';
import { JWTAuthenticator } from './types';
import { CompiledExpressions } from './validation';

/** go-oidc lets `nbf` be this far in the future (clock skew); we allow the same for `iat`. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A token of this authenticator's issuer that does not authenticate; the message is kube's. */
export { TokenRejected };

export interface AuthenticatedToken {
  user: UserInfo;
  /** The token's `exp`, in ms. */
  expiresAt: number;
}

type Claims = Record<string, unknown>;

const goList = (values: readonly unknown[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/**
 * One `jwt` entry of the authentication configuration (kube's oidc authenticator): verifies
 * the signature with the issuer's keys and the allowed algorithms, the issuer, audiences and
 * times, then maps claims to a user (claims or CEL) and applies the validation rules.
 */
export class JwtAuthenticator {
  private readonly audiences: ReadonlySet<string>;
  private readonly issuerLabel: string;
  private readonly requiredClaims: Array<{ claim: string; value: string }>;
  /** This authenticator as a method of its own, for `authenticate`. */
  private alone: JwtStrategy | undefined;

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

  /**
   * A bare token through passport-jwt, this authenticator alone as the union's `jwt` method
   * runs it for a request: the user, and the token's expiry; TokenRejected when it does not
   * authenticate.
   */
  async authenticate(token: string): Promise<AuthenticatedToken> {
    if (!this.alone) {
      this.alone = new JwtStrategy();
      this.alone.replace([this]);
    }
    const outcome = await this.alone.verify(token);
    if (outcome && 'rejected' in outcome) throw new TokenRejected(outcome.rejected);
    if (outcome) return outcome;
    const claims = unverifiedClaims(token);
    if (!claims) throw this.signatureFailure('Invalid Compact JWS');
    throw new TokenRejected(`oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(this.issuer)} got ${JSON.stringify(claims.iss)}`);
  }

  /** What verifying a token of this issuer took, by outcome (kube's jwt authenticator metrics). */
  record(result: 'success' | 'failure', started: number): void {
    recordJwtAuthentication(this.issuerLabel, result, (performance.now() - started) / 1000);
  }

  /**
   * The key of the issuer's key set a token is verified with (jose's key set: by key id and
   * algorithm, the set fetched again once when the token names a key that is not in it),
   * after the header checks jose makes; TokenRejected with kube's message when there is none.
   */
  async key(token: string): Promise<KeyObject> {
    for (let attempt = 0; ; attempt++) {
      const resolver = await this.keys.current();
      if (!resolver) throw new TokenRejected(`oidc: authenticator for issuer ${JSON.stringify(this.issuer)} is not initialized: ${this.keys.loadProblem}`);
      const header = unverifiedHeader(token);
      const problem = headerProblem(header);
      if (problem) throw this.signatureFailure(problem);
      const alg = header!.alg as string;
      if (!this.algorithms.includes(alg)) throw new TokenRejected(`oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${goList(this.algorithms)}`);
      let key: KeyObject;
      try {
        key = keyObject(await resolver(header as Parameters<typeof resolver>[0]));
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'ERR_JWKS_NO_MATCHING_KEY' && attempt === 0) {
          await this.keys.refreshForUnknownKey();
          continue;
        }
        throw this.signatureFailure((err as Error).message);
      }
      if (tooShortRsaKey(alg, key)) throw this.signatureFailure(`${alg} requires key modulusLength to be 2048 bits or larger`);
      return key;
    }
  }

  /** kube's message for passport-jwt's refusal of a token of this issuer (jsonwebtoken's errors in jose's words). */
  rejection(challenge: unknown): string {
    if (typeof challenge === 'string') return challenge;
    if (challenge instanceof TokenRejected) return challenge.message;
    const err = jwtVerifierError(challenge);
    if (err?.message === 'invalid signature') return this.signatureFailure('signature verification failed').message;
    return this.signatureFailure(challenge instanceof Error ? challenge.message : String(challenge)).message;
  }

  private signatureFailure(reason: string): TokenRejected {
    return new TokenRejected(`oidc: verify token: failed to verify signature: ${reason}`);
  }

  /** The user verified claims stand for, once go-oidc's claim checks pass; and when the token expires. */
  user(claims: Claims): AuthenticatedToken {
    this.checkClaims(claims);
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

  /** go-oidc's checks of verified claims: issuer, audience, expiry, not-before and issued-at (with its clock skew). */
  private checkClaims(claims: Claims): void {
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

/** The keys of a key set as jsonwebtoken takes them (jose hands out Web Crypto keys, each imported once). */
const keyObjects = new WeakMap<object, KeyObject>();

function keyObject(key: Parameters<typeof KeyObject.from>[0]): KeyObject {
  let converted = keyObjects.get(key);
  if (!converted) keyObjects.set(key, (converted = KeyObject.from(key)));
  return converted;
}

/** A compact JWS's protected header, undefined when it is not a JSON object. */
function unverifiedHeader(token: string): Claims | undefined {
  const end = token.indexOf('.');
  if (end < 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, end), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && !Array.isArray(header) ? (header as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/** What jose refuses in a protected header before it looks for a key (its messages). */
function headerProblem(header: Claims | undefined): string | undefined {
  if (!header) return 'JWS Protected Header is invalid';
  const crit = header.crit;
  if (crit !== undefined) {
    if (!Array.isArray(crit) || crit.length === 0 || crit.some((c) => typeof c !== 'string' || c === '')) {
      return '"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present';
    }
    for (const parameter of crit as string[]) {
      if (parameter !== 'b64') return `Extension Header Parameter "${parameter}" is not recognized`;
      if (header.b64 === undefined) return `Extension Header Parameter "${parameter}" is missing`;
    }
  }
  if (typeof header.alg !== 'string' || !header.alg) return 'JWS "alg" (Algorithm) Header Parameter missing or invalid';
  return undefined;
}
