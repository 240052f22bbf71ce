import { DEFAULT_CIPHERS, getCiphers } from 'node:tls';

/**
 * `--tls-min-version` and `--tls-cipher-suites` as kube-apiserver reads them (component-base's
 * cli/flag/ciphersuites_flag.go): Go's names, mapped to what Node's TLS (OpenSSL) takes.
 */

/** Go's version names, as the flag takes them, and Node's `minVersion` for each. */
const TLS_VERSIONS = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
} as const;

export type TlsVersionName = keyof typeof TLS_VERSIONS;

/** kube's default minimum: TLS 1.0 and 1.1 are refused unless asked for. */
export const DEFAULT_TLS_MIN_VERSION: TlsVersionName = 'VersionTLS12';

/** What `--help` lists, sorted as kube's TLSPossibleVersions. */
export const TLS_VERSION_NAMES = Object.keys(TLS_VERSIONS).sort() as TlsVersionName[];

/** kube's TLSVersion: an unknown name is an error in its words. */
export function parseTlsVersion(value: string): TlsVersionName {
  if (!(value in TLS_VERSIONS)) throw new Error(`unknown tls version ${JSON.stringify(value)}`);
  return value as TlsVersionName;
}


/**
 * TLS 1.3 suites: Go does not let them be configured (they are always on in TLS 1.3), so kube
 * accepts their names and they change nothing. Here too.
 */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/**
 * The TLS 1.2 and earlier suites kube accepts (Go's CipherSuites and InsecureCipherSuites, plus
 * kube's legacy CHACHA20 names), with their OpenSSL names and whether Go calls them insecure.
 */
const SUITES: Record<string, { openssl: string; insecure: boolean }> = {
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'DES-CBC3-SHA', insecure: false },
  TLS_RSA_WITH_AES_128_CBC_SHA: { openssl: 'AES128-SHA', insecure: false },
  TLS_RSA_WITH_AES_256_CBC_SHA: { openssl: 'AES256-SHA', insecure: false },
  TLS_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'AES128-GCM-SHA256', insecure: false },
  TLS_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'AES256-GCM-SHA384', insecure: false },
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES128-SHA', insecure: false },
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES256-SHA', insecure: false },
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'ECDHE-RSA-DES-CBC3-SHA', insecure: false },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-RSA-AES128-SHA', insecure: false },
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-RSA-AES256-SHA', insecure: false },
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256', insecure: false },
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-ECDSA-AES256-GCM-SHA384', insecure: false },
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-RSA-AES128-GCM-SHA256', insecure: false },
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-RSA-AES256-GCM-SHA384', insecure: false },
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-RSA-CHACHA20-POLY1305', insecure: false },
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305', insecure: false },
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: { openssl: 'ECDHE-RSA-CHACHA20-POLY1305', insecure: false },
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: { openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305', insecure: false },
  TLS_RSA_WITH_RC4_128_SHA: { openssl: 'RC4-SHA', insecure: true },
  TLS_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'AES128-SHA256', insecure: true },
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-ECDSA-RC4-SHA', insecure: true },
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-RSA-RC4-SHA', insecure: true },
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-ECDSA-AES128-SHA256', insecure: true },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-RSA-AES128-SHA256', insecure: true },
};

/**
 * The suites this server can offer: the OpenSSL that Node is built with has no RC4 and no 3DES,
 * so those names are refused rather than accepted and silently not served.
 */
const available = new Set(getCiphers());
const SERVABLE = Object.keys(SUITES).filter((name) => available.has(SUITES[name].openssl.toLowerCase()));

/** `--help`'s "Preferred values", sorted as kube lists them. */
export const PREFERRED_CIPHER_SUITES = [...TLS13_SUITES, ...SERVABLE.filter((name) => !SUITES[name].insecure)].sort();
/** `--help`'s "Insecure values": accepted, with a warning at start (as kube). */
export const INSECURE_CIPHER_SUITES = SERVABLE.filter((name) => SUITES[name].insecure).sort();

/** kube's TLSCipherSuites: each name must be one it knows (here: one this server can serve). */
export function parseCipherSuites(names: string[]): string[] {
  for (const name of names) {
    if (!PREFERRED_CIPHER_SUITES.includes(name) && !INSECURE_CIPHER_SUITES.includes(name)) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
  }
  return names;
}

/** The insecure suites among those named: kube logs "Use of insecure cipher '<name>' detected." for each. */
export function insecureCipherSuites(names: string[]): string[] {
  return names.filter((name) => SUITES[name]?.insecure);
}

/** Node's handshake settings for a server (its `minVersion` and `ciphers`). */
export interface TlsHandshakeSettings {
  minVersion: (typeof TLS_VERSIONS)[TlsVersionName];
  ciphers?: string;
}

/**
 * The handshake settings for `--tls-min-version` and `--tls-cipher-suites`. Named suites: the
 * TLS 1.2 ones, in the order given, then every TLS 1.3 suite, since Go always offers all of
 * them in TLS 1.3 while Node would turn TLS 1.3 off if none were listed; with only TLS 1.3
 * names no TLS 1.2 suite is left, so (as in Go) only TLS 1.3 handshakes succeed. No suites
 * named: the TLS library's defaults (kube: Go's). TLS 1.0 and 1.1 need OpenSSL's security
 * level 0 (they sign with SHA-1): a minimum below TLS 1.2 asks for them, so it is lowered then.
 */
export function tlsHandshakeSettings(minVersion: TlsVersionName, names: string[]): TlsHandshakeSettings {
  const settings: TlsHandshakeSettings = { minVersion: TLS_VERSIONS[minVersion] };
  const legacy = minVersion === 'VersionTLS10' || minVersion === 'VersionTLS11';
  if (names.length === 0) {
    if (legacy) settings.ciphers = `${DEFAULT_CIPHERS}:@SECLEVEL=0`;
    return settings;
  }
  const tls12 = [...new Set(names.filter((name) => name in SUITES).map((name) => SUITES[name].openssl))];
  settings.ciphers = [...tls12, ...TLS13_SUITES, ...(legacy ? ['@SECLEVEL=0'] : [])].join(':');
  return settings;
}
