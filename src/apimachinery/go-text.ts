import { isPlainObject, ManagedFieldsEntry, ObjectMeta, OwnerReference } from './types';

/**
 * Go's text formatting, for the error messages kube writes with fmt verbs: `%q` of a
 * string or a []string, `%v` of a map[string]interface{} (keys sorted, maps as `map[k:v]`,
 * slices as `[a b]`, nil as `<nil>`), and `%#v` of the structs kube's messages print.
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\u000b': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `%q` of a string, as Go's strconv.Quote writes it. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = SIMPLE_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0)!;
      if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return out + '"';
}

/** `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** `%#v` of a []string: `[]string{"a", "b"}`. */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** `%v` of a float64 or int64 decoded from JSON. */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [mantissa, e] = n.toExponential().split('e');
    const sign = e.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(n);
}

/** `%v` of a JSON value decoded into interface{}. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goValue(value[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** The Go kind name of a value in a map[string]interface{} decoded with integers preserved. */
export function goKind(value: unknown): string {
  if (value === null || value === undefined) return 'invalid';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  // Go keeps a JSON integer as int64 only when it fits; anything else is a float64.
  if (typeof value === 'number') return Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63 ? 'int64' : 'float64';
  if (Array.isArray(value)) return 'slice';
  return 'map';
}

/** JSON with keys sorted at every level, compact: how Go's encoding/json writes a map. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/**
 * A bad value as kube's field errors print a Go struct: with `%#v`. The review validations
 * name whole structs (the object's ObjectMeta, a NonResourceAttributes) as the bad value,
 * so their messages carry Go syntax such as `authorization.NonResourceAttributes{Path:"/x", Verb:"get"}`.
 */
export class GoSyntax {
  constructor(readonly text: string) {}
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString; kube decodes timestamps into the local zone, the zero time is UTC. */
function goTime(timestamp: string | undefined): string {
  const ms = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(ms)) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const d = new Date(ms);
  const parts = [d.getUTCFullYear(), `time.${MONTHS[d.getUTCMonth()]}`, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0];
  return `time.Date(${parts.join(', ')}, time.Local)`;
}

/**
 * Go prints a non-nil pointer to a type without GoString as its address. The address is
 * whatever the allocator chose, so any value in Go's heap range reads the same to a client.
 */
class Addresses {
  private next = 0xc000010000;

  pointer(type: string): string {
    const address = this.next;
    this.next += 0x10;
    return `(*${type})(0x${address.toString(16)})`;
  }
}

function stringSlice(values: string[] | undefined): string {
  return values === undefined ? '[]string(nil)' : goStringSlice(values);
}

function stringMap(map: Record<string, string> | undefined): string {
  if (map === undefined) return 'map[string]string(nil)';
  const entries = Object.keys(map)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(map[k])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function boolPointer(value: boolean | undefined, addresses: Addresses): string {
  return value === undefined ? '(*bool)(nil)' : addresses.pointer('bool');
}

function ownerReference(ref: OwnerReference, addresses: Addresses): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion ?? '')}, Kind:${goQuote(ref.kind ?? '')}, Name:${goQuote(ref.name ?? '')}, ` +
    `UID:${goQuote(ref.uid ?? '')}, Controller:${boolPointer(ref.controller, addresses)}, ` +
    `BlockOwnerDeletion:${boolPointer(ref.blockOwnerDeletion, addresses)}}`
  );
}

function managedFieldsEntry(entry: ManagedFieldsEntry, addresses: Addresses): string {
  const time = entry.time === undefined ? '<nil>' : goTime(entry.time);
  const fields = entry.fieldsV1 === undefined ? '(*v1.FieldsV1)(nil)' : addresses.pointer('v1.FieldsV1');
  return (
    `v1.ManagedFieldsEntry{Manager:${goQuote(entry.manager ?? '')}, Operation:${goQuote(entry.operation ?? '')}, ` +
    `APIVersion:${goQuote(entry.apiVersion ?? '')}, Time:${time}, FieldsType:${goQuote(entry.fieldsType ?? '')}, ` +
    `FieldsV1:${fields}, Subresource:${goQuote(entry.subresource ?? '')}}`
  );
}

function list<T>(type: string, items: T[] | undefined, render: (item: T) => string): string {
  if (items === undefined) return `[]${type}(nil)`;
  return `[]${type}{${items.map(render).join(', ')}}`;
}

/** `%#v` of a metav1.ObjectMeta. */
export function goObjectMeta(meta: ObjectMeta): GoSyntax {
  const addresses = new Addresses();
  const grace = meta.deletionGracePeriodSeconds === undefined ? '(*int64)(nil)' : addresses.pointer('int64');
  const fields = [
    `Name:${goQuote(meta.name ?? '')}`,
    `GenerateName:${goQuote(meta.generateName ?? '')}`,
    `Namespace:${goQuote(meta.namespace ?? '')}`,
    `SelfLink:${goQuote(meta.selfLink ?? '')}`,
    `UID:${goQuote(meta.uid ?? '')}`,
    `ResourceVersion:${goQuote(meta.resourceVersion ?? '')}`,
    `Generation:${meta.generation ?? 0}`,
    `CreationTimestamp:${goTime(meta.creationTimestamp)}`,
    `DeletionTimestamp:${meta.deletionTimestamp === undefined ? '<nil>' : goTime(meta.deletionTimestamp)}`,
    `DeletionGracePeriodSeconds:${grace}`,
    `Labels:${stringMap(meta.labels)}`,
    `Annotations:${stringMap(meta.annotations)}`,
    `OwnerReferences:${list('v1.OwnerReference', meta.ownerReferences, (r) => ownerReference(r, addresses))}`,
    `Finalizers:${stringSlice(meta.finalizers)}`,
    `ManagedFields:${list('v1.ManagedFieldsEntry', meta.managedFields, (e) => managedFieldsEntry(e, addresses))}`,
  ];
  return new GoSyntax(`v1.ObjectMeta{${fields.join(', ')}}`);
}

/** `%#v` of kube's internal authorization.NonResourceAttributes. */
export function goNonResourceAttributes(attrs: { path?: string; verb?: string }): GoSyntax {
  return new GoSyntax(`authorization.NonResourceAttributes{Path:${goQuote(attrs.path ?? '')}, Verb:${goQuote(attrs.verb ?? '')}}`);
}
