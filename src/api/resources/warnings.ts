import type { Response } from 'express';

/**
 * Response `Warning` headers as kube writes them (RFC 7234 code 299, agent `-`): one header
 * value per warning, the same text only once per response.
 */
const SENT = Symbol('warnings sent');

type WarnedResponse = Response & { [SENT]?: Set<string> };

/** kube's makeQuotedString: `"` and `\` escaped; line breaks cannot be in a header, so they become spaces. */
export function warningHeaderValue(text: string): string {
  const escaped = text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ');
  return `299 - "${escaped}"`;
}

export function addWarning(res: Response, text: string): void {
  const warned = res as WarnedResponse;
  const sent = (warned[SENT] ??= new Set<string>());
  if (sent.has(text) || res.headersSent) return;
  sent.add(text);
  res.append('Warning', warningHeaderValue(text));
}

/** A warning sink bound to one response, for storage code that records warnings as it goes. */
export function warningSink(res: Response): (text: string) => void {
  return (text) => addWarning(res, text);
}
