import * as protobuf from 'protobufjs';
import { decodeObjectBody } from '../../../src/runtime/serializer/codecs';
import { lengthDelimited, PROTOBUF_PREFIX } from '../../../src/runtime/serializer/protobuf/envelope';
import { ProtobufCodec, protobufCodec } from '../../../src/runtime/serializer/protobuf/protobuf-codec';
import { roleBindingType, roleType } from '../../../src/rbac/kinds/kinds';
import { namespaceType } from '../../../src/core/namespace';

const RBAC = 'platform.io.api.rbac.v1';
const META = 'platform.io.apimachinery.pkg.apis.meta.v1';
const AUTHZ = 'platform.io.api.authorization.v1';
const AUTHN = 'platform.io.api.authentication.v1';
const CORE = 'platform.io.api.core.v1';

/**
 * The field numbers on the wire at the top level of a message, read without any .proto
 * (fields are written in number order, as gogo-protobuf writes them).
 */
function fieldNumbers(bytes: Uint8Array): number[] {
  const reader = protobuf.Reader.create(bytes);
  const out: number[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    out.push(tag >>> 3);
    reader.skipType(tag & 7);
  }
  return out;
}

/** The bytes of one length-delimited field at the top level of a message. */
function fieldBytes(bytes: Uint8Array, field: number): Uint8Array {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) return reader.bytes();
    reader.skipType(tag & 7);
  }
  throw new Error(`no field ${field}`);
}

const codec = protobufCodec();

const fullMeta = {
  name: 'n',
  generateName: 'g-',
  namespace: 'ns',
  uid: 'u-1',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-05-06T07:08:09Z',
  deletionTimestamp: '2024-05-06T08:00:00Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'x' },
  annotations: { 'platform.io/a': 'b' },
  ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'o', uid: 'ou', controller: false, blockOwnerDeletion: true }],
  finalizers: ['kubernetes'],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'rbac.authorization.platform.io/v1',
      time: '2024-05-06T07:08:09Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      subresource: 'status',
    },
  ],
};

describe('protobuf messages keep Kubernetes field numbers', () => {
  it('encodes a small Role byte for byte as Kubernetes does', () => {
    const raw = codec.encodeRaw(`${RBAC}.Role`, { metadata: { name: 'r' }, rules: [{ verbs: ['get'] }] });
    // metadata = 1 { name = 1 "r" }, rules = 2 { verbs = 1 "get" }
    expect(Buffer.from(raw).toString('hex')).toBe('0a030a0172' + '12050a03676574');
  });

  it('numbers ObjectMeta, OwnerReference and ManagedFieldsEntry as kube', () => {
    const raw = codec.encodeRaw(`${META}.ObjectMeta`, fullMeta);
    expect(fieldNumbers(raw)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17]);
    expect(fieldNumbers(fieldBytes(raw, 13))).toEqual([1, 3, 4, 5, 6, 7]);
    expect(fieldNumbers(fieldBytes(raw, 17))).toEqual([1, 2, 3, 4, 6, 7, 8]);
    // creationTimestamp is Timestamp{seconds = 1}, no nanos.
    expect(fieldNumbers(fieldBytes(raw, 8))).toEqual([1]);
    // fieldsV1 is FieldsV1{Raw = 1} holding the JSON.
    const fields = fieldBytes(fieldBytes(fieldBytes(raw, 17), 7), 1);
    expect(JSON.parse(Buffer.from(fields).toString())).toEqual(fullMeta.managedFields[0].fieldsV1);
  });

  it('numbers RBAC, Status, Namespace and review messages as kube', () => {
    expect(fieldNumbers(codec.encodeRaw(`${RBAC}.PolicyRule`, { verbs: ['a'], apiGroups: [''], resources: ['r'], resourceNames: ['n'], nonResourceURLs: ['/x'] }))).toEqual([1, 2, 3, 4, 5]);
    expect(fieldNumbers(codec.encodeRaw(`${RBAC}.RoleBinding`, { metadata: {}, subjects: [{ kind: 'User', name: 'u' }], roleRef: { apiGroup: 'g', kind: 'Role', name: 'r' } }))).toEqual([1, 2, 3]);
    expect(fieldNumbers(codec.encodeRaw(`${RBAC}.Subject`, { kind: 'ServiceAccount', apiGroup: '', name: 's', namespace: 'ns' }))).toEqual([1, 2, 3, 4]);
    expect(fieldNumbers(codec.encodeRaw(`${RBAC}.ClusterRole`, { metadata: {}, rules: [], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }))).toEqual([1, 3]);
    const status = { metadata: { resourceVersion: '1' }, status: 'Failure', message: 'm', reason: 'NotFound', details: { name: 'n', group: 'g', kind: 'k', uid: 'u', causes: [{ reason: 'r', message: 'm', field: 'f' }], retryAfterSeconds: 2 }, code: 404 };
    const statusRaw = codec.encodeRaw(`${META}.Status`, status);
    expect(fieldNumbers(statusRaw)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fieldNumbers(fieldBytes(statusRaw, 5))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fieldNumbers(codec.encodeRaw(`${CORE}.NamespaceCondition`, { type: 't', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'r', message: 'm' }))).toEqual([1, 2, 4, 5, 6]);
    expect(fieldNumbers(codec.encodeRaw(`${AUTHZ}.ResourceAttributes`, { namespace: 'a', verb: 'b', group: 'c', version: 'd', resource: 'e', subresource: 'f', name: 'g', fieldSelector: { rawSelector: 'x=y' }, labelSelector: { requirements: [{ key: 'k', operator: 'In', values: ['v'] }] } }))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(fieldNumbers(codec.encodeRaw(`${AUTHZ}.SubjectAccessReviewStatus`, { allowed: true, denied: false, reason: 'r', evaluationError: 'e' }))).toEqual([1, 2, 3, 4]);
    expect(fieldNumbers(codec.encodeRaw(`${AUTHN}.TokenReviewStatus`, { authenticated: true, user: { username: 'u' }, audiences: ['a'], error: 'e' }))).toEqual([1, 2, 3, 4]);
  });

  it('wraps objects in the prefix and the Unknown envelope (typeMeta 1, raw 2, contentEncoding 3, contentType 4)', () => {
    const bytes = codec.encode(`${RBAC}.Role`, 'rbac.authorization.platform.io/v1', 'Role', { metadata: { name: 'r' } });
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x6b, 0x38, 0x73, 0x00]));
    const unknown = bytes.subarray(4);
    expect(fieldNumbers(unknown)).toEqual([1, 2, 3, 4]);
    const typeMeta = fieldBytes(unknown, 1);
    expect(fieldNumbers(typeMeta)).toEqual([1, 2]);
    expect(Buffer.from(fieldBytes(typeMeta, 1)).toString()).toBe('rbac.authorization.platform.io/v1');
    expect(Buffer.from(fieldBytes(typeMeta, 2)).toString()).toBe('Role');
    expect(Buffer.from(fieldBytes(unknown, 2)).toString('hex')).toBe('0a030a0172');
  });
});

