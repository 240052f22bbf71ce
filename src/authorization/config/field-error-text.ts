import { FieldError, fieldErrorMessage } from '../../apimachinery/field-errors';

/**
 * One field error's text. apimachinery prints the item count of `Too many` errors
 * (`Too many: 65: must have at most 64 items`); every other type as the shared formatter does.
 */
export function fieldErrorText(e: FieldError): string {
  if (e.type === 'FieldValueTooMany') return `${e.field}: Too many: ${String(e.badValue)}: ${e.detail}`;
  return fieldErrorMessage(e);
}
