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

/** Accept entries in the client's order of preference (q-values respected, stable). */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header || !header.trim()) return [];
  const entries = header
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s, i) => {
      const mt = parseMediaType(s);
      const q = mt.params.q !== undefined ? Number(mt.params.q) : 1;
      delete mt.params.q;
      return { mt, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((e) => e.q > 0);
  entries.sort((a, b) => b.q - a.q || a.i - b.i);
  return entries.map((e) => e.mt);
}
