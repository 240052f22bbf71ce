import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from './cost';
import { UrlParseError, UrlValue } from './url-value';

export const URL_TYPE = 'kubernetes.URL';

/**
 * kube's URL library: `url(string)` (an error for anything but an absolute URI or an
 * absolute path), `isURL(string)`, and the accessors `getScheme`, `getHost`, `getHostname`,
 * `getPort`, `getEscapedPath`, `getQuery`.
 */
export function registerUrlFunctions(env: Environment): void {
  env.registerType(URL_TYPE, UrlValue as unknown as new () => UrlValue);
  env.registerFunction(`url(string): ${URL_TYPE}`, (text: string) => {
    chargeCost(Math.ceil(text.length * 0.1));
    try {
      return UrlValue.parse(text);
    } catch (err) {
      if (err instanceof UrlParseError) throw new Error(`URL parse error during conversion from string: ${err.message}`);
      throw err;
    }
  });
  env.registerFunction('isURL(string): bool', (text: string) => {
    chargeCost(Math.ceil(text.length * 0.1));
    return UrlValue.isValid(text);
  });
  env.registerFunction(`${URL_TYPE}.getScheme(): string`, (u: UrlValue) => u.scheme);
  env.registerFunction(`${URL_TYPE}.getHost(): string`, (u: UrlValue) => u.host);
  env.registerFunction(`${URL_TYPE}.getHostname(): string`, (u: UrlValue) => u.hostname);
  env.registerFunction(`${URL_TYPE}.getPort(): string`, (u: UrlValue) => u.port);
  env.registerFunction(`${URL_TYPE}.getEscapedPath(): string`, (u: UrlValue) => u.escapedPath);
  env.registerFunction(`${URL_TYPE}.getQuery(): map<string, list<string>>`, (u: UrlValue) => u.query());
}
