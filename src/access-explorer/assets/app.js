// The router: each view has a URL (#/view?params), so any answer can be shared as a link.
import { setToken, token, whoami } from './api.js';
import { failure, h } from './dom.js';
import * as matrix from './view-matrix.js';
import * as subject from './view-subject.js';
import * as graph from './view-graph.js';
import * as explain from './view-explain.js';
import * as whatif from './view-whatif.js';
import * as requests from './view-requests.js';
import * as history from './view-history.js';

const VIEWS = { matrix, subject, graph, explain, whatif, requests, history };
const main = document.getElementById('view');
const who = document.getElementById('whoami');

function route() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const name = Object.hasOwn(VIEWS, path) ? path : 'matrix';
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const params = Object.fromEntries(new URLSearchParams(query || ''));
  main.replaceChildren();
  document.title = `${VIEWS[name].title} · Access explorer`;
  main.append(h('h2', {}, VIEWS[name].title));
  VIEWS[name].render(main, params).catch((err) => main.append(failure(err)));
}

async function showUser() {
  try {
    const user = await whoami();
    who.textContent = `Signed in as ${user.username || '(no name)'}${user.groups && user.groups.length ? ` (groups: ${user.groups.join(', ')})` : ''}`;
  } catch (err) {
    who.textContent = err.notAllowed || err.code === 401 ? `Not signed in: ${err.message}` : `Could not tell who you are: ${err.message}`;
  }
}

const input = document.getElementById('token');
input.value = token();
document.getElementById('credentials').addEventListener('submit', (event) => {
  event.preventDefault();
  setToken(input.value.trim());
  void showUser();
  route();
});

let lastHash = location.hash;
window.addEventListener('hashchange', () => {
  route();
  // Moving to another view puts focus on its content, as a page load would.
  if (lastHash.split('?')[0] !== location.hash.split('?')[0]) main.focus();
  lastHash = location.hash;
});
void showUser();
route();
