// A subject: its bindings in every namespace (those naming it) with their roles' rules, its
// rules cluster-wide and in a namespace, its unused grants and findings, and its paths to
// cluster-admin. Each part is its own question: one the viewer may not ask says so alone.
import { ACCESS, RBAC, api, ask } from './api.js';
import { bindingText, dataTable, failure, h, queryForm, resultRegion, roleText, viewHash, viewLink } from './dom.js';

export const title = 'Subject';

const MAX_BINDINGS = 100;

function userOf(params) {
  if (params.kind === 'ServiceAccount') return `system:serviceaccount:${params.namespace}:${params.name}`;
  return params.kind === 'Group' ? '' : params.name;
}

const ruleText = (r) =>
  r.nonResourceURLs && r.nonResourceURLs.length
    ? `${(r.verbs || []).join(',')} ${r.nonResourceURLs.join(',')}`
    : `${(r.verbs || []).join(',')} ${(r.resources || []).map((x) => `${x}${(r.apiGroups || []).filter(Boolean).length ? `.${r.apiGroups.join('|')}` : ''}`).join(',')}${r.resourceNames && r.resourceNames.length ? ` (${r.resourceNames.join(',')})` : ''}`;

/** One titled part of the page, filled when its answer comes (or says it is not allowed). */
async function part(region, heading, fill) {
  const section = h('section', { 'aria-labelledby': `h-${heading.replace(/\W+/g, '-')}` }, h('h3', { id: `h-${heading.replace(/\W+/g, '-')}` }, heading), h('p', { className: 'note' }, 'Loading…'));
  region.append(section);
  try {
    const content = await fill();
    section.lastChild.replaceWith(content);
  } catch (err) {
    section.lastChild.replaceWith(failure(err));
  }
}

