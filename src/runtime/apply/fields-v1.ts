import { FieldSet } from './field-set';
import { comparePathElements, parsePathElement, PathElement, PathElementSyntaxError, serializePathElement } from './path-element';
import { isJsonObject } from './value';

/**
 * The FieldsV1 format of a managedFields entry: a nested object keyed by serialised path
 * elements (`f:`, `k:`, `v:`, `i:`); `{}` marks a member leaf, and `"."` marks a node that
 * is a member itself besides having members below it. Keys come in kube's order: `"."`
 * first, then path elements sorted.
 */
export type FieldsV1 = { [key: string]: FieldsV1 };

export function toFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  const members = set.memberElements;
  const children = set.childNodes.filter((c) => !c.set.empty());
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  // Both lists are sorted: walk them together so keys come out in kube's order.
  let mi = 0;
  let ci = 0;
  while (mi < members.length && ci < children.length) {
    const order = comparePathElements(members[mi], children[ci].pe);
    if (order < 0) out[serializePathElement(members[mi++])] = {};
    else if (order > 0) out[serializePathElement(children[ci].pe)] = emit(children[ci++].set, false);
    else {
      out[serializePathElement(children[ci].pe)] = emit(children[ci++].set, true);
      mi++;
    }
  }
  while (mi < members.length) out[serializePathElement(members[mi++])] = {};
  while (ci < children.length) out[serializePathElement(children[ci].pe)] = emit(children[ci++].set, false);
  return out;
}

/** FieldsV1 that does not parse: the message says where. */
export class FieldsV1Error extends Error {}

/** Reads a FieldsV1 object into a field set; keys of unknown types are skipped. */
export function fromFieldsV1(fields: unknown): FieldSet {
  if (!isJsonObject(fields)) throw new FieldsV1Error('FieldsV1 must be an object');
  return read(fields).children ?? new FieldSet();
}

function read(node: Record<string, unknown>): { children?: FieldSet; isMember: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const [key, value] of Object.entries(node)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement | null;
    try {
      pe = parsePathElement(key);
    } catch (err) {
      if (err instanceof PathElementSyntaxError) throw new FieldsV1Error(`parsing key as path element: ${err.message}`);
      throw err;
    }
    if (!pe) continue;
    if (!isJsonObject(value)) throw new FieldsV1Error(`the value of ${JSON.stringify(key)} must be an object`);
    const sub = read(value);
    children ??= new FieldSet();
    if (sub.isMember) children.insertMember(pe);
    if (sub.children) children.attachChild(pe, sub.children);
  }
  if (!children) isMember = true;
  return { children, isMember };
}
