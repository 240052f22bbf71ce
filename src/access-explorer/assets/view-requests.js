// Access requests: mine, and those waiting for a decision, approved or denied here through
// the approval subresource (the server decides whether the viewer may).
import { ACCESS, api, whoami } from './api.js';
import { dataTable, failure, h, resultRegion, setBusy } from './dom.js';

export const title = 'Access requests';

const scopeOf = (r) => (r.kind === 'ClusterAccessRequest' ? 'cluster-wide' : r.metadata.namespace);
const roleOf = (r) => `${r.spec.roleRef.kind} ${r.spec.roleRef.name}`;
const pathOf = (r) => (r.kind === 'ClusterAccessRequest' ? `${ACCESS}/clusteraccessrequests/${encodeURIComponent(r.metadata.name)}` : `${ACCESS}/namespaces/${encodeURIComponent(r.metadata.namespace)}/accessrequests/${encodeURIComponent(r.metadata.name)}`);

async function listKind(plural, kind) {
  const list = await api('GET', `${ACCESS}/${plural}?limit=500`);
  return list.items.map((r) => ({ ...r, kind }));
}

/** Approve or deny: the request as read, plus one entry with the comment (user and time are the server's). */
async function decide(request, entry, comment) {
  const current = await api('GET', pathOf(request));
  const status = { ...(current.status || {}) };
  status[entry] = [...(status[entry] || []), comment ? { comment } : {}];
  const { resourceVersion: _rv, ...metadata } = current.metadata;
  return api('PUT', `${pathOf(request)}/approval`, { ...current, metadata, status });
}

export async function render(main) {
  const region = resultRegion();
  main.append(region);
  setBusy(region, true);
  let me = '';
  try {
    me = (await whoami()).username || '';
  } catch {
    // Without a name every request is shown under "waiting".
  }
  const results = await Promise.allSettled([listKind('accessrequests', 'AccessRequest'), listKind('clusteraccessrequests', 'ClusterAccessRequest')]);
  setBusy(region, false);
  region.replaceChildren();
  const failures = results.filter((r) => r.status === 'rejected');
  for (const f of failures) region.append(failure(f.reason, 'the access requests'));
  if (failures.length === results.length) return;
  const requests = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  const mine = requests.filter((r) => r.spec.requester && r.spec.requester.username === me);
  const waiting = requests.filter((r) => (r.status || {}).phase === 'Pending' && !(r.spec.requester && r.spec.requester.username === me));

  region.append(
    h('h3', {}, 'My requests'),
    mine.length
      ? dataTable(`${mine.length} requests`, ['Name', 'Role', 'Scope', 'Duration', 'Phase', 'Approvals'], mine.map((r) => [r.metadata.name, roleOf(r), scopeOf(r), r.spec.duration, (r.status || {}).phase || 'Pending', String(((r.status || {}).approvals || []).length)]))
      : h('p', {}, 'You have no requests.'),
    h('h3', {}, 'Waiting for a decision'),
  );
  if (!waiting.length) {
    region.append(h('p', {}, 'No request is waiting.'));
    return;
  }
  region.append(
    dataTable(
      `${waiting.length} pending requests`,
      ['Name', 'Requester', 'Role', 'Scope', 'Duration', 'Justification', 'Decision'],
      waiting.map((r) => {
        const id = `comment-${scopeOf(r)}-${r.metadata.name}`;
        const comment = h('input', { id, autocomplete: 'off' });
        const outcome = h('span', { role: 'status' });
        const act = (entry) => async () => {
          outcome.replaceChildren('…');
          try {
            const decided = await decide(r, entry, comment.value.trim());
            outcome.replaceChildren(`Now ${(decided.status || {}).phase}`);
          } catch (err) {
            outcome.replaceChildren(failure(err));
          }
        };
        return [
          r.metadata.name,
          r.spec.requester ? r.spec.requester.username : '',
          roleOf(r),
          scopeOf(r),
          r.spec.duration,
          r.spec.justification || '',
          h(
            'div',
            { className: 'decision' },
            h('label', { for: id }, `Comment on ${r.metadata.name} `),
            comment,
            h('button', { type: 'button', onclick: act('approvals'), 'aria-label': `Approve ${r.metadata.name}` }, 'Approve'),
            h('button', { type: 'button', onclick: act('denials'), 'aria-label': `Deny ${r.metadata.name}` }, 'Deny'),
            outcome,
          ),
        ];
      }),
    ),
  );
}