export async function render(main, params) {
  const { form } = queryForm(
    [
      { name: 'kind', label: 'Kind', options: ['User', 'Group', 'ServiceAccount'], value: params.kind || 'User' },
      { name: 'name', label: 'Name', value: params.name, required: true },
      { name: 'namespace', label: 'Namespace (service account’s; also shows rules there)', value: params.namespace },
    ],
    'Show',
    (v) => (location.hash = viewHash('subject', v)),
  );
  const region = resultRegion();
  main.append(form, region);
  if (!params.name) {
    region.append(h('p', { className: 'note' }, 'Name a user, group or service account.'));
    return;
  }
  const kind = params.kind || 'User';
  const subject = { kind, name: params.name, ...(kind === 'ServiceAccount' ? { namespace: params.namespace } : {}) };
  const user = userOf({ ...params, kind });
  const groups = kind === 'Group' ? [params.name] : [];
  const suggestion = ask(`${ACCESS}/accesssuggestions`, 'AccessSuggestion', { subject });
  suggestion.catch(() => undefined);

  await Promise.all([
    part(region, 'Bindings naming it, in every namespace', async () => {
      const status = await suggestion;
      const bindings = (status.replaces || []).slice(0, MAX_BINDINGS);
      const rows = await Promise.all(
        bindings.map(async (ref) => {
          const path = ref.kind === 'RoleBinding' ? `${RBAC}/namespaces/${ref.namespace}/rolebindings/${ref.name}` : `${RBAC}/clusterrolebindings/${ref.name}`;
          try {
            const binding = await api('GET', path);
            const role = binding.roleRef;
            let rules = '';
            try {
              const r = await api('GET', role.kind === 'Role' ? `${RBAC}/namespaces/${ref.namespace}/roles/${role.name}` : `${RBAC}/clusterroles/${role.name}`);
              rules = h('ul', {}, (r.rules || []).map((rule) => h('li', {}, ruleText(rule))));
            } catch (err) {
              rules = failure(err);
            }
            return [viewLink('graph', { namespace: ref.namespace || '', binding: ref.name, kind: ref.kind }, bindingText(ref)), ref.namespace || '(cluster-wide)', viewLink('graph', { role: role.name, roleKind: role.kind, namespace: ref.namespace || '' }, roleText(role)), rules];
          } catch (err) {
            return [bindingText(ref), ref.namespace || '(cluster-wide)', '', failure(err)];
          }
        }),
      );
      if (!rows.length) return h('p', {}, 'No binding names it directly (it may still act through its groups).');
      return dataTable(`${rows.length} bindings${(status.replaces || []).length > MAX_BINDINGS ? ` of ${status.replaces.length}` : ''}`, ['Binding', 'Namespace', 'Role', 'Rules'], rows);
    }),
    part(region, 'Rules cluster-wide', () => rulesTable(user, groups, '')),
    params.namespace ? part(region, `Rules in namespace ${params.namespace}`, () => rulesTable(user, groups, params.namespace)) : undefined,
    part(region, 'Unused grants (no use in 720h)', async () => {
      const status = await suggestion;
      const removed = status.removedRules || [];
      if (!removed.length) return h('p', {}, 'Every rule of its bindings was used in the window (or none is bound).');
      return dataTable(`${removed.length} rules allowed nothing`, ['Rule', 'Binding', 'Role'], removed.map((r) => [ruleText(r.rule), bindingText(r.binding), roleText(r.role)]));
    }),
    part(region, 'Findings', async () => {
      const selector = `subject.kind=${kind},subject.name=${params.name}${kind === 'ServiceAccount' ? `,subject.namespace=${params.namespace}` : ''}`;
      const list = await api('GET', `${ACCESS}/accessfindings?fieldSelector=${encodeURIComponent(selector)}&limit=200`);
      if (!list.items.length) return h('p', {}, 'No findings.');
      return dataTable(`${list.items.length} findings`, ['Type', 'Binding', 'Fix'], list.items.map((f) => [f.type, f.bindingRef ? bindingText(f.bindingRef) : '', (f.suggestedFix && f.suggestedFix.description) || '']));
    }),
    kind === 'Group'
      ? undefined
      : part(region, 'Paths to cluster-admin', async () => {
          const pathSubject = kind === 'ServiceAccount' ? { serviceAccount: { namespace: params.namespace, name: params.name } } : { user: params.name };
          const status = await ask(`${ACCESS}/escalationpathreviews`, 'EscalationPathReview', { subject: pathSubject, target: { clusterAdmin: true } });
          if (!status.reachable) return h('p', {}, `No path to cluster-admin${status.incomplete ? ' found within the search bounds' : ''}.`);
          return h(
            'ol',
            {},
            status.paths.map((p) =>
              h(
                'li',
                {},
                p.steps.length ? '' : 'Already holds cluster-admin.',
                h('ol', {}, p.steps.map((s) => h('li', {}, `${s.actor}: ${s.capability} → ${s.yields.user || s.yields.clusterRole || (s.yields.groups || []).join(',')}`, ' (', s.uses.map((u) => (u.grantedBy.binding ? bindingText(u.grantedBy.binding) : u.grantedBy.authorizer.type)).join('; '), ')'))),
              ),
            ),
          );
        }),
  ]);
}

async function rulesTable(user, groups, namespace) {
  const status = await ask(`${ACCESS}/subjectrulesreviews`, 'SubjectRulesReview', { user, groups, namespace });
  const rows = (status.resourceRules || []).map((r) => [(r.verbs || []).join(', '), (r.apiGroups || []).map((g) => g || 'core').join(', '), (r.resources || []).join(', '), (r.resourceNames || []).join(', ')]);
  for (const r of status.nonResourceRules || []) rows.push([(r.verbs || []).join(', '), '', (r.nonResourceURLs || []).join(', '), '']);
  return h('div', {}, status.incomplete ? h('p', { className: 'error' }, `Incomplete: ${status.evaluationError || ''}`) : '', dataTable(`${rows.length} rules`, ['Verbs', 'API groups', 'Resources / URLs', 'Names'], rows));
}
