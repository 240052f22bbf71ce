/**
 * kube's AuthenticationConfiguration (apiserver.config.platform.io/v1 and v1beta1), as
 * decoded: every string field present (empty when unset), lists present (empty when unset).
 */

export const AUTHENTICATION_CONFIG_GROUP = 'apiserver.config.platform.io';
export const AUTHENTICATION_CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];
export const AUTHENTICATION_CONFIG_KIND = 'AuthenticationConfiguration';

/** kube's limit on JWT authenticators in one configuration. */
export const MAX_JWT_AUTHENTICATORS = 64;

export const AUDIENCE_MATCH_ANY = 'MatchAny';

export interface Issuer {
  url: string;
  discoveryURL: string;
  certificateAuthority: string;
  audiences: string[];
  audienceMatchPolicy: string;
}

export interface ClaimValidationRule {
  claim: string;
  requiredValue: string;
  expression: string;
  message: string;
}

/** `claim` with `prefix` (undefined: not given, which is an error with a claim), or `expression`. */
export interface PrefixedClaimOrExpression {
  claim: string;
  prefix?: string;
  expression: string;
}

export interface ClaimOrExpression {
  claim: string;
  expression: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups: PrefixedClaimOrExpression;
  uid: ClaimOrExpression;
  extra: ExtraMapping[];
}

export interface UserValidationRule {
  expression: string;
  message: string;
}

export interface JWTAuthenticator {
  issuer: Issuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

export interface AnonymousAuthCondition {
  path: string;
}

export interface AnonymousAuthConfig {
  enabled: boolean;
  conditions: AnonymousAuthCondition[];
}

export interface AuthenticationConfiguration {
  jwt: JWTAuthenticator[];
  anonymous?: AnonymousAuthConfig;
}

/** kube's --oidc-signing-algs default, which also applies to a configuration file. */
export const DEFAULT_SIGNING_ALGS = ['RS256'];
