import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * rule_usage: per binding (by uid), rule of its role (by content hash) and concrete
 * attributes (verb, API group, resource, subresource, namespace, or non-resource URL), how
 * often that rule allowed them and when first and last. denied_access: per user and
 * attributes, how often the authorizer chain refused them. Every replica adds what it
 * recorded since its last flush (counts summed, the earliest first and latest last time
 * kept); rows last used before the retention go, and past the per-binding and per-user
 * bounds the least recently used go first.
 */
export class RuleUsage1766033000000 implements MigrationInterface {
  name = 'RuleUsage1766033000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rule_usage (
      binding_uid text NOT NULL,
      rule_hash text NOT NULL,
      verb text NOT NULL,
      api_group text NOT NULL,
      resource text NOT NULL,
      subresource text NOT NULL,
      namespace text NOT NULL,
      non_resource_url text NOT NULL,
      binding_kind text NOT NULL,
      binding_namespace text NOT NULL,
      binding_name text NOT NULL,
      role_kind text NOT NULL,
      role_name text NOT NULL,
      rule_index integer NOT NULL,
      rule text NOT NULL,
      uses bigint NOT NULL,
      first_used timestamptz NOT NULL,
      last_used timestamptz NOT NULL,
      PRIMARY KEY (binding_uid, rule_hash, verb, api_group, resource, subresource, namespace, non_resource_url)
    )`);
    await q.query(`CREATE TABLE denied_access (
      username text NOT NULL,
      verb text NOT NULL,
      api_group text NOT NULL,
      resource text NOT NULL,
      subresource text NOT NULL,
      namespace text NOT NULL,
      non_resource_url text NOT NULL,
      denials bigint NOT NULL,
      first_denied timestamptz NOT NULL,
      last_denied timestamptz NOT NULL,
      PRIMARY KEY (username, verb, api_group, resource, subresource, namespace, non_resource_url)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE denied_access`);
    await q.query(`DROP TABLE rule_usage`);
  }
}
