/** Parses `type/subtype;k=v;...` and comma lists of them (Accept headers). */
export interface MediaType {
  type: string; // e.g. application/json
  params: Record<string, string>;
}

export function parseMediaType(text: string): MediaType {
  const [head, ...rest] = text.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { type: head.trim().toLowerCase(), params };
}

/** `*` alone means `*\/*`; anything else without exactly one slash is not a media range. */
function mediaRange(type: string): string | undefined {
  if (type === '*') return '*/*';
  return type.split('/').length === 2 ? type : undefined;
}

function wildcardRank(type: string): number {
  const [main, sub] = type.split('/');
  return (main === '*' ? 2 : 0) + (sub === '*' ? 1 : 0);
}

/**
 * Accept entries in the client's order of preference, as kube's negotiation reads them:
 * higher q first, then concrete types before wildcards, otherwise the order given.
 * Entries with q=0 are "not acceptable" and dropped.
 */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header || !header.trim()) return [];
  const entries = header
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s, i) => {
      const mt = parseMediaType(s);
      const range = mediaRange(mt.type);
      if (!range) return [];
      const q = mt.params.q !== undefined ? Number(mt.params.q) : 1;
      delete mt.params.q;
      return [{ mt: { ...mt, type: range }, q: Number.isFinite(q) ? q : 0, i }];
    })
    .filter((e) => e.q > 0);
  entries.sort((a, b) => b.q - a.q || wildcardRank(a.mt.type) - wildcardRank(b.mt.type) || a.i - b.i);
  return entries.map((e) => e.mt);
}
