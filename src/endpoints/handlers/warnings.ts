import type { Response } from 'express';
import { warningValues } from '../../runtime/serializer/response';

/**
 * kube's NewWarningHeader: code 299, agent `-`, the text quoted with `"` and `\` escaped.
 * Go writes the header's bytes as they are, UTF-8 included; Node takes a header string as
 * Latin-1, so the text goes as its UTF-8 bytes, one character each. kube drops a warning
 * whose text has control characters (a header cannot carry them); line breaks become
 * spaces here, since the YAML decoder's findings carry them.
 */
export function warningHeaderValue(text: string): string | undefined {
  const oneLine = text.replace(/[\r\n]/g, ' ');
  if (/\p{Cc}/u.test(oneLine)) return undefined;
  const escaped = oneLine.replace(/[\\"]/g, (c) => `\\${c}`);
  return `299 - "${Buffer.from(escaped, 'utf8').toString('latin1')}"`;
}

/**
 * Response `Warning` headers as kube writes them (RFC 7234 code 299, agent `-`): one header
 * value per warning, the same text only once per response.
 */
export function addWarning(res: Response, text: string): void {
  if (res.headersSent) return;
  const value = warningHeaderValue(text);
  if (value === undefined || warningValues(res).includes(value)) return;
  res.append('Warning', value);
}

/** A warning sink bound to one response, for storage code that records warnings as it goes. */
export function warningSink(res: Response): (text: string) => void {
  return (text) => addWarning(res, text);
}
