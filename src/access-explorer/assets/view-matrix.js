// A namespace's access matrix: subjects × resources × verbs, from one AccessMatrixReview
// (who-can for every cell, answered by the server's RBAC index), each cell naming its grants.
import { ACCESS, ask } from './api.js';
import { bindingText, failure, h, pagedTable, queryForm, resultRegion, roleText, setBusy, subjectParams, subjectText, viewHash, viewLink } from './dom.js';

export const title = 'Namespace access matrix';

const DEFAULT_RESOURCES = 'pods, services, configmaps, secrets, serviceaccounts, deployments.apps, roles.rbac.authorization.platform.io, rolebindings.rbac.authorization.platform.io';
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const ABBREVIATIONS = { get: 'G', list: 'L', watch: 'W', create: 'C', update: 'U', patch: 'P', delete: 'D', deletecollection: 'DC' };
const PAGE_SIZE = 50;

/** `deployments.apps`, `pods/log`, `roles.rbac.authorization.platform.io` as ResourceAttributes. */
function parseResource(text) {
  const [name, subresource] = text.split('/');
  const dot = name.indexOf('.');
  return { group: dot < 0 ? '' : name.slice(dot + 1), resource: dot < 0 ? name : name.slice(0, dot), ...(subresource ? { subresource } : {}) };
}
const resourceKey = (r) => `${r.resource}${r.group ? `.${r.group}` : ''}${r.subresource ? `/${r.subresource}` : ''}`;
const shortResource = (r) => `${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;

/** The matrix by subject: subject key → {subject, cells: "resource|verb" → grants}. */
export function pivot(status) {
  const bySubject = new Map();
  for (const grant of status.grants || []) {
    for (const subject of grant.subjects) {
      const key = `${subject.kind}\u0000${subject.namespace || ''}\u0000${subject.name}`;
      let row = bySubject.get(key);
      if (!row) bySubject.set(key, (row = { subject, cells: new Map() }));
      for (const r of grant.resources) {
        for (const verb of r.verbs) {
          const cell = `${resourceKey(r)}|${verb}`;
          if (!row.cells.has(cell)) row.cells.set(cell, []);
          row.cells.get(cell).push({ binding: grant.binding, role: grant.role });
        }
      }
    }
  }
  return [...bySubject.values()].sort((a, b) => (a.subject.kind + subjectText(a.subject) < b.subject.kind + subjectText(b.subject) ? -1 : 1));
}

export async function render(main, params) {
  const { form } = queryForm(
    [
      { name: 'namespace', label: 'Namespace', value: params.namespace, required: true },
      { name: 'resources', label: 'Resources (comma-separated, resource.group)', value: params.resources || DEFAULT_RESOURCES },
      { name: 'filter', label: 'Subjects whose name contains', value: params.filter },
      { name: 'kind', label: 'Subject kind', options: ['any', 'User', 'Group', 'ServiceAccount'], value: params.kind || 'any' },
    ],
    'Show',
    (v) => (location.hash = viewHash('matrix', { namespace: v.namespace, resources: v.resources === DEFAULT_RESOURCES ? '' : v.resources, filter: v.filter, kind: v.kind === 'any' ? '' : v.kind })),
  );
  const region = resultRegion();
  const details = h('section', { id: 'cell-details', 'aria-live': 'polite', 'aria-label': 'Grants of the chosen cell' });
  main.append(form, region, details);
  if (!params.namespace) {
    region.append(h('p', { className: 'note' }, 'Choose a namespace: the matrix shows every subject that may do each verb on each resource there.'));
    return;
  }
  const resources = (params.resources || DEFAULT_RESOURCES).split(',').map((s) => s.trim()).filter(Boolean).map(parseResource);
  setBusy(region, true);
  let status;
  try {
    // The filter is applied by the server: a large cluster's cluster-wide grants name thousands of subjects.
    const subjectFilter = params.filter || params.kind ? { ...(params.kind ? { kind: params.kind } : {}), ...(params.filter ? { nameContains: params.filter } : {}) } : undefined;
    status = await ask(`${ACCESS}/namespaces/${encodeURIComponent(params.namespace)}/accessmatrixreviews`, 'AccessMatrixReview', { resources, verbs: VERBS, ...(subjectFilter ? { subjectFilter } : {}) });
  } catch (err) {
    region.replaceChildren(failure(err, `the access matrix of namespace ${params.namespace}`));
    return;
  } finally {
    setBusy(region, false);
  }
  const rows = pivot(status);
  region.replaceChildren(
    h('p', {}, `${rows.length} subjects may act in namespace ${params.namespace}; members of the group system:masters may do everything.`),
    status.incomplete ? h('p', { className: 'error' }, `Incomplete: ${status.evaluationError || 'an authorizer cannot list whom it allows'}`) : '',
    (status.blocked || []).length ? h('p', { className: 'note' }, `${status.blocked.length} cells are granted but denied by an access guardrail (left out).`) : '',
  );

  const showCell = (row, r, verb, grants) => {
    details.replaceChildren(
      h('h3', {}, `${subjectText(row.subject)} may ${verb} ${shortResource(r)} in ${params.namespace}`),
      h(
        'ul',
        {},
        grants.map((g) =>
          h(
            'li',
            {},
            viewLink('graph', { namespace: g.binding.namespace || '', binding: g.binding.name, kind: g.binding.kind }, bindingText(g.binding)),
            ' → ',
            viewLink('graph', { role: g.role.name, roleKind: g.role.kind, namespace: g.binding.namespace || '' }, roleText(g.role)),
          ),
        ),
      ),
    );
    details.querySelector('a')?.focus();
  };

  pagedTable(region, rows, PAGE_SIZE, (page) => {
    const head = h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col', rowspan: 2 }, 'Subject'), resources.map((r) => h('th', { scope: 'colgroup', colspan: VERBS.length }, shortResource(r)))),
      h('tr', {}, resources.map(() => VERBS.map((v) => h('th', { scope: 'col' }, h('abbr', { title: v }, ABBREVIATIONS[v]))))),
    );
    const body = h(
      'tbody',
      {},
      page.map((row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('span', { className: 'note' }, `${row.subject.kind} `), viewLink('subject', subjectParams(row.subject), subjectText(row.subject))),
          resources.map((r) =>
            VERBS.map((verb) => {
              const grants = row.cells.get(`${resourceKey(r)}|${verb}`);
              if (!grants) return h('td', { 'aria-label': 'no' }, '');
              const via = grants.map((g) => `${bindingText(g.binding)} → ${roleText(g.role)}`).join('; ');
              return h('td', {}, h('button', { type: 'button', title: via, 'aria-label': `${verb} ${shortResource(r)}: yes, via ${via}`, onclick: () => showCell(row, r, verb, grants) }, '✓'));
            }),
          ),
        ),
      ),
    );
    return h('div', { className: 'scroll' }, h('table', { className: 'matrix' }, h('caption', {}, `Access in namespace ${params.namespace}`), head, body));
  });
}
