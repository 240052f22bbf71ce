/**
 * Regular expressions written for RE2 (kube's engine) run on JavaScript's engine. The
 * common RE2-only spellings are translated: leading flag groups `(?i)`, `(?s)`, `(?m)` become
 * RegExp flags and `(?P<name>` becomes `(?<name>`. Patterns are compiled once and cached.
 */

export class RegexSyntaxError extends Error {}

const CACHE_LIMIT = 256;
const cache = new Map<string, RegExp>();

function translate(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = '';
  for (let m = /^\(\?([imsU]+)\)/.exec(source); m; m = /^\(\?([imsU]+)\)/.exec(source)) {
    if (m[1].includes('U')) throw new RegexSyntaxError(`error parsing regexp: ungreedy mode (?U) is not supported: \`${pattern}\``);
    for (const f of m[1]) if (!flags.includes(f)) flags += f;
    source = source.slice(m[0].length);
  }
  return { source: source.replace(/\(\?P</g, '(?<'), flags };
}

/** The compiled pattern (global flag off); throws RegexSyntaxError for an invalid one. */
export function compileRegex(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const { source, flags } = translate(pattern);
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags + 'u');
  } catch {
    try {
      // RE2 accepts some escapes the unicode mode refuses; the plain mode is closer for those.
      regex = new RegExp(source, flags);
    } catch (err) {
      throw new RegexSyntaxError(`error parsing regexp: ${(err as Error).message}`);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, regex);
  return regex;
}

/** The first match, or '' (kube's `find`). */
export function findFirst(text: string, pattern: string): string {
  return compileRegex(pattern).exec(text)?.[0] ?? '';
}

/** Up to `limit` matches (all when negative), as kube's `findAll`. */
export function findAll(text: string, pattern: string, limit = -1): string[] {
  if (limit === 0) return [];
  const base = compileRegex(pattern);
  const global = new RegExp(base.source, base.flags + 'g');
  const matches: string[] = [];
  for (let m = global.exec(text); m; m = global.exec(text)) {
    matches.push(m[0]);
    if (m[0] === '') global.lastIndex += 1;
    if (limit > 0 && matches.length >= limit) break;
  }
  return matches;
}
