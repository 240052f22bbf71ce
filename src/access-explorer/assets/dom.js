// Small DOM helpers: elements, accessible tables, errors shown as "not allowed" with the reason.

/** An element: attributes (on* are listeners), then children (strings become text). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'className') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A link to a view of this page. */
export const viewLink = (view, params, text) => h('a', { href: viewHash(view, params) }, text);

export function viewHash(view, params) {
  const query = new URLSearchParams(Object.entries(params || {}).filter(([, v]) => v !== undefined && v !== '')).toString();
  return `#/${view}${query ? `?${query}` : ''}`;
}

/** A table with a caption, column headers, and the first cell of each row as its row header. */
export function dataTable(caption, headers, rows, className) {
  return h(
    'div',
    { className: 'scroll' },
    h(
      'table',
      { className },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', {}, c)))))),
    ),
  );
}

/** An answer the viewer may not read says so, with the server's reason; any other failure says what failed. */
export function failure(err, what) {
  if (err && err.notAllowed) return h('div', { className: 'not-allowed', role: 'alert' }, h('strong', {}, 'Not allowed'), `: ${what ? `${what}: ` : ''}${err.message}`);
  return h('div', { className: 'error', role: 'alert' }, h('strong', {}, 'Error'), `: ${what ? `${what}: ` : ''}${err && err.message ? err.message : String(err)}`);
}

/** A form of labelled fields that navigates to the view with its values, so every answer has a URL. */
export function queryForm(fields, submitText, onSubmit) {
  const inputs = {};
  const form = h(
    'form',
    { className: 'query' },
    fields.map((f) => {
      const id = `f-${f.name}`;
      let input;
      if (f.options) input = h('select', { id, name: f.name }, f.options.map((o) => h('option', { value: o, selected: o === f.value }, o)));
      else if (f.multiline) input = h('textarea', { id, name: f.name, spellcheck: 'false' }, f.value || '');
      else if (f.type === 'file') input = h('input', { id, name: f.name, type: 'file', accept: f.accept });
      else if (f.type === 'checkbox') input = h('input', { id, name: f.name, type: 'checkbox', checked: !!f.value });
      else input = h('input', { id, name: f.name, value: f.value || '', placeholder: f.placeholder, required: f.required, autocomplete: 'off', spellcheck: 'false' });
      inputs[f.name] = input;
      return h('label', { for: id }, f.label, input);
    }),
    h('button', { type: 'submit' }, submitText),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = {};
    for (const [name, input] of Object.entries(inputs)) values[name] = input.type === 'checkbox' ? (input.checked ? 'true' : '') : input.type === 'file' ? input.files : input.value.trim();
    onSubmit(values, inputs);
  });
  return { form, inputs };
}

/** A result region screen readers announce when it changes. */
export const resultRegion = () => h('section', { id: 'result', 'aria-live': 'polite', 'aria-busy': 'false' });

export function setBusy(region, busy, text) {
  region.setAttribute('aria-busy', busy ? 'true' : 'false');
  if (busy) region.replaceChildren(h('p', { className: 'note' }, text || 'Loading…'));
}

/** A subject as people write it. */
export function subjectText(s) {
  if (s.kind === 'ServiceAccount') return `system:serviceaccount:${s.namespace || ''}:${s.name}`;
  return s.name;
}

export const bindingText = (b) => (b.kind === 'RoleBinding' ? `RoleBinding ${b.namespace}/${b.name}` : `ClusterRoleBinding ${b.name}`);
export const roleText = (r) => `${r.kind} ${r.name}`;

export function subjectParams(s) {
  return { kind: s.kind, name: s.name, ...(s.kind === 'ServiceAccount' ? { namespace: s.namespace } : {}) };
}

/** Rows shown a page at a time: the document holds one page, however many rows there are. */
export function pagedTable(region, rows, pageSize, renderPage) {
  let page = 0;
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const status = h('span', { role: 'status' });
  const prev = h('button', { type: 'button', onclick: () => show(page - 1) }, 'Previous');
  const next = h('button', { type: 'button', onclick: () => show(page + 1) }, 'Next');
  const body = h('div');
  function show(n) {
    page = Math.min(Math.max(0, n), pages - 1);
    prev.disabled = page === 0;
    next.disabled = page === pages - 1;
    status.textContent = `Rows ${rows.length ? page * pageSize + 1 : 0}–${Math.min(rows.length, (page + 1) * pageSize)} of ${rows.length}`;
    body.replaceChildren(renderPage(rows.slice(page * pageSize, (page + 1) * pageSize)));
  }
  region.append(pages > 1 ? h('div', { className: 'pager', role: 'group', 'aria-label': 'Pages' }, prev, status, next) : status, body);
  show(0);
}
