import { DataSource } from 'typeorm';
import { PolicyRule } from '../../apis/rbac/types';
import { Denial, RuleUse } from './usage-memory';
import { RecorderTable, UsageRecorder } from './recording-coverage';

/** Rows kept at most per binding and per user: beyond them the least recently used go first. */
export const MAX_ROWS_PER_BINDING = 2000;
export const MAX_ROWS_PER_USER = 500;

const ADD_USES = `INSERT INTO rule_usage AS u (binding_uid, rule_hash, verb, api_group, resource, subresource, namespace, non_resource_url,
  binding_kind, binding_namespace, binding_name, role_kind, role_name, rule_index, rule, uses, first_used, last_used, username)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::int[], $15::text[], $16::bigint[], $17::timestamptz[], $18::timestamptz[], $19::text[])
ON CONFLICT (binding_uid, rule_hash, username, verb, api_group, resource, subresource, namespace, non_resource_url) DO UPDATE SET
  uses = u.uses + EXCLUDED.uses, first_used = LEAST(u.first_used, EXCLUDED.first_used), last_used = GREATEST(u.last_used, EXCLUDED.last_used),
  rule_index = EXCLUDED.rule_index`;

const ADD_DENIALS = `INSERT INTO denied_access AS d (username, verb, api_group, resource, subresource, namespace, non_resource_url, denials, first_denied, last_denied)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::timestamptz[], $10::timestamptz[])
ON CONFLICT (username, verb, api_group, resource, subresource, namespace, non_resource_url) DO UPDATE SET
  denials = d.denials + EXCLUDED.denials, first_denied = LEAST(d.first_denied, EXCLUDED.first_denied), last_denied = GREATEST(d.last_denied, EXCLUDED.last_denied)`;

/** Past the retention, and past the per-binding bound (least recently used first), rows go. */
const PRUNE_USES = `DELETE FROM rule_usage WHERE binding_uid = ANY($1::text[]) OR last_used < $2::timestamptz
  OR (binding_uid, rule_hash, username, verb, api_group, resource, subresource, namespace, non_resource_url) IN (
    SELECT binding_uid, rule_hash, username, verb, api_group, resource, subresource, namespace, non_resource_url FROM (
      SELECT *, row_number() OVER (PARTITION BY binding_uid ORDER BY last_used DESC) AS n FROM rule_usage WHERE binding_uid = ANY($3::text[])
    ) ranked WHERE n > $4)`;

const PRUNE_DENIALS = `DELETE FROM denied_access WHERE last_denied < $1::timestamptz
  OR (username, verb, api_group, resource, subresource, namespace, non_resource_url) IN (
    SELECT username, verb, api_group, resource, subresource, namespace, non_resource_url FROM (
      SELECT *, row_number() OVER (PARTITION BY username ORDER BY last_denied DESC) AS n FROM denied_access WHERE username = ANY($2::text[])
    ) ranked WHERE n > $3)`;

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (t: Date | string) => new Date(t).getTime();

interface UseRow {
  binding_uid: string;
  rule_hash: string;
  verb: string;
  api_group: string;
  resource: string;
  subresource: string;
  namespace: string;
  non_resource_url: string;
  binding_kind: RuleUse['bindingKind'];
  binding_namespace: string;
  binding_name: string;
  role_kind: string;
  role_name: string;
  rule_index: number;
  rule: string;
  uses: string;
  first_used: Date | string;
  last_used: Date | string;
  username: string;
}

interface DenialRow {
  username: string;
  verb: string;
  api_group: string;
  resource: string;
  subresource: string;
  namespace: string;
  non_resource_url: string;
  denials: string;
  first_denied: Date | string;
  last_denied: Date | string;
}

/** The rule_usage and denied_access tables (see migrations/): the queries, nothing else. */
export class UsageTable {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Adds what one replica recorded, removes the rows of deleted bindings, and prunes what is
   * older than `cutoff` or past the bounds, and notes the replica's flush, in one transaction
   * (all or nothing, so a failed flush is simply retried).
   */
  async flush(uses: readonly RuleUse[], denials: readonly Denial[], deletedBindings: readonly string[], cutoff: number, recorder: UsageRecorder): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      if (uses.length) {
        const columns: unknown[][] = Array.from({ length: 19 }, () => []);
        for (const u of uses) {
          const row = [u.bindingUid, u.ruleHash, u.verb, u.apiGroup, u.resource, u.subresource, u.namespace, u.nonResourceURL, u.bindingKind, u.bindingNamespace, u.bindingName, u.roleKind, u.roleName, u.ruleIndex, JSON.stringify(u.rule), String(u.count), iso(u.first), iso(u.last), u.user];
          row.forEach((value, i) => columns[i].push(value));
        }
        await tx.query(ADD_USES, columns);
      }
      if (denials.length) {
        const columns: unknown[][] = Array.from({ length: 10 }, () => []);
        for (const d of denials) {
          const row = [d.user, d.verb, d.apiGroup, d.resource, d.subresource, d.namespace, d.nonResourceURL, String(d.count), iso(d.first), iso(d.last)];
          row.forEach((value, i) => columns[i].push(value));
        }
        await tx.query(ADD_DENIALS, columns);
      }
      await tx.query(PRUNE_USES, [[...deletedBindings], iso(cutoff), [...new Set(uses.map((u) => u.bindingUid))], MAX_ROWS_PER_BINDING]);
      await tx.query(PRUNE_DENIALS, [iso(cutoff), [...new Set(denials.map((d) => d.user))], MAX_ROWS_PER_USER]);
      await RecorderTable.flushed(tx, recorder, cutoff);
    });
  }

  /** Every stored rule use of these bindings. */
  async uses(bindingUids: readonly string[]): Promise<RuleUse[]> {
    if (!bindingUids.length) return [];
    const rows: UseRow[] = await this.dataSource.query('SELECT *, uses::text AS uses FROM rule_usage WHERE binding_uid = ANY($1::text[])', [[...bindingUids]]);
    return rows.map((r) => ({
      bindingUid: r.binding_uid,
      ruleHash: r.rule_hash,
      verb: r.verb,
      apiGroup: r.api_group,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      nonResourceURL: r.non_resource_url,
      bindingKind: r.binding_kind,
      bindingNamespace: r.binding_namespace,
      bindingName: r.binding_name,
      roleKind: r.role_kind,
      roleName: r.role_name,
      ruleIndex: Number(r.rule_index),
      rule: JSON.parse(r.rule) as PolicyRule,
      user: r.username,
      count: Number(r.uses),
      first: ms(r.first_used),
      last: ms(r.last_used),
    }));
  }

  /** Every stored refusal (of these users only, when given). */
  async denials(users?: readonly string[]): Promise<Denial[]> {
    const rows: DenialRow[] = users
      ? await this.dataSource.query('SELECT *, denials::text AS denials FROM denied_access WHERE username = ANY($1::text[])', [[...users]])
      : await this.dataSource.query('SELECT *, denials::text AS denials FROM denied_access');
    return rows.map((r) => ({
      user: r.username,
      verb: r.verb,
      apiGroup: r.api_group,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      nonResourceURL: r.non_resource_url,
      count: Number(r.denials),
      first: ms(r.first_denied),
      last: ms(r.last_denied),
    }));
  }
}
