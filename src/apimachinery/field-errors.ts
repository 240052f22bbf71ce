/**
 * Field errors as Kubernetes reports them: a field path, a type and a detail. The
 * message format matches k8s.io/apimachinery's field.Error so clients parsing it see
 * the same text, e.g. `rules[0].verbs: Required value: verbs must contain at least one value`.
 */

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue?: unknown;
  detail?: string;
}

/** A field path: `metadata.labels[app]`, `rules[0].verbs`. */
export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.text ? `${this.text}.${name}` : name);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

type PathLike = FieldPath | string;
const str = (p: PathLike) => p.toString();

export const fieldErrors = {
  required: (field: PathLike, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: str(field), detail }),
  invalid: (field: PathLike, badValue: unknown, detail = ''): FieldError => ({
    type: 'FieldValueInvalid',
    field: str(field),
    badValue,
    detail,
  }),
  notSupported: (field: PathLike, badValue: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: str(field),
    badValue,
    detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
  }),
  forbidden: (field: PathLike, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: str(field), detail }),
  duplicate: (field: PathLike, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: str(field), badValue }),
  tooLong: (field: PathLike, badValue: unknown, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: str(field),
    badValue,
    detail: `must have at most ${maxLength} bytes`,
  }),
  notFound: (field: PathLike, badValue: unknown): FieldError => ({ type: 'FieldValueNotFound', field: str(field), badValue }),
  typeInvalid: (field: PathLike, badValue: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field: str(field),
    badValue,
    detail,
  }),
};

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueNotFound: 'Not found',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message omits the bad value, as in apimachinery. */
const omitsValue = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'FieldValueTooMany']);

function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The error text without the field, as used in Status causes: `Required value: ...`. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  if (!omitsValue.has(e.type)) s += `: ${formatValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** The full error text: `field: body`. */
export function fieldErrorMessage(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}