describe('protobuf round trips', () => {
  const cases: Array<[string, string, string, Record<string, unknown>]> = [
    [
      `${RBAC}.Role`,
      'rbac.authorization.platform.io/v1',
      'Role',
      { metadata: fullMeta, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }] },
    ],
    [
      `${RBAC}.ClusterRole`,
      'rbac.authorization.platform.io/v1',
      'ClusterRole',
      {
        metadata: { name: 'agg', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z' },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] }] },
      },
    ],
    [
      `${RBAC}.RoleBinding`,
      'rbac.authorization.platform.io/v1',
      'RoleBinding',
      {
        metadata: { name: 'rb', namespace: 'ns' },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'r' },
        subjects: [
          { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' },
          { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
        ],
      },
    ],
    [
      `${RBAC}.ClusterRoleBindingList`,
      'rbac.authorization.platform.io/v1',
      'ClusterRoleBindingList',
      {
        metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 0 },
        items: [{ metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'c' } }],
      },
    ],
    [
      `${CORE}.Namespace`,
      'v1',
      'Namespace',
      {
        metadata: { name: 'ns', labels: { 'platform.io/metadata.name': 'ns' } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ContentDeleted' }] },
      },
    ],
    [
      `${META}.Status`,
      'v1',
      'Status',
      { metadata: {}, status: 'Failure', message: 'nope', reason: 'Invalid', details: { name: 'r', kind: 'Role', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'rules[0].verbs' }] }, code: 422 },
    ],
    [
      `${AUTHZ}.SubjectAccessReview`,
      'authorization.platform.io/v1',
      'SubjectAccessReview',
      {
        metadata: {},
        spec: {
          resourceAttributes: { namespace: 'ns', verb: 'get', resource: 'pods', labelSelector: { rawSelector: 'a=b' } },
          user: 'alice',
          groups: ['dev'],
          extra: { scopes: ['a', 'b'] },
          uid: '1',
        },
        status: { allowed: false, denied: true, reason: 'no' },
      },
    ],
    [
      `${AUTHZ}.SelfSubjectRulesReview`,
      'authorization.platform.io/v1',
      'SelfSubjectRulesReview',
      {
        metadata: {},
        spec: { namespace: 'ns' },
        status: { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }], incomplete: false },
      },
    ],
    [
      `${AUTHZ}.LocalSubjectAccessReview`,
      'authorization.platform.io/v1',
      'LocalSubjectAccessReview',
      { metadata: { namespace: 'ns' }, spec: { nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'u' }, status: { allowed: true } },
    ],
    [
      `${AUTHZ}.SelfSubjectAccessReview`,
      'authorization.platform.io/v1',
      'SelfSubjectAccessReview',
      { metadata: {}, spec: { resourceAttributes: { verb: 'list', resource: 'secrets', fieldSelector: { requirements: [{ key: 'metadata.name', operator: 'In', values: ['s'] }] } } }, status: { allowed: false } },
    ],
    [
      `${AUTHN}.TokenReview`,
      'authentication.platform.io/v1',
      'TokenReview',
      { metadata: {}, spec: { token: 't', audiences: ['api'] }, status: { authenticated: true, user: { username: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] } }, audiences: ['api'] } },
    ],
    [
      `${AUTHN}.SelfSubjectReview`,
      'authentication.platform.io/v1',
      'SelfSubjectReview',
      { metadata: { creationTimestamp: '2024-01-01T00:00:00Z' }, status: { userInfo: { username: 'u', groups: ['system:authenticated'] } } },
    ],
    [
      `${META}.PartialObjectMetadataList`,
      'meta.platform.io/v1',
      'PartialObjectMetadataList',
      { metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a', labels: { x: 'y' } } }] },
    ],
  ];

  it.each(cases)('%s', (message, apiVersion, kind, object) => {
    const bytes = codec.encode(message, apiVersion, kind, object);
    expect(codec.decode(message, bytes)).toEqual({ apiVersion, kind, ...object });
  });

  it('decodes the zero values a Kubernetes encoder writes for unset fields as absent', () => {
    // gogo-protobuf writes every non-pointer string, and an empty Time for a zero time.
    const type = codec.type(`${RBAC}.Role`);
    const bytes = type
      .encode({
        metadata: { name: 'r', generateName: '', namespace: 'ns', selfLink: '', uid: '', resourceVersion: '', generation: 0, creationTimestamp: {}, deletionGracePeriodSeconds: 0 },
        rules: [{ verbs: ['get'] }],
      })
      .finish();
    expect(codec.decode(`${RBAC}.Role`, Buffer.concat([PROTOBUF_PREFIX, codec.type('platform.io.apimachinery.pkg.runtime.Unknown').encode({ raw: bytes }).finish()]))).toEqual({
      metadata: { name: 'r', namespace: 'ns', deletionGracePeriodSeconds: 0 },
      rules: [{ verbs: ['get'] }],
    });
  });
});

