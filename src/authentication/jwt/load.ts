import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { fieldErrorText } from '../../authorization/config/field-error-text';
import { readConfigFile } from '../../config/config-file';
import { authenticationEnvironments } from './expressions';
import { AuthenticationConfigDecodeError, decodeAuthenticationConfiguration } from './decode';
import { AuthenticationConfiguration } from './types';
import { CompiledExpressions, validateAuthenticationConfiguration } from './validation';

/** An authentication configuration that cannot be read, decoded or validated; the message is kube's. */
export class AuthenticationConfigError extends Error {}

/** A valid configuration with its expressions compiled (one entry per `jwt` authenticator). */
export interface LoadedAuthenticationConfiguration {
  configuration: AuthenticationConfiguration;
  compiled: CompiledExpressions[];
}

export interface AuthenticationLoadOptions {
  /** The service-account issuers, which no JWT authenticator may claim. */
  disallowedIssuers: string[];
  /** Gate AnonymousAuthConfigurableEndpoints. */
  anonymousConfigurable: boolean;
}

export function readAuthenticationConfigFile(path: string): string {
  try {
    return readConfigFile(path);
  } catch (err) {
    throw new AuthenticationConfigError((err as Error).message);
  }
}

/** Validates and compiles a configuration; every field error at once, with its path. */
export async function validateAndCompile(configuration: AuthenticationConfiguration, options: AuthenticationLoadOptions): Promise<LoadedAuthenticationConfiguration> {
  const envs = await authenticationEnvironments();
  const { errors, compiled } = validateAuthenticationConfiguration({ envs, ...options }, configuration);
  if (errors.length) throw new AuthenticationConfigError(aggregateErrors(errors.map(fieldErrorText)));
  return { configuration, compiled };
}

/** Decodes (strictly), validates and compiles a configuration file's text. */
export async function loadAuthenticationConfiguration(data: string, options: AuthenticationLoadOptions): Promise<LoadedAuthenticationConfiguration> {
  let configuration: AuthenticationConfiguration;
  try {
    configuration = decodeAuthenticationConfiguration(data);
  } catch (err) {
    if (err instanceof AuthenticationConfigDecodeError) throw new AuthenticationConfigError(`failed to decode AuthenticationConfiguration: ${err.message}`);
    throw err;
  }
  return validateAndCompile(configuration, options);
}
