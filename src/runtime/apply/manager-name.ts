/** The longest field manager name kube accepts (bytes). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Unicode categories Go's unicode.IsPrint accepts: letters, marks, numbers, punctuation, symbols, and ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The manager a non-apply write is recorded under when it names none (kube's
 * prefixFromUserAgent): the User-Agent up to its first `/`, without unprintable
 * characters, cut to the longest manager name.
 */
export function prefixFromUserAgent(userAgent: string): string {
  let out = '';
  let bytes = 0;
  for (const ch of userAgent.split('/')[0]) {
    if (!PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** The `fieldManager` parameter, or else the User-Agent's prefix (kube's managerOrUserAgent). */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager || prefixFromUserAgent(userAgent ?? '');
}