describe('protobuf request bodies', () => {
  it('decodes a create body of the kind', () => {
    const role = { metadata: { name: 'r', namespace: 'ns' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    const body = codec.encode(`${RBAC}.Role`, 'rbac.authorization.platform.io/v1', 'Role', role);
    expect(decodeObjectBody('application/vnd.platform.protobuf', body, roleType)).toEqual({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', ...role });
  });

  it('rejects a body without the prefix with a 400 naming the expected prefix', () => {
    expect(() => decodeObjectBody('application/vnd.platform.protobuf', Buffer.from('{"kind":"Role"}'), roleType)).toThrow(
      expect.objectContaining({
        code: 400,
        reason: 'BadRequest',
        message: 'the object provided is unrecognized (must be of type Role): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Role"})',
      }),
    );
    expect(() => decodeObjectBody('application/vnd.platform.protobuf', Buffer.alloc(0), roleType)).toThrow(expect.objectContaining({ code: 400, message: expect.stringContaining('empty data') }));
  });

  it('rejects bytes that do not decode as the message with 400', () => {
    const bad = Buffer.concat([PROTOBUF_PREFIX, codec.type('platform.io.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role' }, raw: Buffer.from([0x0a, 0x7f]) }).finish()]);
    expect(() => decodeObjectBody('application/vnd.platform.protobuf', bad, roleType)).toThrow(
      expect.objectContaining({ code: 400, message: expect.stringMatching(/^Role in version "v1" cannot be handled as a Role: /) }),
    );
  });

  it('answers 415 for protobuf to a kind without messages, listing what it accepts', () => {
    const { protobuf: _none, ...jsonOnly } = namespaceType;
    expect(() => decodeObjectBody('application/vnd.platform.protobuf', Buffer.from(PROTOBUF_PREFIX), jsonOnly)).toThrow(
      expect.objectContaining({ code: 415, message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml' }),
    );
    expect(() => decodeObjectBody('text/plain', Buffer.from('x'), roleBindingType)).toThrow(
      expect.objectContaining({
        code: 415,
        message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf',
      }),
    );
  });

  it('frames watch events as a 4-byte big-endian length and an Unknown-wrapped WatchEvent', () => {
    const object = codec.encode(`${RBAC}.Role`, 'rbac.authorization.platform.io/v1', 'Role', { metadata: { name: 'r' } });
    const frame = lengthDelimited(codec.encodeWatchEvent('rbac.authorization.platform.io/v1', 'ADDED', object));
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const envelope = new ProtobufCodec().unwrap(frame.subarray(4));
    expect(envelope).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'WatchEvent' });
    expect(fieldNumbers(envelope.raw)).toEqual([1, 2]);
    expect(Buffer.from(fieldBytes(envelope.raw, 1)).toString()).toBe('ADDED');
    // object = RawExtension{raw = 1: the object's own prefixed envelope}
    expect(Buffer.from(fieldBytes(fieldBytes(envelope.raw, 2), 1))).toEqual(object);
  });
});
