/**
 * URLs as CEL's `url()` sees them: Go's url.ParseRequestURI decides what is valid (an
 * absolute URI or an absolute path; relative references are errors), and the accessors
 * return what Go's url.URL does (host with port, hostname without brackets, escaped path,
 * query as a multimap). WHATWG `URL` normalises too much (default ports, trailing slash,
 * host case) to give the same answers, so the parsing is done here.
 */

export class UrlParseError extends Error {}

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*$/;
const HEX = /^[0-9a-fA-F]{2}$/;

/** Go's shouldEscape for paths: what EscapedPath leaves as is. */
function pathByteIsSafe(byte: number): boolean {
  const c = String.fromCharCode(byte);
  return /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(c);
}

/** Percent-decodes; `plusIsSpace` for query components. Bad escapes throw as Go's unescape does. */
function unescape(text: string, plusIsSpace: boolean): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new UrlParseError(`invalid URL escape ${JSON.stringify(text.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+' && plusIsSpace) bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Go's validEncoded(path): the raw path can be returned as the escaped path. */
function isValidEncodedPath(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    const code = raw.charCodeAt(i);
    if (code > 0x7f || !pathByteIsSafe(code)) return false;
  }
  return true;
}

function escapePath(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    out += pathByteIsSafe(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's parseHost: `[v6]:port` or `name:port`, the port digits only. */
function checkHost(host: string, input: string): void {
  let port = '';
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close < 0) throw new UrlParseError(`parse ${JSON.stringify(input)}: missing ']' in host`);
    port = host.slice(close + 1);
    if (port && !/^:\d*$/.test(port)) throw new UrlParseError(`parse ${JSON.stringify(input)}: invalid port ${JSON.stringify(port)} after host`);
    return;
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    port = host.slice(colon);
    if (!/^:\d*$/.test(port)) throw new UrlParseError(`parse ${JSON.stringify(input)}: invalid port ${JSON.stringify(port)} after host`);
  }
  const bad = /[\s"<>\\^`{|}]/.exec(host);
  if (bad) throw new UrlParseError(`parse ${JSON.stringify(input)}: invalid character ${JSON.stringify(bad[0])} in host name`);
}

export class UrlValue {
  private constructor(
    readonly scheme: string,
    /** Host with port, IPv6 in brackets (Go's u.Host). */
    readonly host: string,
    private readonly rawPath: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  /** Go's ParseRequestURI validity, then url.Parse's components (the fragment dropped). */
  static parse(input: string): UrlValue {
    if (input === '') throw new UrlParseError('parse "": empty url');
    if (/[\x00-\x1f\x7f]/.test(input)) throw new UrlParseError(`parse ${JSON.stringify(input)}: net/url: invalid control character in URL`);
    const hash = input.indexOf('#');
    let rest = hash >= 0 ? input.slice(0, hash) : input;
    let scheme = '';
    const colon = rest.indexOf(':');
    if (colon > 0 && SCHEME.test(rest.slice(0, colon))) {
      scheme = rest.slice(0, colon).toLowerCase();
      rest = rest.slice(colon + 1);
    } else if (colon === 0) throw new UrlParseError(`parse ${JSON.stringify(input)}: missing protocol scheme`);
    const question = rest.indexOf('?');
    const rawQuery = question >= 0 ? rest.slice(question + 1) : '';
    if (question >= 0) rest = rest.slice(0, question);
    if (!rest.startsWith('/')) {
      if (!scheme) throw new UrlParseError(`parse ${JSON.stringify(input)}: invalid URI for request`);
      // An opaque URI (`mailto:x`): valid, with neither host nor path.
      return new UrlValue(scheme, '', '', '', rawQuery);
    }
    let host = '';
    if (rest.startsWith('//') && (scheme || !rest.startsWith('///'))) {
      const authorityEnd = rest.indexOf('/', 2);
      const authority = authorityEnd >= 0 ? rest.slice(2, authorityEnd) : rest.slice(2);
      rest = authorityEnd >= 0 ? rest.slice(authorityEnd) : '';
      host = authority.slice(authority.lastIndexOf('@') + 1);
      checkHost(host, input);
    }
    let path: string;
    try {
      path = unescape(rest, false);
    } catch (err) {
      throw new UrlParseError(`parse ${JSON.stringify(input)}: ${(err as Error).message}`);
    }
    return new UrlValue(scheme, host, rest, path, rawQuery);
  }

  static isValid(input: string): boolean {
    try {
      UrlValue.parse(input);
      return true;
    } catch (err) {
      if (err instanceof UrlParseError) return false;
      throw err;
    }
  }

  /** Go's u.Hostname(): no port, no brackets. */
  get hostname(): string {
    if (this.host.startsWith('[')) return this.host.slice(1, this.host.indexOf(']'));
    const colon = this.host.lastIndexOf(':');
    return colon >= 0 ? this.host.slice(0, colon) : this.host;
  }

  /** Go's u.Port(): the digits after the host, or ''. */
  get port(): string {
    const afterBracket = this.host.startsWith('[') ? this.host.slice(this.host.indexOf(']') + 1) : this.host;
    const colon = afterBracket.lastIndexOf(':');
    return colon >= 0 ? afterBracket.slice(colon + 1) : '';
  }

  /** Go's u.EscapedPath(): the path as written when that is a valid encoding, else escaped. */
  get escapedPath(): string {
    return isValidEncodedPath(this.rawPath) ? this.rawPath : escapePath(this.path);
  }

  /** Go's u.Query(): key to values, in order; malformed pairs are skipped as Go skips them. */
  query(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    for (const pair of this.rawQuery.split('&')) {
      if (!pair || pair.includes(';')) continue;
      const eq = pair.indexOf('=');
      let key: string;
      let value: string;
      try {
        key = unescape(eq >= 0 ? pair.slice(0, eq) : pair, true);
        value = eq >= 0 ? unescape(pair.slice(eq + 1), true) : '';
      } catch {
        continue;
      }
      const values = result.get(key);
      if (values) values.push(value);
      else result.set(key, [value]);
    }
    return result;
  }
}
