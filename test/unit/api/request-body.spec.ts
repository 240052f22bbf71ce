import { canonicalBodyType } from '../../../src/endpoints/filters/request-body.middleware';

describe('request body media types', () => {
  it("reads Kubernetes' protobuf media type as ours (kubectl's typed clients send it)", () => {
    expect(canonicalBodyType('application/vnd.kubernetes.protobuf')).toBe('application/vnd.platform.protobuf');
    expect(canonicalBodyType('application/vnd.kubernetes.protobuf; charset=utf-8')).toBe('application/vnd.platform.protobuf');
  });

  it('leaves every other type as sent', () => {
    expect(canonicalBodyType('application/json')).toBe('application/json');
    expect(canonicalBodyType('application/vnd.platform.protobuf')).toBe('application/vnd.platform.protobuf');
    expect(canonicalBodyType(undefined)).toBeUndefined();
  });
});
