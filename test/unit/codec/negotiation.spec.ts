import { parseAccept } from '../../../src/runtime/serializer/media-type';
import {
  negotiateErrorSerializer,
  negotiateResponse,
  prettyRequested,
  RenderCapabilities,
} from '../../../src/runtime/serializer/negotiation';

const FULL: RenderCapabilities = { protobuf: true, table: true };
const JSON_ONLY: RenderCapabilities = { protobuf: false, table: true };
const NO_TABLE: RenderCapabilities = { protobuf: true, table: false };
const TABLE_V1 = 'application/json;as=Table;g=meta.platform.io;v=v1';

describe('Accept parsing', () => {
  it('orders by q-value, then concrete types before wildcards, then as given', () => {
    expect(parseAccept('application/json;q=0.5, application/yaml').map((m) => m.type)).toEqual(['application/yaml', 'application/json']);
    expect(parseAccept('*/*, application/*, application/yaml').map((m) => m.type)).toEqual(['application/yaml', 'application/*', '*/*']);
    expect(parseAccept('application/yaml, application/json').map((m) => m.type)).toEqual(['application/yaml', 'application/json']);
  });

  it('drops q=0 entries and ranges that are not type/subtype; keeps parameters', () => {
    expect(parseAccept('application/json;q=0, nonsense, application/yaml').map((m) => m.type)).toEqual(['application/yaml']);
    expect(parseAccept('*')[0].type).toBe('*/*');
    expect(parseAccept(`${TABLE_V1};q=0.9`)[0].params).toEqual({ as: 'Table', g: 'meta.platform.io', v: 'v1' });
  });
});

