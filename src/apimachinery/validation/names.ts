/**
 * Name and label syntax checks, as k8s.io/apimachinery's util/validation and
 * api/validation/path. Each returns the reasons a value is bad (empty when it is
 * fine) with kube's exact texts, so callers wrap them in `Invalid value` errors.
 */

/** Lengths are counted in bytes, as Go's len() does. */
export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/** kube's RegexError: the message, optional examples, then the regex itself. */
export function regexError(message: string, pattern: string, ...examples: string[]): string {
  if (!examples.length) return `${message} (regex used for validation is '${pattern}')`;
  // Go appends "'x', " then " or ", hence the double space between examples.
  const quoted = examples.map((e) => `'${e}', `).join(' or ');
  return `${message} (e.g. ${quoted}regex used for validation is '${pattern}')`;
}

const anchored = (pattern: string) => new RegExp(`^${pattern}$`);

// ---- DNS-1123 -----------------------------------------------------------------------

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const dns1123LabelRe = anchored(DNS1123_LABEL_FMT);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const dns1123SubdomainRe = anchored(DNS1123_SUBDOMAIN_FMT);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is no valid label can only be failing on its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

// ---- qualified names and label values -------------------------------------------------

const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QNAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QNAME_MAX_LENGTH = 63;
const qualifiedNameRe = anchored(QNAME_FMT);
const QNAME_EXAMPLES = ['MyName', 'my.name', '123-abc'];

/** A qualified name (label key, annotation key, finalizer): `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QNAME_ERR, QNAME_FMT, ...QNAME_EXAMPLES)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (!prefix) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((msg) => `prefix part ${msg}`));
  }
  if (!name) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QNAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QNAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(QNAME_ERR, QNAME_FMT, ...QNAME_EXAMPLES)}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRe = anchored(LABEL_VALUE_FMT);

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---- path segments --------------------------------------------------------------------

const NAME_MAY_NOT_BE = ['.', '..'];
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** kube's path.IsValidPathSegmentPrefix: a prefix only has to avoid the separators. */
export function isValidPathSegmentPrefix(name: string): string[] {
  return NAME_MAY_NOT_CONTAIN.filter((s) => name.includes(s)).map((s) => `may not contain '${s}'`);
}

/** kube's path.IsValidPathSegmentName: the name must stay one URL path segment. */
export function isValidPathSegmentName(name: string): string[] {
  const reserved = NAME_MAY_NOT_BE.find((s) => name === s);
  if (reserved !== undefined) return [`may not be '${reserved}'`];
  return isValidPathSegmentPrefix(name);
}

/** kube's path.ValidatePathSegmentName, the name rule of the RBAC kinds. */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
}

// ---- name validators (kube's ValidateNameFunc) ------------------------------------------

/**
 * A generateName prefix may end in '-', which the random suffix follows. kube masks it
 * by replacing the last two characters with 'a' (sic: one shorter), and so do we.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** kube's NameIsDNSLabel. */
export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

/** kube's NameIsDNSSubdomain. */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

/** Namespace names are DNS-1123 labels. */
export const validateNamespaceName = nameIsDNSLabel;

/** Service account names are DNS-1123 subdomains. */
export const validateServiceAccountName = nameIsDNSSubdomain;
