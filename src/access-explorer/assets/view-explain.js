// Explain a decision: the AccessExplanation of a user, groups and an action; the decision (the
// same a SubjectAccessReview gives), each authorizer asked, the grants or the near misses.
import { ACCESS, ask } from './api.js';
import { bindingText, dataTable, failure, h, queryForm, resultRegion, roleText, setBusy, viewHash, viewLink } from './dom.js';

export const title = 'Explain a decision';

const ruleText = (r) => `${(r.verbs || []).join(',')} ${(r.apiGroups || []).map((g) => g || 'core').join(',')} ${(r.resources || r.nonResourceURLs || []).join(',')}${r.resourceNames && r.resourceNames.length ? ` (${r.resourceNames.join(',')})` : ''}`;

/** `deployments.apps/scale` as group, resource, subresource; a path starting with / is a non-resource URL. */
export function attributesOf(params) {
  if ((params.resource || '').startsWith('/')) return { nonResourceAttributes: { verb: params.verb, path: params.resource } };
  const [name, subresource] = (params.resource || '').split('/');
  const dot = name.indexOf('.');
  return {
    resourceAttributes: {
      verb: params.verb,
      group: dot < 0 ? '' : name.slice(dot + 1),
      resource: dot < 0 ? name : name.slice(0, dot),
      ...(subresource ? { subresource } : {}),
      ...(params.namespace ? { namespace: params.namespace } : {}),
      ...(params.name ? { name: params.name } : {}),
    },
  };
}

export async function render(main, params) {
  const { form } = queryForm(
    [
      { name: 'user', label: 'User', value: params.user, required: true },
      { name: 'groups', label: 'Groups (comma-separated)', value: params.groups },
      { name: 'verb', label: 'Verb', value: params.verb, required: true, placeholder: 'get' },
      { name: 'resource', label: 'Resource (resource.group/sub, or /url)', value: params.resource, required: true, placeholder: 'pods' },
      { name: 'namespace', label: 'Namespace', value: params.namespace },
      { name: 'name', label: 'Object name', value: params.name },
    ],
    'Explain',
    (v) => (location.hash = viewHash('explain', v)),
  );
  const region = resultRegion();
  main.append(form, region);
  if (!params.user || !params.verb || !params.resource) {
    region.append(h('p', { className: 'note' }, 'Ask why a user may or may not do something.'));
    return;
  }
  const groups = (params.groups || '').split(',').map((g) => g.trim()).filter(Boolean);
  setBusy(region, true);
  let status;
  try {
    status = await ask(`${ACCESS}/accessexplanations`, 'AccessExplanation', { user: params.user, groups, ...attributesOf(params) });
  } catch (err) {
    region.replaceChildren(failure(err, 'the explanation'));
    return;
  } finally {
    setBusy(region, false);
  }
  const deciding = (status.decisions || []).find((d) => d.decision !== 'NoOpinion');
  region.replaceChildren(
    h('p', { id: 'decision' }, h('strong', { className: status.allowed ? 'allowed' : 'denied' }, status.allowed ? 'Allowed' : status.denied ? 'Denied' : 'Not allowed'), deciding ? ` by ${deciding.authorizer.type} (${deciding.authorizer.name})` : ' (no authorizer allowed it)', status.reason ? `: ${status.reason}` : ''),
    status.deniedByGuardrail ? h('p', {}, `Denied by the access guardrail ${status.deniedByGuardrail}.`) : '',
    status.evaluationError ? h('p', { className: 'error' }, status.evaluationError) : '',
    dataTable('Authorizers asked, in order', ['Authorizer', 'Decision', 'Reason'], (status.decisions || []).map((d) => [`${d.authorizer.type} (${d.authorizer.name})`, d.decision, d.reason || ''])),
    (status.grants || []).length
      ? dataTable('Grants', ['Binding', 'Role', 'Rule'], status.grants.map((g) => [viewLink('graph', { namespace: g.binding.namespace || '', binding: g.binding.name, kind: g.binding.kind }, bindingText(g.binding)), roleText(g.role), `#${g.ruleIndex}: ${ruleText(g.rule)}`]))
      : '',
    (status.nearMisses || []).length ? dataTable('Near misses (closest rules of its own bindings)', ['Binding', 'Role', 'Rule', 'Missing'], status.nearMisses.map((m) => [bindingText(m.binding), roleText(m.role), `#${m.ruleIndex}: ${ruleText(m.rule)}`, m.missing.join('; ')])) : '',
    (status.unusableBindings || []).length ? dataTable('Bindings that grant nothing', ['Binding', 'Role', 'Why'], status.unusableBindings.map((u) => [bindingText(u.binding), roleText(u.role), u.reason])) : '',
  );
}
