import { readConfigFile } from '../../config/config-file';
import { FlagError } from '../../config/flags';
import { OidcOptions, ServerOptions } from '../../config/options';
import { AuthenticationLoadOptions, loadAuthenticationConfiguration, LoadedAuthenticationConfiguration, readAuthenticationConfigFile, validateAndCompile } from './load';
import { AuthenticationConfiguration, DEFAULT_SIGNING_ALGS, JWTAuthenticator } from './types';
import { certificateAuthorityProblem } from './validation';

/** The JWT authentication the server starts with, read and checked before the store opens. */
export interface StartupJwtAuthentication {
  loaded: LoadedAuthenticationConfiguration;
  /** The signing algorithms ID tokens may use (--oidc-signing-algs; RS256 with a configuration file, as kube). */
  algorithms: string[];
  /** `--authentication-config`'s text at start: the reloader compares later reads with it. */
  configFileData?: string;
}

export const STARTUP_JWT_AUTHENTICATION = Symbol('STARTUP_JWT_AUTHENTICATION');

/**
 * kube's translation of the --oidc-* flags into one JWT authenticator: the username claim
 * with the issuer as prefix (`<issuer>#`) unless the claim is `email` or a prefix is given
 * (`-`: none); required claims become claim validation rules.
 */
export function jwtAuthenticatorFromFlags(oidc: OidcOptions, caPem: string): JWTAuthenticator {
  const issuer = oidc.issuerUrl ?? '';
  let usernamePrefix = oidc.usernamePrefix ?? '';
  if (usernamePrefix === '' && oidc.usernameClaim !== 'email') usernamePrefix = `${issuer}#`;
  if (usernamePrefix === '-') usernamePrefix = '';
  return {
    issuer: { url: issuer, discoveryURL: '', certificateAuthority: caPem, audiences: oidc.clientId ? [oidc.clientId] : [], audienceMatchPolicy: '' },
    claimValidationRules: oidc.requiredClaims.map(([claim, requiredValue]) => ({ claim, requiredValue, expression: '', message: '' })),
    claimMappings: {
      username: { claim: oidc.usernameClaim, prefix: usernamePrefix, expression: '' },
      groups: { claim: oidc.groupsClaim ?? '', prefix: oidc.groupsPrefix ?? '', expression: '' },
      uid: { claim: '', expression: '' },
      extra: [],
    },
    userValidationRules: [],
  };
}

export function authenticationLoadOptions(options: ServerOptions): AuthenticationLoadOptions {
  return {
    disallowedIssuers: options.serviceAccounts.issuers,
    anonymousConfigurable: options.featureGates.enabled('AnonymousAuthConfigurableEndpoints'),
  };
}

/** `--authentication-config` (read, decoded, validated, compiled) or the configuration the --oidc-* flags stand for. */
export async function loadStartupJwtAuthentication(options: ServerOptions): Promise<StartupJwtAuthentication> {
  const loadOptions = authenticationLoadOptions(options);
  const file = options.authenticationConfigFile;
  if (file) {
    const configFileData = readAuthenticationConfigFile(file);
    return { loaded: await loadAuthenticationConfiguration(configFileData, loadOptions), algorithms: DEFAULT_SIGNING_ALGS, configFileData };
  }
  const oidc = options.oidc;
  if (!oidc.issuerUrl) return { loaded: { configuration: { jwt: [] }, compiled: [] }, algorithms: oidc.signingAlgs };
  let caPem = '';
  try {
    if (oidc.caFile) caPem = readConfigFile(oidc.caFile);
    const problem = caPem ? certificateAuthorityProblem(caPem) : undefined;
    if (problem) throw new Error(problem);
  } catch (err) {
    throw FlagError.about('--oidc-ca-file', (err as Error).message);
  }
  const configuration: AuthenticationConfiguration = { jwt: [jwtAuthenticatorFromFlags(oidc, caPem)] };
  return { loaded: await validateAndCompile(configuration, loadOptions), algorithms: oidc.signingAlgs };
}
