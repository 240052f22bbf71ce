import Ajv from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as YAML from 'yaml';
import { HelpRequested, parseServerFlags } from '../../../src/config/flags';

/**
 * The Helm chart, checked without a helm binary: its metadata, its values against the JSON
 * Schema Helm enforces, every value the templates read, and each template's YAML once its
 * template actions are replaced by placeholders.
 */
const ROOT = join(__dirname, '..', '..', '..');
const CHART = join(ROOT, 'helm');
const read = (...path: string[]) => readFileSync(join(CHART, ...path), 'utf8');
const TEMPLATES = readdirSync(join(CHART, 'templates')).sort();

const chart = YAML.parse(read('Chart.yaml'));
const valuesText = read('values.yaml');
const values = YAML.parse(valuesText);
const schema = JSON.parse(read('values.schema.json'));
const validate = new Ajv({ allErrors: true, strict: true, strictTypes: false }).compile(schema);

/** values.yaml with some values changed (a deep copy; `undefined` removes a key). */
function withValues(changes: Record<string, unknown>): unknown {
  const copy = structuredClone(values);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], copy);
    if (value === undefined) delete parent[keys[keys.length - 1]];
    else parent[keys[keys.length - 1]] = value;
  }
  return copy;
}

/**
 * A template as YAML once rendered with placeholders: a line holding only template actions
 * disappears (control flow, includes that indent themselves), any other action becomes a
 * placeholder word.
 */
function withPlaceholders(template: string): string {
  const withoutComments = template.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  return withoutComments
    .split('\n')
    .filter((line) => line.replace(/\{\{[\s\S]*?\}\}/g, '').trim() !== '' || !line.includes('{{'))
    .map((line) => line.replace(/\{\{[\s\S]*?\}\}/g, 'PLACEHOLDER'))
    .join('\n');
}

