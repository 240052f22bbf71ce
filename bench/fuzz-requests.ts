import * as fc from 'fast-check';
import { MAX_NESTING_DEPTH } from '../src/runtime/document/nesting';

/**
 * Hostile requests as fast-check arbitraries (seeded by their users, so every run sends the
 * same): create, update, every patch type and apply with hostile bodies (deep nesting, YAML
 * aliases, NUL, half surrogate pairs, keys such as `__proto__`, numbers beyond float64,
 * broken syntax), lists with hostile query strings, and hostile paths. The fuzz e2e test
 * sends them one at a time and in a crowd; the stall and memory benchmarks send them in a crowd.
 */
export const FUZZ_NAMESPACE = 'default';
export const FUZZ_CONFIGMAPS = `/api/v1/namespaces/${FUZZ_NAMESPACE}/configmaps`;
export const FUZZ_ROLES = `/apis/rbac.authorization.platform.io/v1/namespaces/${FUZZ_NAMESPACE}/roles`;
const SSAR = '/apis/authorization.platform.io/v1/selfsubjectaccessreviews';
const COLLECTIONS = [FUZZ_CONFIGMAPS, FUZZ_ROLES];

export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
}

// ---- hostile pieces ------------------------------------------------------------------------

/** Every byte of the text's UTF-8 percent-encoded (encodeURIComponent refuses half a surrogate pair). */
const percent = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const hostileText = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '$patch', '$retainKeys', '.', '', 'a'),
  fc.constantFrom('\u0000', 'a\u0000b', '\udc00', '\ud800x', '😀', '€ζ', '\u0007', '\r\n', '"', '\\', '%', '~1', '/', 'x'.repeat(300)),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** JSON values a few levels deep whose keys and strings are hostile. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1.5, 2 ** 63, -(2 ** 63), 9007199254740993)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON text with a nesting of its own: around the limit, or far beyond it. */
const deepJson = fc
  .tuple(fc.constantFrom(MAX_NESTING_DEPTH - 4, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 20_000), fc.boolean(), fc.boolean())
  .map(([depth, objects, closed]) => {
    const open = objects ? '{"a":'.repeat(depth) : '['.repeat(depth);
    const close = objects ? '}'.repeat(depth) : ']'.repeat(depth);
    return open + (objects ? '1' : '') + (closed ? close : '');
  });

/** Literals JSON.stringify cannot write: numbers beyond float64, NUL and half pairs as escapes. */
const rawLiteral = fc.constantFrom('1e400', '-1e999', '123456789012345678901234567890', '"\\u0000"', '"\\udc00"', '"\\ud83d\\ude00"', '0.5e-400');

/** A JSON text for a value: stringified, with raw literals and deep nesting spliced in. */
const jsonText = fc.oneof(
  { weight: 4, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: deepJson },
  { weight: 2, arbitrary: rawLiteral },
);

function objectText(fields: Array<[string, string]>): string {
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/** A ConfigMap-ish or Role-ish body with hostile fields (as JSON text). */
const objectBody = fc
  .tuple(
    fc.oneof(fc.constantFrom('fz-new', 'fz'), hostileText),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom('data', 'metadata', 'rules', 'binaryData', 'immutable', 'x'), hostileText), jsonText), { maxLength: 4 }),
    fc.array(fc.tuple(fc.constantFrom('labels', 'annotations', 'generation', 'managedFields', 'resourceVersion', 'finalizers', '__proto__'), jsonText), { maxLength: 3 }),
  )
  .map(([name, fields, meta]) => objectText([['metadata', objectText([['name', JSON.stringify(name)], ...meta])], ...fields]));

