// History: permission changes of a subject or a namespace over time, from the AccessChange
// kind when the server serves it (found through discovery), listed with a field selector.
// Kept apart from the other views: the kind's shape is read in one place, entryOf.
import { ACCESS, api, servedResources } from './api.js';
import { failure, h, queryForm, resultRegion, setBusy, viewHash } from './dom.js';

export const title = 'History';

/** A subject as bindings name it, in the `subject` field selector's form. */
const subjectKey = (s) => (s.kind === 'ServiceAccount' ? `ServiceAccount:${s.namespace || ''}:${s.name}` : `${s.kind}:${s.name}`);

/** One permission class of an entry, as a line: verbs, what, and the binding → role that causes it. */
function permissionText(p) {
  const what = p.nonResourceURL || `${p.resource || ''}${p.apiGroup ? `.${p.apiGroup}` : ''}${p.resourceName ? ` ${p.resourceName}` : ''}`;
  const via = (p.via || []).map((v) => `${v.binding.kind} ${v.binding.namespace ? `${v.binding.namespace}/` : ''}${v.binding.name} → ${v.role.kind} ${v.role.name}`).join(', ');
  return `${p.verbs.join(', ')} ${what}${via ? ` via ${via}` : ''}`;
}

/** One AccessChange as the timeline shows it (the kind's shape is read here only). */
function entryOf(change) {
  const cause = change.cause || {};
  return {
    name: change.metadata.name,
    time: change.time,
    subject: change.subject ? subjectKey(change.subject) : '',
    where: change.namespace ? `in ${change.namespace}` : 'cluster-wide',
    gained: (change.gained || []).map(permissionText),
    lost: (change.lost || []).map(permissionText),
    cause: `${cause.operation || ''} ${cause.kind || ''} ${cause.namespace ? `${cause.namespace}/` : ''}${cause.name || ''}${cause.resourceVersion ? ` @${cause.resourceVersion}` : ''}`.trim(),
    author: cause.user ? cause.user.username : '',
  };
}

/** The field selector of the form: a subject as `Kind:name` (as the API selects it), a bare name for any kind. */
function selectorOf(params) {
  const parts = [];
  if (params.subject) parts.push(/^(User|Group|ServiceAccount):/.test(params.subject) ? `subject=${params.subject}` : `subject.name=${params.subject}`);
  if (params.namespace) parts.push(`namespace=${params.namespace}`);
  return parts.join(',');
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
  const selector = selectorOf(params);
  setBusy(region, true);
  try {
    const list = await api('GET', `${ACCESS}/accesschanges?limit=500${selector ? `&fieldSelector=${encodeURIComponent(selector)}` : ''}`);
    const entries = list.items.map(entryOf).sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
    const side = (sign, label, lines) => (lines.length ? h('ul', { 'aria-label': label }, lines.map((l) => h('li', { className: label.toLowerCase() }, `${sign} ${l}`))) : '');
    region.replaceChildren(
      entries.length
        ? h(
            'ol',
            { className: 'timeline', 'aria-label': 'Permission changes, newest first' },
            entries.map((e) =>
              h(
                'li',
                { 'data-name': e.name },
                h('time', { datetime: e.time }, e.time),
                ` ${e.subject} ${e.where}: ${e.cause}${e.author ? ` by ${e.author}` : ''}`,
                side('+', 'Gained', e.gained),
                side('−', 'Lost', e.lost),
              ),
            ),
          )
        : h('p', {}, 'No permission changes recorded.'),
      list.metadata && list.metadata.continue ? h('p', { className: 'note' }, 'Only the first 500 are shown: narrow by subject or namespace.') : '',
    );
  } catch (err) {
    region.replaceChildren(failure(err, 'the history'));
  } finally {
    setBusy(region, false);
  }
}
