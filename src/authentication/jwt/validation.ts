import { X509Certificate } from 'node:crypto';
import { CelCompileError, CelProgram } from '../../cel';
import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { isDNS1123Subdomain, regexError } from '../../apimachinery/validation/names';
import { AuthenticationEnvironments, compileAuthenticationExpression, selectsClaim } from './expressions';
import {
  AUDIENCE_MATCH_ANY,
  AuthenticationConfiguration,
  ClaimMappings,
  ClaimValidationRule,
  Issuer,
  JWTAuthenticator,
  MAX_JWT_AUTHENTICATORS,
  PrefixedClaimOrExpression,
  UserValidationRule,
} from './types';

/** The compiled expressions of one JWT authenticator (kube's CELMapper). */
export interface CompiledExpressions {
  username?: CelProgram;
  groups?: CelProgram;
  uid?: CelProgram;
  extra: Array<{ key: string; program: CelProgram }>;
  claimValidation: Array<{ program: CelProgram; message: string }>;
  userValidation: Array<{ program: CelProgram; message: string }>;
}

export interface ValidationContext {
  envs: AuthenticationEnvironments;
  /** The service-account issuers: a JWT authenticator must not claim their tokens. */
  disallowedIssuers: string[];
  /** Gate AnonymousAuthConfigurableEndpoints. */
  anonymousConfigurable: boolean;
}

/** The configuration's field errors and, per authenticator, its compiled expressions. */
export interface ValidationResult {
  errors: FieldError[];
  compiled: CompiledExpressions[];
}

/** kube's convertCELErrorToValidationError. */
function compileInto(errs: FieldError[], path: FieldPath, expression: string, compile: () => CelProgram): CelProgram | undefined {
  try {
    return compile();
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    errs.push(err.type === 'Required' ? fieldErrors.required(path, err.detail) : fieldErrors.invalid(path, expression, err.detail));
    return undefined;
  }
}

/** Go's url.Parse as far as kube's checks need it. */
function validateURL(url: string, disallowed: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.has(url)) errs.push(fieldErrors.invalid(path, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Go parses a string without a scheme as a relative URL: its complaint is the scheme.
    errs.push(fieldErrors.invalid(path, url, /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url) ? `parse ${JSON.stringify(url)}: invalid URL` : 'URL scheme must be https'));
    return errs;
  }
  if (parsed.protocol !== 'https:') errs.push(fieldErrors.invalid(path, url, 'URL scheme must be https'));
  if (parsed.username || parsed.password) errs.push(fieldErrors.invalid(path, url, 'URL must not contain a username or password'));
  if (parsed.search || url.includes('?')) errs.push(fieldErrors.invalid(path, url, 'URL must not contain a query'));
  if (parsed.hash || url.includes('#')) errs.push(fieldErrors.invalid(path, url, 'URL must not contain a fragment'));
  return errs;
}

/** PEM certificates, as Go's cert.NewPoolFromBytes reads them. */
export function certificateAuthorityProblem(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    for (const block of blocks) new X509Certificate(block);
  } catch (err) {
    return `x509: ${(err as Error).message}`;
  }
  return blocks.length ? undefined : 'data does not contain any valid RSA or ECDSA certificates';
}

