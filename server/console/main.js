// The console's entry point: wires the editor to the Query API and the
// answer to the views (table, graph, JSON, plan), keeps the sidebar
// current, and asks for a login whenever the server answers 401.

import { query, currentUser, forgetCredentials, Unauthorized } from './api.js';
import { login } from './login.js';
import { Editor } from './editor.js';
import { drawTable } from './table.js';
import { drawGraph } from './graph.js';
import { drawPlan } from './plan.js';
import { loadSidebar } from './sidebar.js';
import { graphOf, plain } from './values.js';

const VIEWS = ['table', 'graph', 'json', 'plan'];
const MAX_DRAWN = 300;
const byId = (id) => document.getElementById(id);
const status = byId('status');

/** The last answer's graph, drawn when its view is shown (it needs the view's size). */
let pendingGraph = null;

function show(view) {
  for (const name of VIEWS) {
    byId(`view-${name}`).hidden = name !== view;
    byId(`tab-${name}`).setAttribute('aria-selected', String(name === view));
  }
  if (view === 'graph' && pendingGraph) {
    drawGraph(byId('graph'), byId('details'), pendingGraph);
    pendingGraph = null;
  }
}

function showUser() {
  const user = currentUser();
  byId('user').textContent = user ? `Signed in as ${user}` : '';
  byId('logout').hidden = !user;
}

/** Runs `work`; on a 401 asks for a login (checked with a trivial query) and runs it again. */
async function withLogin(work) {
  for (;;) {
    try {
      return await work();
    } catch (e) {
      if (!(e instanceof Unauthorized)) throw e;
      // The server's reason only when it refused credentials sent.
      const reason = currentUser() ? e.message : 'This server has users: log in.';
      await login(reason, () => query('RETURN 1'));
      showUser();
    }
  }
}

/** Adds the relationships between the result's nodes, as a graph view shows them. */
async function connected(graph) {
  const ids = [...graph.nodes.keys()].slice(0, MAX_DRAWN);
  if (ids.length < 2) return;
  try {
    const answer = await query(
      'MATCH (a)-[r]->(b) WHERE elementId(a) IN $ids AND elementId(b) IN $ids RETURN r LIMIT 1000',
      { ids },
    );
    const more = graphOf(answer.data.values);
    for (const [id, rel] of more.relationships) graph.relationships.set(id, rel);
  } catch {
    // The result's own relationships are still drawn.
  }
}

function summary(answer, millis) {
  const rows = answer.data.values.length;
  const parts = [`${rows} row${rows === 1 ? '' : 's'} in ${Math.round(millis)} ms`];
  const counters = answer.counters || {};
  for (const [key, value] of Object.entries(counters)) {
    if (typeof value === 'number' && value > 0 && key !== 'systemUpdates') {
      parts.push(`${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}: ${value}`);
    }
  }
  for (const note of answer.notifications || []) parts.push(`${note.severity}: ${note.title}`);
  return parts.join(' · ');
}

async function render(answer, millis) {
  const { fields, values } = answer.data;
  drawTable(byId('view-table'), fields, values);
  const records = values.map((row) => Object.fromEntries(fields.map((f, i) => [f, plain(row[i])])));
  byId('json').textContent = JSON.stringify(records, null, 2);
  const plan = answer.profiledQueryPlan || answer.queryPlan;
  drawPlan(byId('view-plan'), plan);
  const graph = graphOf(values);
  await connected(graph);
  pendingGraph = graph;
  status.className = '';
  status.textContent = summary(answer, millis);
  if (plan) show('plan');
  else if (graph.nodes.size > 0) show('graph');
  else show('table');
}

let refreshSidebar = () => {};

async function run(statement, parameters, mode) {
  if (statement === null) {
    status.className = 'error';
    status.textContent = parameters;
    return;
  }
  const prefixed = mode && !/^\s*(EXPLAIN|PROFILE)\b/i.test(statement) ? `${mode} ${statement}` : statement;
  status.className = '';
  status.textContent = 'Running…';
  const started = performance.now();
  try {
    const answer = await withLogin(() => query(prefixed, parameters));
    await render(answer, performance.now() - started);
    if (answer.counters?.containsUpdates) refreshSidebar();
  } catch (e) {
    status.className = 'error';
    status.textContent = e.code ? `${e.code}: ${e.message}` : e.message;
  }
}

const editor = new Editor(run);
refreshSidebar = () => withLogin(() => loadSidebar((statement) => editor.set(statement)))
  .catch((e) => { status.className = 'error'; status.textContent = e.message; });
for (const name of VIEWS) byId(`tab-${name}`).addEventListener('click', () => show(name));
byId('refresh').addEventListener('click', refreshSidebar);
byId('logout').addEventListener('click', () => {
  forgetCredentials();
  window.location.reload();
});
showUser();
show('table');
refreshSidebar();
