/**
 * Checks base64 text the way Go's encoding/base64 StdEncoding decodes the `[]byte` fields
 * of kube's types (Secret data, ConfigMap binaryData): standard alphabet, `=` padding
 * required, CR and LF ignored. Returns the byte offset Go reports in
 * `illegal base64 data at input byte N`, or -1 when the text decodes.
 */

const ALPHABET = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
const isNewline = (c: string) => c === '\n' || c === '\r';

export function base64ErrorOffset(src: string): number {
  let si = 0;
  while (si < src.length) {
    // One quantum: up to four significant characters.
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return -1;
        // A quantum that stops early without padding is corrupt at its first character.
        return si - j;
      }
      const c = src[si++];
      if (ALPHABET.has(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      // Padding: allowed only as the 3rd and 4th characters of the last quantum.
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== '=') return si - 1;
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : -1;
    }
  }
  return -1;
}