describe('the Helm chart', () => {
  it('has Chart.yaml metadata for Helm 3, its appVersion the server version', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'platform-authz-apiserver', type: 'application' });
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(chart.appVersion).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(TEMPLATES).toEqual(expect.arrayContaining(['_helpers.tpl', 'NOTES.txt', 'deployment.yaml', 'service.yaml', 'poddisruptionbudget.yaml', 'serviceaccount.yaml']));
  });

  describe('values.schema.json', () => {
    it('accepts the default values.yaml', () => {
      expect(validate(values)).toBe(true);
      expect(validate.errors ?? []).toEqual([]);
    });

    it.each([
      ['a replica count that is not a number', { replicaCount: 'two' }, '/replicaCount'],
      ['no replicas', { replicaCount: 0 }, '/replicaCount'],
      ['a misspelt top-level value', { replicas: 3 }, ''],
      ['a port out of range', { securePort: 70000 }, '/securePort'],
      ['an unknown admission plugin', { admissionPlugins: ['AlwaysPullImages'] }, '/admissionPlugins/0'],
      ['an unknown authorization mode', { 'authorization.mode': 'RBAC,Everyone' }, '/authorization/mode'],
      ['a feature gate that is not a boolean', { featureGates: { WatchList: 'yes' } }, '/featureGates/WatchList'],
      ['an extra argument that is not a flag', { extraArgs: ['max-request-bytes=1'] }, '/extraArgs/0'],
      ['a database URL of another scheme', { 'database.url': 'mysql://db/platform' }, '/database/url'],
      ['a negative shutdown delay', { shutdownDelaySeconds: -1 }, '/shutdownDelaySeconds'],
      ['an OIDC issuer without a client id', { 'authentication.oidc.issuerURL': 'https://issuer.example' }, '/authentication/oidc/clientID'],
      ['an external database together with the trial one', { 'database.url': 'postgres://db/platform', 'postgresql.enabled': true }, ''],
    ])('refuses %s', (_what, changes, path) => {
      expect(validate(withValues(changes))).toBe(false);
      expect(validate.errors!.map((e) => e.instancePath)).toContain(path);
    });

    it('accepts a production configuration', () => {
      const production = withValues({
        replicaCount: 3,
        'database.existingSecret': 'authz-database',
        'tls.existingSecret': 'authz-serving',
        'clientCA.existingSecret': 'authz-client-ca',
        'authentication.oidc.issuerURL': 'https://issuer.example',
        'authentication.oidc.clientID': 'platform',
        'authorization.config': { apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'RBAC', name: 'rbac' }] },
        featureGates: { AuthorizeWithSelectors: true },
        runtimeConfig: { 'access.platform.io/v1': false },
        shutdownDelaySeconds: 20,
        extraArgs: ['--max-request-bytes=1048576'],
      });
      expect(validate(production)).toBe(true);
    });
  });

  it('documents every value with a comment right above it', () => {
    const lines = valuesText.split('\n');
    const undocumented: string[] = [];
    // Keys the schema declares, walked down the values; free-form maps (resources, security contexts) are one value.
    const walk = (schemaNode: any, node: any, indent: number, from: number) => {
      for (const key of Object.keys(schemaNode?.properties ?? {})) {
        const at = lines.findIndex((l, i) => i >= from && l.startsWith(`${' '.repeat(indent)}${key}:`));
        if (at < 0) continue;
        if (!lines[at - 1]?.trim().startsWith('#')) undocumented.push(key);
        const child = node?.[key];
        if (child && typeof child === 'object' && !Array.isArray(child)) walk(schemaNode.properties[key], child, indent + 2, at + 1);
      }
    };
    walk(schema, values, 0, 0);
    expect(undocumented).toEqual([]);
  });

  it('reads only values that values.yaml defines', () => {
    const missing: string[] = [];
    for (const file of TEMPLATES) {
      for (const [, path] of read('templates', file).matchAll(/\.Values((?:\.[A-Za-z_][\w]*)+)/g)) {
        const keys = path.slice(1).split('.');
        let node: any = values;
        for (const key of keys) {
          if (node === null || typeof node !== 'object' || !(key in node)) {
            missing.push(`${file}: .Values${path}`);
            break;
          }
          node = node[key];
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(TEMPLATES.filter((f) => f.endsWith('.yaml')))('%s is well-formed YAML of Kubernetes objects', (file) => {
    const docs = YAML.parseAllDocuments(withPlaceholders(read('templates', file)), { uniqueKeys: false });
    for (const doc of docs) {
      expect(doc.errors.map((e) => e.message)).toEqual([]);
      const object = doc.toJS();
      if (object === null) continue;
      expect(object).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String), metadata: { name: expect.anything() } });
    }
  });

  it.each(TEMPLATES)('%s closes every template block it opens', (file) => {
    const actions = [...read('templates', file).matchAll(/\{\{-?\s*(if|range|with|define|end|else)\b/g)].map((m) => m[1]);
    let depth = 0;
    for (const action of actions) {
      if (action === 'end') depth--;
      else if (action !== 'else') depth++;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
  });

  it("renders only the server's flags, spelled as kube-apiserver spells them", () => {
    const served = [...serverHelp().matchAll(/^ +(--[a-z0-9-]+)/gm)].map((m) => m[1]);
    expect(served).toContain('--authorization-mode');
    // Flags of features still to come, named as kube-apiserver names them.
    const forthcoming = [
      '--service-account-issuer',
      '--service-account-signing-key-file',
      '--service-account-key-file',
      '--audit-policy-file',
      '--audit-log-path',
      '--runtime-config',
      '--shutdown-delay-duration',
      '--shutdown-send-retry-after',
    ];
    const rendered = [...new Set([...read('templates', '_helpers.tpl').matchAll(/(?:^- |")(--[a-z0-9-]+)=/gm)].map((m) => m[1]))];
    expect(rendered.length).toBeGreaterThan(20);
    expect(rendered.filter((flag) => !served.includes(flag) && !forthcoming.includes(flag))).toEqual([]);
  });

  it('refuses in its templates what the schema cannot express', () => {
    const helpers = read('templates', '_helpers.tpl');
    expect(helpers).toMatch(/if and \(gt \(int \.Values\.replicaCount\) 1\) \(not \(include "authz\.usesPostgres" \.\)\)/);
    expect(helpers).toContain('fail "replicaCount > 1 needs PostgreSQL');
    expect(helpers).toMatch(/if ge \(int \.Values\.shutdownDelaySeconds\) \(int \.Values\.terminationGracePeriodSeconds\)/);
    expect(read('templates', 'deployment.yaml').startsWith('{{- include "authz.validate" . }}')).toBe(true);
  });
});

/** The server's own `--help` text, which lists every flag it has. */
function serverHelp(): string {
  try {
    parseServerFlags(['--help'], {});
  } catch (err) {
    if (err instanceof HelpRequested) return err.helpText;
    throw err;
  }
  throw new Error('--help did not print the help');
}

describe('the example guardrails of the Helm chart', () => {
  it('are off by default and the same set as helm/examples/guardrails.yaml', () => {
    expect(values.guardrails.enabled).toBe(false);
    const examples = YAML.parseAllDocuments(read('examples', 'guardrails.yaml')).map((d) => d.toJS());
    expect(values.guardrails.items).toEqual(examples);
  });

  it('render into a ConfigMap only when enabled', () => {
    const template = read('templates', 'guardrails.yaml');
    expect(template.startsWith('{{- if .Values.guardrails.enabled }}')).toBe(true);
    expect(YAML.parse(withPlaceholders(template))).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { 'guardrails.yaml': expect.any(String) } });
  });
});
