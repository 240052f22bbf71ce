// The binding graph: subjects → bindings → roles → rules, and ClusterRole aggregation, drawn by
// cytoscape in fixed columns (no force layout: thousands of nodes place at once). What is drawn
// is chosen on the server's side: one namespace's RoleBindings (or the ClusterRoleBindings),
// read in pages up to a bound, one binding, or one role's bindings.
import cytoscape from './cytoscape.esm.min.mjs';
import { RBAC, api } from './api.js';
import { bindingText, dataTable, failure, h, pagedTable, queryForm, resultRegion, roleText, setBusy, subjectParams, subjectText, viewHash, viewLink } from './dom.js';

export const title = 'Binding graph';

const MAX_BINDINGS = 2000;
const MAX_ROLES = 300;
// Aggregated ClusterRoles sit between the bindings and the roles they feed, so those edges run across.
const COLUMNS = { subject: 0, binding: 340, aggregated: 640, role: 940, rule: 1240 };
const COLORS = { subject: '#0969da', binding: '#8250df', role: '#1a7f37', rule: '#9a6700' };

async function listAll(path, max) {
  const items = [];
  let cont = '';
  do {
    const list = await api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    items.push(...list.items);
    cont = list.metadata && list.metadata.continue;
  } while (cont && items.length < max);
  return { items: items.slice(0, max), truncated: !!cont || items.length > max };
}

/** Runs `fn` over `items` with at most `width` calls at a time. */
async function pooled(items, width, fn) {
  const out = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}

const ruleText = (r) => `${(r.verbs || []).join(',')} ${(r.nonResourceURLs || []).concat((r.resources || []).map((x) => `${x}${(r.apiGroups || []).filter(Boolean).length ? `.${r.apiGroups.join('|')}` : ''}`)).join(',')}`;

