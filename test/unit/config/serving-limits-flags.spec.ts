import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';

function helpText(): string {
  try {
    parseServerFlags(['--help'], {});
  } catch (err) {
    return (err as HelpRequested).helpText;
  }
  throw new Error('no help');
}

describe('in-flight limits, request timeouts and TLS flags', () => {
  it("defaults as kube-apiserver's", () => {
    expect(parseServerFlags([], {})).toMatchObject({
      maxRequestsInFlight: 400,
      maxMutatingRequestsInFlight: 200,
      requestTimeoutMs: 60_000,
      minRequestTimeoutSeconds: 1800,
      tlsMinVersion: 'VersionTLS12',
      tlsCipherSuites: [],
    });
  });

  it('reads them, 0 meaning no limit', () => {
    const o = parseServerFlags(
      [
        '--max-requests-inflight=0',
        '--max-mutating-requests-inflight',
        '3',
        '--request-timeout=1m30s',
        '--min-request-timeout=60',
        '--tls-min-version=VersionTLS13',
        '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256',
        '--tls-cipher-suites',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
      ],
      {},
    );
    expect(o).toMatchObject({
      maxRequestsInFlight: 0,
      maxMutatingRequestsInFlight: 3,
      requestTimeoutMs: 90_000,
      minRequestTimeoutSeconds: 60,
      tlsMinVersion: 'VersionTLS13',
      tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305'],
    });
  });

  it('names the flag when a value is bad, in kube words', () => {
    const refused = (argv: string[], message: string) => expect(() => parseServerFlags(argv, {})).toThrow(new FlagError(message));
    refused(['--tls-min-version=VersionTLS14'], 'invalid argument "VersionTLS14" for "--tls-min-version" flag: unknown tls version "VersionTLS14"');
    refused(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NO_SUCH_SUITE'], 'invalid argument "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NO_SUCH_SUITE" for "--tls-cipher-suites" flag: Cipher suite TLS_NO_SUCH_SUITE not supported or doesn\'t exist');
    refused(['--max-requests-inflight=-1'], 'invalid argument "-1" for "--max-requests-inflight" flag: --max-requests-inflight can not be negative value');
    refused(['--max-mutating-requests-inflight=many'], 'invalid argument "many" for "--max-mutating-requests-inflight" flag: strconv.ParseInt: parsing "many": invalid syntax');
    refused(['--min-request-timeout=-5'], 'invalid argument "-5" for "--min-request-timeout" flag: --min-request-timeout can not be negative value');
    refused(['--request-timeout=60'], 'invalid argument "60" for "--request-timeout" flag: time: missing unit in duration "60"');
  });

  it('lists them in --help where kube does, with the accepted values', () => {
    const help = helpText();
    const section = (heading: string) => help.slice(help.indexOf(`${heading}\n`)).split('\n\n\n')[0].split(/\n(?=\S)/)[0];
    const serving = section('Secure serving flags:');
    expect(serving).toMatch(/^ {6}--tls-min-version string +Minimum TLS version supported\. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13$/m);
    expect(serving).toMatch(/^ {6}--tls-cipher-suites strings +Comma-separated list of cipher suites for the server\./m);
    expect(serving).toMatch(/^ +Preferred values: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .*\.$/m);
    expect(serving).toMatch(/^ +Insecure values: .*TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256.*\.$/m);
    const generic = section('Generic flags:');
    expect(generic).toMatch(/^ {6}--max-requests-inflight int +The maximum number of non-mutating requests in flight at a given time\. When the server exceeds this, it rejects requests\. Zero for no limit\. \(default 400\)$/m);
    expect(generic).toMatch(/^ {6}--max-mutating-requests-inflight int +.* \(default 200\)$/m);
    expect(generic).toMatch(/^ {6}--request-timeout duration +An optional field indicating the duration a handler must keep a request open before timing it out\. .* \(default 1m0s\)$/m);
    expect(generic).toMatch(/^ {6}--min-request-timeout int +.*picks a randomized value above this number as the connection timeout, to spread out load\. \(default 1800\)$/m);
  });
});
