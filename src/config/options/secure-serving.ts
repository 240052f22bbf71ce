import { DEFAULT_TLS_MIN_VERSION, INSECURE_CIPHER_SUITES, parseCipherSuites, parseTlsVersion, PREFERRED_CIPHER_SUITES, TLS_VERSION_NAMES } from '../tls';
import { commaList, flag, FlagProblem, int, ip, path, problem, SECTION, setting, strings, subsystem, text } from './flag';

/** kube's SecureServingOptions: where and how the HTTPS port is served. */
export const secureServing = subsystem({
  section: SECTION.serving,
  flags: {
    bindAddress: flag({ name: 'bind-address', ...ip, default: '127.0.0.1', usage: 'The IP address (or host name) on which to listen for the --secure-port port.' }),
    securePort: flag({ name: 'secure-port', ...int(0, 65535), default: 6443, usage: 'The port on which to serve HTTPS with authentication and authorization; 0 picks a free port.' }),
    tlsCertFile: flag({
      name: 'tls-cert-file',
      ...path,
      usage: 'File containing the x509 serving certificate (PEM), followed by any intermediate certificates. Without it a certificate is generated into --data-dir.',
    }),
    tlsPrivateKeyFile: flag({ name: 'tls-private-key-file', ...path, usage: 'File containing the x509 private key matching --tls-cert-file.' }),
    /** Go's names of the suites offered; empty: the TLS library's defaults. */
    tlsCipherSuites: flag({
      name: 'tls-cipher-suites',
      ...strings((value) => parseCipherSuites(commaList(value))),
      default: [],
      usage: [
        "Comma-separated list of cipher suites for the server. If omitted, the TLS library's default cipher suites will be used. TLS 1.3 suites cannot be configured: TLS 1.3 handshakes may use any of them.",
        `Preferred values: ${PREFERRED_CIPHER_SUITES.join(', ')}.`,
        `Insecure values: ${INSECURE_CIPHER_SUITES.join(', ')}.`,
      ].join('\n'),
    }),
    // kube prints no default: unset, Go's own minimum applies (here kube's, TLS 1.2).
    tlsMinVersion: flag({
      name: 'tls-min-version',
      ...text(parseTlsVersion),
      default: DEFAULT_TLS_MIN_VERSION,
      shown: null,
      usage: `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')}`,
    }),
    maxRequestBodyBytes: flag({ name: 'max-request-bytes', ...int(1024, 1024 * 1024 * 1024), default: 3 * 1024 * 1024, usage: 'The largest request body accepted (413 beyond).' }),
    /** Write <data-dir>/admin.kubeconfig once the port is known. */
    writeAdminKubeconfig: setting(true),
  },
  validate(o) {
    const problems: FlagProblem[] = [];
    if (!!o.tlsCertFile !== !!o.tlsPrivateKeyFile) problems.push(problem('--tls-cert-file and --tls-private-key-file must be given together', 'tls-cert-file', 'tls-private-key-file'));
    return problems;
  },
});
