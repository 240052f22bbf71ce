import { controllerEnabled } from '../../../src/config/controllers';
import { FlagError, parseServerFlags } from '../../../src/config/flags';

describe('service-account, bootstrap token and controller flags', () => {
  it('defaults: no issuer or keys (generated at start), lookup on, bootstrap tokens off, controllers *', () => {
    expect(parseServerFlags([], {})).toMatchObject({
      serviceAccounts: { issuers: [], keyFiles: [], apiAudiences: [], maxTokenExpirationSeconds: 0, lookup: true },
      enableBootstrapTokenAuth: false,
      controllers: ['*'],
    });
  });

  it('repeats --service-account-issuer and --service-account-key-file; --api-audiences takes lists', () => {
    const o = parseServerFlags(
      [
        '--service-account-issuer=https://a.example',
        '--service-account-issuer',
        'https://b.example',
        '--service-account-key-file=k1.pem',
        '--service-account-key-file=k2.pem',
        '--api-audiences=x,y',
        '--api-audiences=z',
        '--service-account-signing-key-file=sa.key',
        '--service-account-lookup=false',
        '--service-account-max-token-expiration=24h',
        '--service-account-jwks-uri=https://a.example/keys',
        '--enable-bootstrap-token-auth',
      ],
      {},
    );
    expect(o.serviceAccounts).toEqual({
      issuers: ['https://a.example', 'https://b.example'],
      keyFiles: ['k1.pem', 'k2.pem'],
      apiAudiences: ['x', 'y', 'z'],
      signingKeyFile: 'sa.key',
      lookup: false,
      maxTokenExpirationSeconds: 86400,
      jwksUri: 'https://a.example/keys',
    });
    expect(o.enableBootstrapTokenAuth).toBe(true);
  });

  it('refuses bad values in kube words, naming the flag', () => {
    expect(() => parseServerFlags(['--service-account-issuer=http://[bad'], {})).toThrow(
      new FlagError('invalid argument "http://[bad" for "--service-account-issuer" flag: service-account-issuer "http://[bad" contained a \':\' but was not a valid URL'),
    );
    expect(() => parseServerFlags(['--service-account-max-token-expiration=10m'], {})).toThrow(
      new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds'),
    );
    expect(() => parseServerFlags(['--service-account-jwks-uri=https://x.example/keys'], {})).toThrow(new FlagError('service-account-jwks-uri requires service-account-issuer'));
    expect(() => parseServerFlags(['--service-account-issuer=https://x', '--service-account-jwks-uri=http://x/keys'], {})).toThrow(
      new FlagError('invalid argument "http://x/keys" for "--service-account-jwks-uri" flag: service-account-jwks-uri requires https scheme, parsed as: http://x/keys'),
    );
    expect(() => parseServerFlags(['--controllers=*,-tokencleaner,nope'], {})).toThrow(
      new FlagError('invalid argument "*,-tokencleaner,nope" for "--controllers" flag: "nope" is not in the list of known controllers'),
    );
  });

  it('enables controllers as kube-controller-manager does: *, names, -names, the first mention deciding', () => {
    expect(controllerEnabled(['*'], 'serviceaccount')).toBe(true);
    expect(controllerEnabled(['*'], 'tokencleaner')).toBe(false);
    expect(controllerEnabled(['*'], 'bootstrapsigner')).toBe(false);
    expect(controllerEnabled(['*', 'tokencleaner'], 'tokencleaner')).toBe(true);
    expect(controllerEnabled(['-serviceaccount', '*'], 'serviceaccount')).toBe(false);
    expect(controllerEnabled(['bootstrapsigner'], 'serviceaccount')).toBe(false);
    expect(controllerEnabled(['bootstrapsigner'], 'bootstrapsigner')).toBe(true);
    expect(parseServerFlags(['--controllers=bootstrapsigner', '--controllers=-serviceaccount'], {}).controllers).toEqual(['bootstrapsigner', '-serviceaccount']);
  });
});