function validateIssuer(issuer: Issuer, disallowed: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const urlPath = path.child('url');
  if (issuer.url === '') errs.push(fieldErrors.required(urlPath));
  else errs.push(...validateURL(issuer.url, disallowed, urlPath));
  if (issuer.discoveryURL !== '') {
    const discoveryPath = path.child('discoveryURL');
    if (issuer.url !== '' && issuer.url.replace(/\/+$/, '') === issuer.discoveryURL.replace(/\/+$/, '')) {
      errs.push(fieldErrors.invalid(discoveryPath, issuer.discoveryURL, 'discoveryURL must be different from URL'));
    }
    errs.push(...validateURL(issuer.discoveryURL, new Set(), discoveryPath));
  }
  const audiencesPath = path.child('audiences');
  if (issuer.audiences.length === 0) errs.push(fieldErrors.required(audiencesPath, `at least one ${audiencesPath.toString()} is required`));
  else {
    const seen = new Set<string>();
    issuer.audiences.forEach((audience, i) => {
      if (audience === '') errs.push(fieldErrors.required(audiencesPath.index(i)));
      if (seen.has(audience)) errs.push(fieldErrors.duplicate(audiencesPath.index(i), audience));
      seen.add(audience);
    });
    const policyPath = path.child('audienceMatchPolicy');
    if (issuer.audiences.length > 1 && issuer.audienceMatchPolicy !== AUDIENCE_MATCH_ANY) {
      errs.push(fieldErrors.invalid(policyPath, issuer.audienceMatchPolicy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (issuer.audiences.length === 1 && issuer.audienceMatchPolicy !== '' && issuer.audienceMatchPolicy !== AUDIENCE_MATCH_ANY) {
      errs.push(fieldErrors.invalid(policyPath, issuer.audienceMatchPolicy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }
  if (issuer.certificateAuthority !== '') {
    const problem = certificateAuthorityProblem(issuer.certificateAuthority);
    if (problem) errs.push(fieldErrors.invalid(path.child('certificateAuthority'), '<omitted>', problem));
  }
  return errs;
}

interface EmailUse {
  email: boolean;
  emailVerified: boolean;
}

function validateClaimValidationRules(ctx: ValidationContext, rules: ClaimValidationRule[], path: FieldPath, out: CompiledExpressions, email: EmailUse): FieldError[] {
  const errs: FieldError[] = [];
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  rules.forEach((rule, i) => {
    const rulePath = path.index(i);
    if (rule.claim && rule.expression) errs.push(fieldErrors.invalid(rulePath, rule.claim, "claim and expression can't both be set"));
    else if (!rule.claim && !rule.expression) errs.push(fieldErrors.required(rulePath, 'claim or expression is required'));
    else if (rule.claim) {
      if (rule.message) errs.push(fieldErrors.invalid(rulePath.child('message'), rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(rule.claim)) errs.push(fieldErrors.duplicate(rulePath.child('claim'), rule.claim));
      seenClaims.add(rule.claim);
    } else {
      if (rule.requiredValue) errs.push(fieldErrors.invalid(rulePath.child('requiredValue'), rule.requiredValue, 'may not be specified when expression is set'));
      if (seenExpressions.has(rule.expression)) {
        errs.push(fieldErrors.duplicate(rulePath.child('expression'), rule.expression));
        return;
      }
      seenExpressions.add(rule.expression);
      const program = compileInto(errs, rulePath.child('expression'), rule.expression, () => compileAuthenticationExpression(ctx.envs.claims, rule.expression, 'bool'));
      if (program) {
        out.claimValidation.push({ program, message: rule.message });
        email.emailVerified ||= selectsClaim(program, 'email_verified');
      }
    }
  });
  return errs;
}

function validatePrefixedClaimOrExpression(
  ctx: ValidationContext,
  mapping: PrefixedClaimOrExpression,
  path: FieldPath,
  required: boolean,
): { errs: FieldError[]; program?: CelProgram } {
  const errs: FieldError[] = [];
  if (mapping.expression && mapping.claim) errs.push(fieldErrors.invalid(path, '', "claim and expression can't both be set"));
  else if (!mapping.expression && !mapping.claim && required) errs.push(fieldErrors.required(path, 'claim or expression is required'));
  else if (mapping.expression) {
    if (mapping.prefix !== undefined) errs.push(fieldErrors.invalid(path.child('prefix'), mapping.prefix, 'may not be specified when expression is set'));
    const program = compileInto(errs, path.child('expression'), mapping.expression, () => compileAuthenticationExpression(ctx.envs.claims, mapping.expression));
    return { errs, program };
  } else if (mapping.claim && mapping.prefix === undefined) {
    errs.push(fieldErrors.required(path.child('prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return { errs };
}

const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** apimachinery's IsDomainPrefixedPath. */
function domainPrefixedPathErrors(path: FieldPath, key: string): FieldError[] {
  if (key === '') return [fieldErrors.required(path)];
  const slash = key.indexOf('/');
  const host = slash < 0 ? '' : key.slice(0, slash);
  const rest = slash < 0 ? '' : key.slice(slash + 1);
  if (!host || !rest) return [fieldErrors.invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((detail) => fieldErrors.invalid(path, host, detail));
  if (!HTTP_PATH.test(rest)) errs.push(fieldErrors.invalid(path, rest, regexError('Invalid path', "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+")));
  return errs;
}

/** The domains kube keeps for itself, in this project's spelling. */
function isReservedDomain(key: string): boolean {
  const domain = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
  return ['platform.io', 'kubernetes.io'].some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}

function validateClaimMappings(ctx: ValidationContext, mappings: ClaimMappings, path: FieldPath, out: CompiledExpressions, email: EmailUse): FieldError[] {
  const errs: FieldError[] = [];
  const username = validatePrefixedClaimOrExpression(ctx, mappings.username, path.child('username'), true);
  errs.push(...username.errs);
  if (username.program) {
    out.username = username.program;
    email.email ||= selectsClaim(username.program, 'email');
    email.emailVerified ||= selectsClaim(username.program, 'email_verified');
  }
  const groups = validatePrefixedClaimOrExpression(ctx, mappings.groups, path.child('groups'), false);
  errs.push(...groups.errs);
  out.groups = groups.program;
  const uid = mappings.uid;
  if (uid.claim && uid.expression) errs.push(fieldErrors.invalid(path.child('uid'), '', "claim and expression can't both be set"));
  else if (uid.expression) {
    out.uid = compileInto(errs, path.child('uid').child('expression'), uid.expression, () => compileAuthenticationExpression(ctx.envs.claims, uid.expression));
  }
  const seenKeys = new Set<string>();
  mappings.extra.forEach((mapping, i) => {
    const keyPath = path.child('extra').index(i).child('key');
    errs.push(...domainPrefixedPathErrors(keyPath, mapping.key));
    if (mapping.key !== mapping.key.toLowerCase()) errs.push(fieldErrors.invalid(keyPath, mapping.key, 'must be lowercase'));
    if (isReservedDomain(mapping.key)) errs.push(fieldErrors.invalid(keyPath, mapping.key, 'platform.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    if (seenKeys.has(mapping.key)) {
      errs.push(fieldErrors.duplicate(keyPath, mapping.key));
      return;
    }
    seenKeys.add(mapping.key);
    const valuePath = path.child('extra').index(i).child('valueExpression');
    if (!mapping.valueExpression) {
      errs.push(fieldErrors.required(valuePath));
      return;
    }
    const program = compileInto(errs, valuePath, mapping.valueExpression, () => compileAuthenticationExpression(ctx.envs.claims, mapping.valueExpression));
    if (program) {
      out.extra.push({ key: mapping.key, program });
      email.emailVerified ||= selectsClaim(program, 'email_verified');
    }
  });
  return errs;
}

function validateUserValidationRules(ctx: ValidationContext, rules: UserValidationRule[], path: FieldPath, out: CompiledExpressions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const exprPath = path.index(i).child('expression');
    if (!rule.expression) {
      errs.push(fieldErrors.required(exprPath));
      return;
    }
    if (seen.has(rule.expression)) {
      errs.push(fieldErrors.duplicate(exprPath, rule.expression));
      return;
    }
    seen.add(rule.expression);
    const program = compileInto(errs, exprPath, rule.expression, () => compileAuthenticationExpression(ctx.envs.user, rule.expression, 'bool'));
    if (program) out.userValidation.push({ program, message: rule.message });
  });
  return errs;
}

/** kube's validateJWTAuthenticator: every error with its path, and the compiled expressions. */
export function validateJWTAuthenticator(ctx: ValidationContext, authenticator: JWTAuthenticator, path: FieldPath): { errors: FieldError[]; compiled: CompiledExpressions } {
  const compiled: CompiledExpressions = { extra: [], claimValidation: [], userValidation: [] };
  const email: EmailUse = { email: false, emailVerified: false };
  const errors = [
    ...validateIssuer(authenticator.issuer, new Set(ctx.disallowedIssuers), path.child('issuer')),
    ...validateClaimValidationRules(ctx, authenticator.claimValidationRules, path.child('claimValidationRules'), compiled, email),
    ...validateClaimMappings(ctx, authenticator.claimMappings, path.child('claimMappings'), compiled, email),
  ];
  if (email.email && !email.emailVerified) {
    errors.push(
      fieldErrors.invalid(
        path.child('claimMappings').child('username').child('expression'),
        authenticator.claimMappings.username.expression,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ),
    );
  }
  errors.push(...validateUserValidationRules(ctx, authenticator.userValidationRules, path.child('userValidationRules'), compiled));
  return { errors, compiled };
}

/** kube's ValidateAuthenticationConfiguration. */
export function validateAuthenticationConfiguration(ctx: ValidationContext, config: AuthenticationConfiguration): ValidationResult {
  const root = FieldPath.root('jwt');
  if (config.jwt.length > MAX_JWT_AUTHENTICATORS) {
    return { errors: [{ type: 'FieldValueTooMany', field: root.toString(), badValue: config.jwt.length, detail: `must have at most ${MAX_JWT_AUTHENTICATORS} items` }], compiled: [] };
  }
  const errors: FieldError[] = [];
  const compiled: CompiledExpressions[] = [];
  const seenIssuers = new Set<string>();
  const seenDiscoveryURLs = new Set<string>();
  config.jwt.forEach((authenticator, i) => {
    const path = root.index(i);
    const result = validateJWTAuthenticator(ctx, authenticator, path);
    errors.push(...result.errors);
    compiled.push(result.compiled);
    const { url, discoveryURL } = authenticator.issuer;
    if (seenIssuers.has(url)) errors.push(fieldErrors.duplicate(path.child('issuer').child('url'), url));
    seenIssuers.add(url);
    if (discoveryURL) {
      if (seenDiscoveryURLs.has(discoveryURL)) errors.push(fieldErrors.duplicate(path.child('issuer').child('discoveryURL'), discoveryURL));
      seenDiscoveryURLs.add(discoveryURL);
    }
  });
  const anonymous = config.anonymous;
  if (anonymous) {
    const anonymousPath = FieldPath.root('anonymous');
    if (!ctx.anonymousConfigurable) {
      errors.push(fieldErrors.forbidden(anonymousPath, 'anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled'));
    }
    if (!anonymous.enabled && anonymous.conditions.length > 0) {
      errors.push(fieldErrors.invalid(anonymousPath.child('conditions'), anonymous.conditions, 'enabled should be set to true when conditions are defined'));
    }
    const seenPaths = new Set<string>();
    anonymous.conditions.forEach((condition, i) => {
      const conditionPath = anonymousPath.child('conditions').index(i).child('path');
      if (!condition.path) errors.push(fieldErrors.required(conditionPath));
      else if (seenPaths.has(condition.path)) errors.push(fieldErrors.duplicate(conditionPath, condition.path));
      seenPaths.add(condition.path);
    });
  }
  return { errors, compiled };
}