/** YAML with anchors and aliases, deep flow nesting, or surrogate escapes. */
const yamlBody = fc.oneof(
  fc.integer({ min: 1, max: 8 }).map((levels) => {
    const lines = ['metadata: {name: fz-yaml}', 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]`);
    return lines.join('\n');
  }),
  fc.constantFrom('metadata: {name: fz-yaml}\nx: &x [*x]', 'x: *missing', 'data: {k: "\\udc00"}', 'data: {k: .inf}', 'metadata: {generation: 1.5}', ': : :', '- - -'),
  fc.constantFrom(MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 5_000).map((depth) => `metadata: {name: fz-yaml}\nx: ${'['.repeat(depth)}${']'.repeat(depth)}`),
  hostileValue.map((v) => `data: ${JSON.stringify(v)}`),
);

const jsonPatchBody = fc
  .array(
    fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'x'),
      path: fc.oneof(fc.constantFrom('/data/k', '/metadata/__proto__/x', '/metadata/labels/constructor', '/data/-1', '/rules/0', '', '/'), hostileText.map((t) => `/data/${t}`)),
      from: fc.constantFrom('/data', '/metadata', '/data/k', '/nothing'),
      value: jsonText,
    }),
    { maxLength: 5 },
  )
  .map((ops) => `[${ops.map((o) => objectText([['op', JSON.stringify(o.op)], ['path', JSON.stringify(o.path)], ['from', JSON.stringify(o.from)], ['value', o.value]])).join(',')}]`);

/** Broken syntax: a valid body cut short or with garbage in it. */
const broken = (body: fc.Arbitrary<string>) =>
  fc.tuple(body, fc.nat(), fc.constantFrom('', '\u0000', '}', '"', '\\', '\uffff')).map(([text, at, garbage]) => {
    const cut = at % (text.length + 1);
    return text.slice(0, cut) + garbage;
  });

const bodyOf = (json: fc.Arbitrary<string>) => fc.oneof({ weight: 5, arbitrary: json }, { weight: 1, arbitrary: broken(json) });

const segment = fc.oneof(fc.constantFrom('fz', 'fz-role', 'default', '..', '%', '%zz', 'a%00b'), hostileText.map(percent));

const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'labelSelector', 'fieldSelector', 'fieldValidation', 'dryRun', 'fieldManager', 'force', 'pretty'),
      fc.oneof(fc.constantFrom('99999999999999999999', '-1', '1e3', '0', '1', 'All', 'Strict', 'Exact', 'constructor', 'metadata.name=fz', 'a in (b)', '!a'), hostileText),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${percent(v)}`).join('&')}` : ''));

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.tuple(fc.constantFrom(...COLLECTIONS), bodyOf(objectBody), query).map(([path, body, q]) => ({ method: 'POST' as const, path: path + q, body, contentType: 'application/json' })),
  fc.tuple(fc.constantFrom(...COLLECTIONS, SSAR), yamlBody).map(([path, body]) => ({ method: 'POST' as const, path, body, contentType: 'application/yaml' })),
  fc.tuple(fc.constantFrom(FUZZ_CONFIGMAPS, FUZZ_ROLES), bodyOf(objectBody)).map(([path, body]) => ({ method: 'PUT' as const, path: `${path}/fz`, body, contentType: 'application/json' })),
  fc.tuple(bodyOf(objectBody), fc.constantFrom('application/merge-patch+json', 'application/strategic-merge-patch+json'), query).map(([body, contentType, q]) => ({
    method: 'PATCH' as const,
    path: `${FUZZ_CONFIGMAPS}/fz${q}`,
    body,
    contentType,
  })),
  fc.tuple(bodyOf(jsonPatchBody), query).map(([body, q]) => ({ method: 'PATCH' as const, path: `${FUZZ_CONFIGMAPS}/fz${q}`, body, contentType: 'application/json-patch+json' })),
  fc.oneof(yamlBody, objectBody).map((body) => ({
    method: 'PATCH' as const,
    path: `${FUZZ_CONFIGMAPS}/fz?fieldManager=fuzz`,
    body: `apiVersion: v1\nkind: ConfigMap\n${body.startsWith('{') ? `spec: ${body}` : body}`,
    contentType: 'application/apply-patch+yaml',
  })),
  fc.tuple(fc.constantFrom(...COLLECTIONS), query).map(([path, q]) => ({ method: 'GET' as const, path: path + q })),
  fc.tuple(segment, segment, fc.constantFrom('GET', 'DELETE') as fc.Arbitrary<'GET' | 'DELETE'>).map(([ns, name, method]) => ({
    method,
    path: `/api/v1/namespaces/${ns}/configmaps/${name === 'fz' ? 'fz-other' : name}`,
  })),
);
