import { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../api/types';
import { goQuote } from '../api/validation/go-text';

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
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
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
