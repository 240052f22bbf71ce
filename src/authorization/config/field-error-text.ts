import { FieldError, fieldErrorMessage } from '../../api/field-errors';

/**
 * One field error's text. apimachinery prints the item count of `Too many` errors
 * (`Too many: 65: must have at most 64 items`); every other type as the shared formatter does.
 */
export function fieldErrorText(e: FieldError): string {
  if (e.type === 'FieldValueTooMany') return `${e.field}: Too many: ${String(e.badValue)}: ${e.detail}`;
  return fieldErrorMessage(e);
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several in brackets, duplicates once. */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
