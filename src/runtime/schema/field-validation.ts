import { YAML_TO_JSON_PREFIX } from '../document/yaml-document';

/**
 * The `fieldValidation` directive of a write (kube's metav1.FieldValidation*): what to do
 * with unknown and duplicate fields in the body. Warn is the default.
 */
export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';

export const DEFAULT_FIELD_VALIDATION: FieldValidationDirective = 'Warn';

/** Warn and Strict decode strictly (collect unknown and duplicate fields); Ignore does not. */
export function decodesStrictly(directive: FieldValidationDirective): boolean {
  return directive !== 'Ignore';
}

/** kube's runtime.NewStrictDecodingError(errs).Error(). */
export function strictDecodingMessage(strictErrors: string[]): string {
  return `strict decoding error: ${strictErrors.join(', ')}`;
}

const YAML_UNMARSHAL_PREFIXES = [`${YAML_TO_JSON_PREFIX}unmarshal errors:\n`, 'yaml: unmarshal errors:\n'];

/**
 * The Warning texts of strict errors, one per problem: kube's addStrictDecodingWarnings
 * splits go-yaml's multi-line error into its lines (`line 4: key "a" already set in map`).
 */
export function strictWarnings(strictErrors: string[]): string[] {
  return strictErrors.flatMap((message) => {
    const prefix = YAML_UNMARSHAL_PREFIXES.find((p) => message.startsWith(p));
    if (!prefix) return [message];
    return message
      .slice(prefix.length)
      .split('\n')
      .map((line) => line.trim());
  });
}
