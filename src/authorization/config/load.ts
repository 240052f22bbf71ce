import { readConfigFile } from '../../config/config-file';
import { compileMatchCondition, matchConditionEnvironment } from '../webhook/match-conditions';
import { ConfigDecodeError, decodeAuthorizationConfiguration } from './decode';
import { aggregateErrors } from '../../apimachinery/aggregate-errors';
import { fieldErrorText } from './field-error-text';
import { AuthorizationConfiguration } from './types';
import { validateAuthorizationConfiguration, validateServerRequirements } from './validation';

/** An authorization configuration that cannot be read, decoded or validated; the message is kube's. */
export class AuthorizationConfigError extends Error {}

export interface LoadOptions {
  /** AuthorizeWithSelectors: match conditions may read selectors. */
  withSelectors: boolean;
  /** On reload: the non-webhook types in force since start, which must all remain. */
  requiredNonWebhookTypes?: ReadonlySet<string>;
}

/** The file's text; a failure in Go's words (`open /x: no such file or directory`). */
export function readAuthorizationConfigFile(path: string): string {
  try {
    return readConfigFile(path);
  } catch (err) {
    throw new AuthorizationConfigError((err as Error).message);
  }
}

/**
 * kube's LoadAndValidateData: decode (strict), validate (match conditions compiled with the
 * CEL environment of `request`), then kube-apiserver's own naming and required-type checks.
 */
export async function loadAuthorizationConfiguration(data: string, options: LoadOptions): Promise<AuthorizationConfiguration> {
  let config: AuthorizationConfiguration;
  try {
    config = decodeAuthorizationConfiguration(data);
  } catch (err) {
    if (err instanceof ConfigDecodeError) throw new AuthorizationConfigError(`failed to load AuthorizationConfiguration from file: ${err.message}`);
    throw err;
  }
  const env = await matchConditionEnvironment(options.withSelectors);
  const fieldErrs = validateAuthorizationConfiguration(config, (expression) => compileMatchCondition(env, expression));
  if (fieldErrs.length) throw new AuthorizationConfigError(aggregateErrors(fieldErrs.map(fieldErrorText)));
  const serverErrs = validateServerRequirements(config, options.requiredNonWebhookTypes ?? new Set());
  if (serverErrs.length) throw new AuthorizationConfigError(aggregateErrors(serverErrs));
  return config;
}
