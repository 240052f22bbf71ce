import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../../apimachinery/errors';

/**
 * Continue tokens of chunked lists: the snapshot revision and the last key returned,
 * base64url JSON plus an HMAC so a client cannot forge a position or a revision. The key
 * is shared by every replica (it lives in the database), so any replica continues a list.
 */
export interface ContinuePosition {
  /** The snapshot revision of the first chunk. */
  revision: string;
  /** The last key returned: the next chunk starts after it. */
  namespace: string;
  name: string;
}

export class ContinueTokens {
  constructor(private readonly key: Buffer) {}

  encode(pos: ContinuePosition): string {
    const payload = Buffer.from(JSON.stringify({ v: 'meta.platform.io/v1', rv: pos.revision, ns: pos.namespace, n: pos.name })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** Decodes a token; a malformed or tampered token is 400, as kube's "continue key is not valid". */
  decode(token: string): ContinuePosition {
    const invalid = (why: string) => errors.badRequest(`continue key is not valid: ${why}`);
    const dot = token.lastIndexOf('.');
    if (dot <= 0) throw invalid('malformed token');
    const payload = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(payload), 'base64url');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalid('token signature does not match');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid('malformed token');
    }
    const p = parsed as Record<string, unknown>;
    if (p.v !== 'meta.platform.io/v1' || typeof p.rv !== 'string' || !/^\d+$/.test(p.rv) || typeof p.ns !== 'string' || typeof p.n !== 'string') {
      throw invalid('unsupported token version or fields');
    }
    return { revision: p.rv, namespace: p.ns, name: p.n };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