export async function render(main, params) {
  const { form } = queryForm(
    [
      { name: 'namespace', label: 'Namespace (empty: ClusterRoleBindings)', value: params.namespace },
      { name: 'subject', label: 'Subjects containing', value: params.subject },
      { name: 'role', label: 'Role name', value: params.role },
      { name: 'binding', label: 'Binding name', value: params.binding },
    ],
    'Draw',
    (v) => (location.hash = viewHash('graph', { ...v, kind: v.binding ? (v.namespace ? 'RoleBinding' : 'ClusterRoleBinding') : '', roleKind: v.role ? params.roleKind : '' })),
  );
  const region = resultRegion();
  const details = h('section', { id: 'node-details', 'aria-live': 'polite', 'aria-label': 'The chosen node' });
  main.append(form, region);
  setBusy(region, true, 'Reading the bindings…');

  const namespace = params.namespace || '';
  const bindingsPath = namespace ? `${RBAC}/namespaces/${encodeURIComponent(namespace)}/rolebindings` : `${RBAC}/clusterrolebindings`;
  let bindings;
  let truncated = false;
  try {
    if (params.binding) {
      const path = (params.kind || (namespace ? 'RoleBinding' : 'ClusterRoleBinding')) === 'RoleBinding' ? `${RBAC}/namespaces/${encodeURIComponent(namespace)}/rolebindings/${encodeURIComponent(params.binding)}` : `${RBAC}/clusterrolebindings/${encodeURIComponent(params.binding)}`;
      bindings = [await api('GET', path)];
    } else {
      ({ items: bindings, truncated } = await listAll(bindingsPath, MAX_BINDINGS));
    }
  } catch (err) {
    setBusy(region, false);
    region.replaceChildren(failure(err, namespace ? `the RoleBindings of namespace ${namespace}` : 'the ClusterRoleBindings'));
    return;
  }
  const filter = (params.subject || '').toLowerCase();
  bindings = bindings.filter(
    (b) =>
      (!params.role || (b.roleRef.name === params.role && (!params.roleKind || b.roleRef.kind === params.roleKind))) &&
      (!filter || (b.subjects || []).some((s) => subjectText(s).toLowerCase().includes(filter))),
  );

  const nodes = new Map();
  const edges = [];
  const rows = { subject: 0, binding: 0, aggregated: 0, role: 0, rule: 0 };
  const node = (id, type, label, data, column = type) => {
    if (!nodes.has(id)) nodes.set(id, { group: 'nodes', data: { id, type, label, ...data }, position: { x: COLUMNS[column], y: rows[column]++ * 36 } });
    return id;
  };
  const edge = (source, target, label) => edges.push({ group: 'edges', data: { id: `${source}->${target}`, source, target, label } });

  const roleRefs = new Map();
  for (const b of bindings) {
    const ref = { kind: b.kind || (b.metadata.namespace ? 'RoleBinding' : 'ClusterRoleBinding'), namespace: b.metadata.namespace, name: b.metadata.name };
    const bid = node(`b:${ref.namespace || ''}/${ref.name}`, 'binding', bindingText(ref), { ref });
    const rid = `r:${b.roleRef.kind}/${b.roleRef.kind === 'Role' ? ref.namespace : ''}/${b.roleRef.name}`;
    roleRefs.set(rid, { kind: b.roleRef.kind, name: b.roleRef.name, namespace: b.roleRef.kind === 'Role' ? ref.namespace : '' });
    for (const s of b.subjects || []) edge(node(`s:${s.kind}/${s.namespace || ''}/${s.name}`, 'subject', `${s.kind} ${subjectText(s)}`, { subject: s }), bid, 'subject of');
    edge(bid, rid, 'references');
  }
  const roleList = [...roleRefs.entries()].slice(0, MAX_ROLES);
  const roles = await pooled(roleList, 6, async ([rid, ref]) => {
    try {
      return { rid, ref, role: await api('GET', ref.kind === 'Role' ? `${RBAC}/namespaces/${encodeURIComponent(ref.namespace)}/roles/${encodeURIComponent(ref.name)}` : `${RBAC}/clusterroles/${encodeURIComponent(ref.name)}`) };
    } catch (err) {
      return { rid, ref, error: err };
    }
  });
  const aggregating = [];
  for (const { rid, ref, role, error } of roles) {
    node(rid, 'role', roleText(ref), { ref, error: error ? error.message : undefined, notAllowed: error && error.notAllowed });
    if (!role) continue;
    (role.rules || []).forEach((rule, i) => edge(rid, node(`${rid}#${i}`, 'rule', ruleText(rule), { rule }), 'rule'));
    if (role.aggregationRule) aggregating.push({ rid, role });
  }
  // Aggregation: the ClusterRoles whose labels an aggregating role selects feed it.
  await pooled(aggregating, 4, async ({ rid, role }) => {
    for (const selector of role.aggregationRule.clusterRoleSelectors || []) {
      const labels = Object.entries(selector.matchLabels || {}).map(([k, v]) => `${k}=${v}`).join(',');
      if (!labels) continue;
      try {
        const { items } = await listAll(`${RBAC}/clusterroles?labelSelector=${encodeURIComponent(labels)}`, 200);
        for (const source of items) edge(node(`r:ClusterRole//${source.metadata.name}`, 'role', `ClusterRole ${source.metadata.name}`, { ref: { kind: 'ClusterRole', name: source.metadata.name } }, 'aggregated'), rid, 'aggregated into');
      } catch {
        // Shown as the role alone: the viewer may not list ClusterRoles.
      }
    }
  });
  setBusy(region, false);

  const counts = `${rows.subject} subjects, ${rows.binding} bindings, ${rows.role + rows.aggregated} roles, ${rows.rule} rules`;
  region.replaceChildren(
    h('p', {}, `${counts}${truncated ? ` (the first ${MAX_BINDINGS} bindings: narrow by namespace, binding or role)` : ''}${roleRefs.size > MAX_ROLES ? ` (the first ${MAX_ROLES} roles drawn)` : ''}.`),
    h('p', { className: 'legend note' }, Object.entries(COLORS).map(([t, c]) => h('span', {}, h('span', { style: `color:${c}` }, '●'), ` ${t}`))),
  );
  if (!nodes.size) {
    region.append(h('p', {}, 'No binding matches.'));
    return;
  }
  const container = h('div', { id: 'graph', role: 'img', 'aria-label': `Graph of ${counts}; the same edges are listed in the table below` });
  region.append(container, details);
  const cy = cytoscape({
    container,
    elements: [...nodes.values(), ...edges.filter((e) => nodes.has(e.data.source) && nodes.has(e.data.target))],
    layout: { name: 'preset' },
    wheelSensitivity: 0.3,
    textureOnViewport: nodes.size > 1500,
    hideEdgesOnViewport: nodes.size > 1500,
    style: [
      { selector: 'node', style: { label: 'data(label)', 'font-size': 11, 'text-valign': 'center', 'text-halign': 'right', 'text-margin-x': 6, width: 12, height: 12, 'background-color': (n) => COLORS[n.data('type')] } },
      { selector: 'node[?notAllowed]', style: { 'border-width': 2, 'border-color': '#82071e' } },
      { selector: 'edge', style: { width: 1, 'curve-style': 'straight', 'target-arrow-shape': 'triangle', 'arrow-scale': 0.6, 'line-color': '#afb8c1', 'target-arrow-color': '#afb8c1' } },
      { selector: 'edge[label = "aggregated into"]', style: { 'line-style': 'dashed', 'line-color': '#1a7f37', 'target-arrow-color': '#1a7f37' } },
      { selector: '.faded', style: { opacity: 0.15 } },
    ],
  });
  cy.on('tap', 'node', (event) => {
    const n = event.target;
    cy.elements().addClass('faded');
    n.closedNeighborhood().removeClass('faded');
    const d = n.data();
    details.replaceChildren(
      h('h3', {}, d.label),
      d.subject ? viewLink('subject', subjectParams(d.subject), `Everything ${subjectText(d.subject)} can do`) : '',
      d.error ? failure({ notAllowed: d.notAllowed, message: d.error }) : '',
      h('ul', {}, n.connectedEdges().map((e) => h('li', {}, `${e.source().data('label')} — ${e.data('label')} → ${e.target().data('label')}`))),
    );
  });
  cy.on('tap', (event) => {
    if (event.target === cy) cy.elements().removeClass('faded');
  });

  // The same graph as a table, for keyboard and screen reader users.
  const edgeRows = edges.filter((e) => e.data.label !== 'rule').map((e) => [nodes.get(e.data.source)?.data.label || e.data.source, e.data.label, nodes.get(e.data.target)?.data.label || e.data.target]);
  const tableRegion = h('section', { 'aria-label': 'Edges of the graph' }, h('h3', {}, 'Edges'));
  region.append(tableRegion);
  pagedTable(tableRegion, edgeRows, 100, (page) => dataTable('Subjects, bindings, roles and aggregation', ['From', 'Edge', 'To'], page));
}
