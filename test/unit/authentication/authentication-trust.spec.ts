import { authenticationTrustData } from '../../../src/authentication/authentication-trust';
import { createCertificateAuthority } from '../../../src/server/certificates';

describe('extension-apiserver-authentication data', () => {
  const [ours, theirs, proxy] = [createCertificateAuthority(), createCertificateAuthority(), createCertificateAuthority()];
  const blocks = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);

  it('holds the client CAs only when no proxy is configured', () => {
    const data = authenticationTrustData(undefined, { anonymous: true, clientCaPems: [ours.certPem] });
    expect(Object.keys(data)).toEqual(['client-ca-file']);
    expect(blocks(data['client-ca-file'])).toEqual(blocks(ours.certPem));
  });

  it("merges with what another server published: authorities and header lists each once, others' keys kept", () => {
    const existing = {
      'client-ca-file': theirs.certPem,
      'requestheader-username-headers': '["X-Remote-User","X-Their-User"]',
      'requestheader-allowed-names': 'not json',
      unrelated: 'kept',
    };
    const data = authenticationTrustData(existing, {
      anonymous: true,
      clientCaPems: [ours.certPem, theirs.certPem],
      requestHeader: { clientCaPem: proxy.certPem, allowedNames: ['front-proxy'], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] },
    });
    expect(blocks(data['client-ca-file'])).toEqual([...blocks(theirs.certPem)!, ...blocks(ours.certPem)!]);
    expect(blocks(data['requestheader-client-ca-file'])).toEqual(blocks(proxy.certPem));
    expect(data).toMatchObject({
      'requestheader-username-headers': '["X-Remote-User","X-Their-User"]',
      'requestheader-uid-headers': '[]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-allowed-names': '["front-proxy"]',
      unrelated: 'kept',
    });
  });
});