describe('response negotiation', () => {
  it('defaults to JSON and takes wildcards as JSON', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', '*']) {
      expect(negotiateResponse(accept, FULL)).toEqual({ serializer: 'json', mediaType: 'application/json', pretty: false });
    }
  });

  it('serves YAML and protobuf', () => {
    expect(negotiateResponse('application/yaml', FULL).serializer).toBe('yaml');
    expect(negotiateResponse('application/vnd.platform.protobuf', FULL)).toMatchObject({ serializer: 'protobuf', mediaType: 'application/vnd.platform.protobuf' });
    expect(negotiateResponse('application/vnd.platform.protobuf, application/json', FULL).serializer).toBe('protobuf');
  });

  it('serves Table in meta.platform.io v1 and v1beta1, as JSON or YAML', () => {
    expect(negotiateResponse(TABLE_V1, FULL)).toEqual({ serializer: 'json', mediaType: 'application/json', pretty: false, transform: { kind: 'Table', group: 'meta.platform.io', version: 'v1' } });
    expect(negotiateResponse('application/json;as=Table;g=meta.platform.io;v=v1beta1', FULL).transform).toEqual({ kind: 'Table', group: 'meta.platform.io', version: 'v1beta1' });
    expect(negotiateResponse('application/yaml;as=Table;g=meta.platform.io;v=v1', FULL)).toMatchObject({ serializer: 'yaml', transform: { kind: 'Table' } });
  });

  it("serves kubectl's meta.k8s.io entries in that group: Table and PartialObjectMetadata[List]", () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(negotiateResponse(kubectl, FULL)).toEqual({
      serializer: 'json',
      mediaType: 'application/json',
      pretty: false,
      transform: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' },
    });
    expect(negotiateResponse(kubectl, NO_TABLE)).toEqual({ serializer: 'json', mediaType: 'application/json', pretty: false });
    const metadataClient = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    expect(negotiateResponse(metadataClient, FULL).transform).toEqual({ kind: 'PartialObjectMetadataList', group: 'meta.k8s.io', version: 'v1' });
    expect(negotiateResponse('application/json;as=Table;g=k8s.io;v=v1, application/yaml', FULL)).toEqual({ serializer: 'yaml', mediaType: 'application/yaml', pretty: false });
  });

  it('has no protobuf Table: falls back along the list, else 406', () => {
    const accept = 'application/vnd.platform.protobuf;as=Table;g=meta.platform.io;v=v1, application/json';
    expect(negotiateResponse(accept, FULL)).toEqual({ serializer: 'json', mediaType: 'application/json', pretty: false });
    expect(() => negotiateResponse('application/vnd.platform.protobuf;as=Table;g=meta.platform.io;v=v1', FULL)).toThrow(expect.objectContaining({ code: 406 }));
  });

  it('serves PartialObjectMetadata[List] in every serializer', () => {
    expect(negotiateResponse('application/vnd.platform.protobuf;as=PartialObjectMetadataList;g=meta.platform.io;v=v1', FULL)).toMatchObject({
      serializer: 'protobuf',
      transform: { kind: 'PartialObjectMetadataList', group: 'meta.platform.io', version: 'v1' },
    });
    expect(negotiateResponse('application/json;as=PartialObjectMetadata;g=meta.platform.io;v=v1', NO_TABLE).transform).toEqual({ kind: 'PartialObjectMetadata', group: 'meta.platform.io', version: 'v1' });
  });

  it('skips renderings it does not know or the kind lacks', () => {
    for (const accept of [
      'application/json;as=Table',
      'application/json;as=Table;g=meta.platform.io;v=v2',
      'application/json;as=Foo;g=meta.platform.io;v=v1',
      'application/json;g=meta.platform.io;v=v1',
    ]) {
      expect(() => negotiateResponse(accept, FULL)).toThrow(expect.objectContaining({ code: 406 }));
    }
    expect(() => negotiateResponse(TABLE_V1, NO_TABLE)).toThrow(expect.objectContaining({ code: 406 }));
    expect(negotiateResponse(`${TABLE_V1}, application/yaml`, NO_TABLE).serializer).toBe('yaml');
  });

  it("answers 406 with kube's message listing the kind's media types", () => {
    expect(() => negotiateResponse('text/html', FULL)).toThrow(
      expect.objectContaining({
        code: 406,
        reason: 'NotAcceptable',
        message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf',
      }),
    );
    expect(() => negotiateResponse('application/vnd.platform.protobuf', JSON_ONLY)).toThrow(
      expect.objectContaining({ code: 406, message: 'only the following media types are accepted: application/json, application/yaml' }),
    );
    expect(negotiateResponse('application/vnd.platform.protobuf, application/json', JSON_ONLY).serializer).toBe('json');
  });

  it('honours pretty=1 and stream=watch parameters', () => {
    expect(negotiateResponse('application/json;pretty=1', FULL).pretty).toBe(true);
    expect(negotiateResponse('application/json;stream=watch', FULL).serializer).toBe('json');
    expect(() => negotiateResponse('application/json;stream=other', FULL)).toThrow(expect.objectContaining({ code: 406 }));
  });

  it('gives watches their stream media types; YAML cannot stream', () => {
    expect(negotiateResponse(undefined, FULL, true).mediaType).toBe('application/json');
    expect(negotiateResponse('application/vnd.platform.protobuf', FULL, true).mediaType).toBe('application/vnd.platform.protobuf;stream=watch');
    expect(negotiateResponse(TABLE_V1, FULL, true)).toMatchObject({ mediaType: 'application/json', transform: { kind: 'Table' } });
    expect(() => negotiateResponse('application/yaml', FULL, true)).toThrow(
      expect.objectContaining({
        code: 406,
        message: 'only the following media types are accepted: application/json;stream=watch, application/vnd.platform.protobuf;stream=watch',
      }),
    );
  });
});

describe('error negotiation', () => {
  it('renders errors in YAML or protobuf when accepted, never transformed, JSON otherwise', () => {
    expect(negotiateErrorSerializer('application/yaml', FULL)).toBe('yaml');
    expect(negotiateErrorSerializer('application/vnd.platform.protobuf', FULL)).toBe('protobuf');
    expect(negotiateErrorSerializer('application/vnd.platform.protobuf', JSON_ONLY)).toBe('json');
    expect(negotiateErrorSerializer(`application/yaml;as=Table;g=meta.platform.io;v=v1`, FULL)).toBe('json');
    expect(negotiateErrorSerializer('text/html', FULL)).toBe('json');
  });
});

describe('pretty printing', () => {
  it('reads the pretty parameter as Go booleans, else the user agent', () => {
    expect(prettyRequested({ pretty: 'true' }, undefined)).toBe(true);
    expect(prettyRequested({ pretty: '1' }, undefined)).toBe(true);
    expect(prettyRequested({ pretty: 'false' }, 'curl/8.0')).toBe(false);
    expect(prettyRequested({}, 'curl/8.0')).toBe(true);
    expect(prettyRequested({}, 'Mozilla/5.0 (X11)')).toBe(true);
    expect(prettyRequested({}, 'kubectl/v1.32.4')).toBe(false);
  });
});
