import { contentEncode, GZIP_THRESHOLD_BYTES, gzipAccepted } from '../../../src/runtime/serializer/compression';
import { negotiateResponse } from '../../../src/runtime/serializer/negotiation';
import { protobufCodec } from '../../../src/runtime/serializer/protobuf/protobuf-codec';
import { watchEventEncoder } from '../../../src/endpoints/watch/watch-encoder';
import { gunzipSync } from 'node:zlib';
import { roleBindingType } from '../../../src/rbac/kinds/kinds';

const CAPS = { protobuf: true, table: true };
const event = (name: string) => ({
  type: 'ADDED' as const,
  object: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBinding', metadata: { name, namespace: 'ns' }, roleRef: { apiGroup: 'g', kind: 'Role', name: 'r' } },
});

describe('watch event encoders', () => {
  it('sends Table events with column definitions on the first event only', () => {
    const format = negotiateResponse('application/json;as=Table;g=meta.platform.io;v=v1', CAPS, true);
    const encoder = watchEventEncoder(format, { type: roleBindingType, query: { includeObject: 'None' } });
    expect(encoder.contentType).toBe('application/json');
    const first = JSON.parse(encoder.encode(event('a')).toString());
    const second = JSON.parse(encoder.encode(event('b')).toString());
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'Table', rows: [{ cells: ['a', 'Role/r', '<unknown>', '', '', ''], object: null }] } });
    expect(first.object.columnDefinitions).toHaveLength(6);
    expect(second.object.columnDefinitions).toBeNull();
    expect(second.object.rows[0].cells[0]).toBe('b');
    const error = { type: 'ERROR' as const, object: { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const, code: 410 } };
    expect(JSON.parse(encoder.encode(error).toString()).object.kind).toBe('Status');
  });

  it('checks Table options before the stream opens', () => {
    const format = negotiateResponse('application/json;as=Table;g=meta.platform.io;v=v1', CAPS, true);
    expect(() => watchEventEncoder(format, { type: roleBindingType, query: { includeObject: 'x' } })).toThrow(expect.objectContaining({ code: 400 }));
  });

  it('frames protobuf events with a length prefix and a WatchEvent envelope', () => {
    const format = negotiateResponse('application/vnd.platform.protobuf', CAPS, true);
    const encoder = watchEventEncoder(format, { type: roleBindingType, query: {} });
    expect(encoder.contentType).toBe('application/vnd.platform.protobuf;stream=watch');
    const frame = encoder.encode(event('a'));
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const codec = protobufCodec();
    const envelope = codec.unwrap(frame.subarray(4));
    expect(envelope).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'WatchEvent' });
    // object.raw holds the object's own prefixed protobuf encoding.
    const watchEvent = codec.type('platform.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(envelope.raw) as any;
    expect(watchEvent.type).toBe('ADDED');
    expect(codec.decode('platform.io.api.rbac.v1.RoleBinding', Buffer.from(watchEvent.object.raw))).toMatchObject({ kind: 'RoleBinding', metadata: { name: 'a' } });
  });
});

describe('gzip', () => {
  it("recognises gzip as a token of Accept-Encoding, as kube does, and only with the gate on", () => {
    expect(gzipAccepted('gzip, deflate', true)).toBe(true);
    expect(gzipAccepted('deflate,gzip', true)).toBe(true);
    expect(gzipAccepted('gzip;q=1.0', true)).toBe(false);
    expect(gzipAccepted('br', true)).toBe(false);
    expect(gzipAccepted('gzip', false)).toBe(false);
  });

  it('compresses only bodies above 128 KiB', () => {
    const small = Buffer.alloc(GZIP_THRESHOLD_BYTES, 'a');
    expect(contentEncode(small, true)).toEqual({ body: small, headers: {} });
    const large = Buffer.alloc(GZIP_THRESHOLD_BYTES + 1, 'a');
    const encoded = contentEncode(large, true);
    expect(encoded.headers).toEqual({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(gunzipSync(encoded.body)).toEqual(large);
    expect(contentEncode(large, false).body).toBe(large);
  });
});
