import { ServiceAccountTokenOptions } from '../../config/options';
import { ensureGeneratedSigningKey, readSigningKey, readVerificationKeys, SigningKey, VerificationKey, verificationKeyOf } from './keys';
import { ServiceAccountTokenSettings } from './service-account-tokens';

/** The key files the flags name, read and checked before anything is written. */
export interface ServiceAccountKeyFiles {
  signing?: SigningKey;
  verification?: VerificationKey[];
}

/** Reads the files of --service-account-signing-key-file and --service-account-key-file; `check` names the flag of a failure. */
export async function readServiceAccountKeyFiles(
  options: ServiceAccountTokenOptions,
  check: <T>(flag: string, load: () => T) => Promise<T>,
): Promise<ServiceAccountKeyFiles> {
  const files: ServiceAccountKeyFiles = {};
  if (options.signingKeyFile) files.signing = await check('--service-account-signing-key-file', () => readSigningKey(options.signingKeyFile!));
  if (options.keyFiles.length) {
    files.verification = [];
    for (const file of options.keyFiles) files.verification.push(...(await check('--service-account-key-file', () => readVerificationKeys(file))));
  }
  return files;
}

/**
 * The issuer's settings once the server knows its URL: without a signing key file, the key
 * generated once into the data directory; without an issuer, the server's own URL; without
 * key files, the signing key verifies; without --api-audiences, the issuers are the audiences.
 */
export function serviceAccountTokenSettings(
  options: ServiceAccountTokenOptions,
  files: ServiceAccountKeyFiles,
  dataDir: string,
  serverUrl: string,
  caCertPem: string,
): ServiceAccountTokenSettings {
  const signing = files.signing ?? ensureGeneratedSigningKey(dataDir);
  const issuers = options.issuers.length ? options.issuers : [serverUrl];
  const settings: ServiceAccountTokenSettings = {
    issuers,
    // kube: the audiences default to the issuers (the first one issues).
    apiAudiences: options.apiAudiences.length ? options.apiAudiences : [...issuers],
    signing,
    verification: files.verification ?? [verificationKeyOf(signing)],
    maxExpirationSeconds: options.maxTokenExpirationSeconds,
    lookup: options.lookup,
    caCertPem,
  };
  if (options.jwksUri) settings.jwksUri = options.jwksUri;
  return settings;
}
