// History: permission changes of a subject or a namespace over time, from the AccessChange
// kind when the server serves it (found through discovery), listed with a field selector.
// Kept apart from the other views: the kind's shape is read in one place, entryOf.
import { ACCESS, api, servedResources } from './api.js';
import { failure, h, queryForm, resultRegion, setBusy, viewHash } from './dom.js';

export const title = 'History';

/** One change as the timeline shows it. */
function entryOf(change) {
  const c = change.spec || change.status || change;
  const subject = c.subject ? (c.subject.kind === 'ServiceAccount' ? `system:serviceaccount:${c.subject.namespace}:${c.subject.name}` : `${c.subject.kind} ${c.subject.name}`) : '';
  const p = c.permission || {};
  const permission = typeof p === 'string' ? p : `${p.verb || ''} ${p.nonResourceURL || `${p.resource || ''}${p.apiGroup ? `.${p.apiGroup}` : ''}`}${p.namespace ? ` in ${p.namespace}` : ''}`;
  const via = c.via ? `${c.via.binding ? `${c.via.binding.kind} ${c.via.binding.name}` : ''}${c.via.role ? ` → ${c.via.role.kind} ${c.via.role.name}` : ''}` : '';
  const cause = c.cause ? `${c.cause.kind} ${c.cause.name}${c.cause.resourceVersion ? ` @${c.cause.resourceVersion}` : ''}` : '';
  return { time: c.time || change.metadata?.creationTimestamp || '', change: c.change || c.direction || '', subject, permission, via, cause, author: c.author || '' };
}

export async function render(main, params) {
  const region = resultRegion();
  let resources;
  try {
    resources = await servedResources('access.platform.io/v1');
  } catch (err) {
    main.append(failure(err, 'discovery'));
    return;
  }
  if (!resources || !resources.some((r) => r.name === 'accesschanges')) {
    main.append(h('p', { id: 'history-unavailable', role: 'status' }, 'History is not available on this server (it does not serve accesschanges.access.platform.io).'));
    return;
  }
  const { form } = queryForm(
    [
      { name: 'subject', label: 'Subject', value: params.subject },
      { name: 'namespace', label: 'Namespace', value: params.namespace },
    ],
    'Show',
    (v) => (location.hash = viewHash('history', v)),
  );
  main.append(form, region);
  const selector = [params.subject ? `subject=${params.subject}` : '', params.namespace ? `namespace=${params.namespace}` : ''].filter(Boolean).join(',');
  setBusy(region, true);
  try {
    const list = await api('GET', `${ACCESS}/accesschanges?limit=500${selector ? `&fieldSelector=${encodeURIComponent(selector)}` : ''}`);
    const entries = list.items.map(entryOf).sort((a, b) => (a.time < b.time ? 1 : -1));
    region.replaceChildren(
      entries.length
        ? h('ol', { className: 'timeline', 'aria-label': 'Permission changes, newest first' }, entries.map((e) => h('li', { className: String(e.change).toLowerCase() }, h('time', { datetime: e.time }, e.time), ` ${e.subject} ${e.change} ${e.permission}`, e.via ? ` via ${e.via}` : '', e.cause ? ` (${e.cause}` : '', e.author ? ` by ${e.author}` : '', e.cause ? ')' : '')))
        : h('p', {}, 'No permission changes recorded.'),
      list.metadata && list.metadata.continue ? h('p', { className: 'note' }, 'Only the newest 500 are shown: narrow by subject or namespace.') : '',
    );
  } catch (err) {
    region.replaceChildren(failure(err, 'the history'));
  } finally {
    setBusy(region, false);
  }
}
