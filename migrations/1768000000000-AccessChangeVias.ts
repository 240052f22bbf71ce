import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * AccessChange entries (resource access.platform.io/accesschanges) are stored with each
 * distinct `via` list (the bindings and roles that grant a permission) once, in `vias`, and
 * each permission of `gained` and `lost` holding its list's index there (most of an entry's
 * bytes were the same binding and role repeated in every permission), and permissions next
 * to each other that differ only in their resource as one with `resources`. The server reads both
 * forms; this rewrites the entries already stored, current and logged, in the new one (and
 * `down` back). An object kept as JSON text (`$json`: one with a NUL in a string) is left as
 * it is. Self-contained: the code of its time, whatever the server's becomes.
 */

const RESOURCE = 'access.platform.io/accesschanges';
const BATCH = 500;
const SIDES = ['gained', 'lost'] as const;

type Json = Record<string, unknown>;

function pack(object: Json): Json | undefined {
  if ('vias' in object || '$json' in object) return undefined;
  const vias: unknown[] = [];
  const index = new Map<string, number>();
  const out: Json = { ...object };
  for (const side of SIDES) {
    const list = object[side];
    if (!Array.isArray(list)) continue;
    const packed = list.map((p: Json) => {
      const key = JSON.stringify(p.via ?? []);
      let i = index.get(key);
      if (i === undefined) {
        index.set(key, (i = vias.length));
        vias.push(p.via ?? []);
      }
      return { ...p, via: i };
    });
    out[side] = mergeResources(packed);
  }
  out.vias = vias;
  return out;
}

function rename(object: Json, from: string, to: string, value: unknown): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(object)) out[k === from ? to : k] = k === from ? value : v;
  return out;
}

function mergeResources(list: Json[]): Json[] {
  const out: Json[] = [];
  let runKey: string | undefined;
  for (const p of list) {
    const { resource, ...rest } = p;
    const key = typeof resource === 'string' ? JSON.stringify(Object.entries(rest)) : undefined;
    const last = out[out.length - 1];
    if (key !== undefined && key === runKey) {
      if (Array.isArray(last.resources)) last.resources.push(resource);
      else out[out.length - 1] = rename(last, 'resource', 'resources', [last.resource, resource]);
    } else out.push(p);
    runKey = key;
  }
  return out;
}

function unpack(object: Json): Json | undefined {
  const vias = object.vias;
  if (!Array.isArray(vias)) return undefined;
  const { vias: _vias, ...out } = object;
  for (const side of SIDES) {
    const list = out[side];
    if (!Array.isArray(list)) continue;
    out[side] = list.flatMap((p: Json) => {
      const unpacked: Json = typeof p.via === 'number' ? { ...p, via: (vias[p.via] as unknown) ?? [] } : p;
      return Array.isArray(p.resources) ? p.resources.map((r: unknown) => rename(unpacked, 'resources', 'resource', r)) : [unpacked];
    });
  }
  return out;
}

/** Rewrites every entry `convert` changes, in batches of names (each entry has one row in kv_current, one or two in kv_log). */
async function rewrite(q: QueryRunner, convert: (object: Json) => Json | undefined): Promise<void> {
  let after = '';
  for (;;) {
    const names = ((await q.query(`SELECT DISTINCT name FROM kv_log WHERE resource = $1 AND namespace = '' AND name > $2 ORDER BY name LIMIT ${BATCH}`, [RESOURCE, after])) as Array<{ name: string }>).map(
      (r) => r.name,
    );
    const current = ((await q.query(`SELECT name FROM kv_current WHERE resource = $1 AND namespace = '' AND name > $2 ORDER BY name LIMIT ${BATCH}`, [RESOURCE, after])) as Array<{ name: string }>).map(
      (r) => r.name,
    );
    // Both tables' next names, up to the lower of their last ones: no name of either is passed over.
    const last = [names, current].filter((l) => l.length === BATCH).map((l) => l[l.length - 1]);
    const upTo = last.length ? last.sort()[0] : undefined;
    const batch = [...new Set([...names, ...current])].filter((n) => upTo === undefined || n <= upTo).sort();
    if (batch.length === 0) return;
    for (const table of ['kv_current', 'kv_log']) {
      const rows = (await q.query(`SELECT ctid::text AS row, object::text AS object FROM ${table} WHERE resource = $1 AND namespace = '' AND name = ANY($2::text[])`, [RESOURCE, batch])) as Array<{
        row: string;
        object: string;
      }>;
      const changed: Array<{ row: string; object: string }> = [];
      for (const { row, object } of rows) {
        const next = convert(JSON.parse(object) as Json);
        if (next) changed.push({ row, object: JSON.stringify(next) });
      }
      if (changed.length === 0) continue;
      await q.query(`UPDATE ${table} t SET object = v.object::jsonb FROM unnest($1::text[], $2::text[]) AS v(row, object) WHERE t.ctid = v.row::tid`, [
        changed.map((c) => c.row),
        changed.map((c) => c.object),
      ]);
    }
    after = batch[batch.length - 1];
  }
}

export class AccessChangeVias1768000000000 implements MigrationInterface {
  name = 'AccessChangeVias1768000000000';

  async up(q: QueryRunner): Promise<void> {
    await rewrite(q, pack);
  }

  async down(q: QueryRunner): Promise<void> {
    await rewrite(q, unpack);
  }
}
