// What-if: RBAC manifests pasted or uploaded, sent as one PolicyChangeReview; what each
// subject would gain and lose, what the viewer could not change, and what guardrails block.
import { ACCESS, api } from './api.js';
import { dataTable, failure, h, queryForm, resultRegion, setBusy } from './dom.js';

export const title = 'What-if';

/**
 * The review as YAML, each manifest indented under one change: the server reads YAML, so the
 * page needs no YAML library, and the server's own decoder reports a malformed manifest.
 */
export function reviewYaml(manifests, deleting) {
  const documents = manifests.split(/^---[ \t]*(?:#.*)?$/m).filter((d) => d.replace(/#.*$/gm, '').trim());
  const changes = documents.map((d) => `  - ${deleting ? 'delete: true\n    ' : ''}object:\n${d.replace(/^\s*\n/, '').replace(/\s+$/, '').split('\n').map((line) => `        ${line}`).join('\n')}`);
  return `apiVersion: access.platform.io/v1\nkind: PolicyChangeReview\nspec:\n  changes:\n${changes.join('\n')}\n`;
}

const where = (e) => e.namespace || `cluster-wide${e.exceptNamespaces && e.exceptNamespaces.length ? ` except ${e.exceptNamespaces.join(', ')}` : ''}`;
const exceptText = (except) => Object.entries(except || {}).map(([dimension, values]) => `${dimension} ${values.join(',')}`).join('; ');
const what = (e) => `${e.nonResourceURL || `${e.resource}${e.apiGroup ? `.${e.apiGroup}` : ''}${e.resourceName ? ` (${e.resourceName})` : ''}`}${e.except ? ` except ${exceptText(e.except)}` : ''}`;
const subjectOf = (s) => (s.kind === 'ServiceAccount' ? `system:serviceaccount:${s.namespace}:${s.name}` : `${s.kind} ${s.name}`);
const viaOf = (e) => (e.via || []).map((v) => `${v.binding.kind} ${v.binding.namespace ? `${v.binding.namespace}/` : ''}${v.binding.name} → ${v.role.kind} ${v.role.name}`).join('; ');

export async function render(main, params) {
  const { form, inputs } = queryForm(
    [
      { name: 'manifests', label: 'RBAC manifests (YAML or JSON; several separated by ---)', multiline: true, value: '' },
      { name: 'file', label: 'Or upload files', type: 'file', accept: '.yaml,.yml,.json' },
      { name: 'delete', label: 'Delete these objects instead', type: 'checkbox', value: params.delete },
    ],
    'Show gains and losses',
    (v) => void run(v),
  );
  const region = resultRegion();
  main.append(form, region);
  inputs.file.addEventListener('change', async () => {
    const texts = await Promise.all([...inputs.file.files].map((f) => f.text()));
    inputs.manifests.value = texts.join('\n---\n');
  });

  async function run(v) {
    if (!v.manifests) {
      region.replaceChildren(h('p', { className: 'error', role: 'alert' }, 'Paste or upload at least one manifest.'));
      return;
    }
    setBusy(region, true);
    let status;
    try {
      status = (await api('POST', `${ACCESS}/policychangereviews`, reviewYaml(v.manifests, !!v.delete))).status || {};
    } catch (err) {
      region.replaceChildren(failure(err, 'the review of these changes'));
      return;
    } finally {
      setBusy(region, false);
    }
    const table = (caption, entries) => dataTable(`${caption}: ${entries.length}`, ['Subject', 'Where', 'Verb', 'What', 'Via'], entries.map((e) => [subjectOf(e.subject), where(e), e.verb, what(e), viaOf(e)]));
    region.replaceChildren(
      status.incomplete ? h('p', { className: 'error' }, 'Incomplete: authorizers other than RBAC also decide.') : '',
      table('Gained', status.gained || []),
      table('Lost', status.lost || []),
      (status.denied || []).length ? dataTable('Changes you could not make', ['Change', 'Why'], status.denied.map((d) => [`${d.kind || ''} ${d.namespace ? `${d.namespace}/` : ''}${d.name || ''}`, d.reason || d.message || ''])) : '',
      (status.blockedByGuardrails || []).length ? dataTable('Blocked by guardrails', ['Direction', 'Guardrail', 'Reason'], status.blockedByGuardrails.map((b) => [b.direction, b.guardrail, b.reason])) : '',
    );
  }
}
