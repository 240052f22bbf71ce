import type { Response } from 'express';
import { markHeaderBytes } from '../../runtime/serializer/response';

/**
 * Response `Warning` headers as kube writes them (RFC 7234 code 299, agent `-`): one header
 * value per warning, the same text only once per response.
 */
const SENT = Symbol('warnings sent');

type WarnedResponse = Response & { [SENT]?: Set<string> };

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

export function addWarning(res: Response, text: string): void {
  const warned = res as WarnedResponse;
  const sent = (warned[SENT] ??= new Set<string>());
  if (sent.has(text) || res.headersSent) return;
  sent.add(text);
  const value = warningHeaderValue(text);
  if (value === undefined) return;
  if (/[^\x00-\x7f]/.test(value)) markHeaderBytes(res);
  res.append('Warning', value);
}

/** A warning sink bound to one response, for storage code that records warnings as it goes. */
export function warningSink(res: Response): (text: string) => void {
  return (text) => addWarning(res, text);
}
