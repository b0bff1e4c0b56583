// The graph view: a result's nodes and relationships drawn in SVG, laid
// out by layout.js, coloured by label, draggable (a dragged node stays
// pinned where it is dropped), with a node's or relationship's properties
// shown on click.

import { ForceLayout } from './layout.js';

const SVG = 'http://www.w3.org/2000/svg';
const MAX_NODES = 300;
const RADIUS = 24;
const PALETTE = ['#68bdf6', '#6dce9e', '#ff756e', '#de9bf9', '#fb95af', '#ffd86e',
  '#a5abb6', '#ffab1a', '#9ee5d7', '#c990c0', '#f79767', '#57c7e3'];
/** The colour of `label`: a hash of its name, so the same in every view and session. */
export function colourOf(label) {
  let hash = 0;
  for (const c of label) hash = (hash * 31 + c.codePointAt(0)) % 1000003;
  return PALETTE[hash % PALETTE.length];
}

function element(name, attributes = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** What a node is called in the drawing: a naming property, else its first label. */
export function caption(node) {
  const p = node.properties;
  for (const key of ['name', 'title', 'caption']) {
    if (p[key] !== undefined && p[key] !== null) return String(p[key]);
  }
  const named = Object.values(p).find((v) => typeof v === 'string');
  return named ?? node.labels[0] ?? '';
}

function short(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/**
 * Gives each link its `bend`: relationships between the same two nodes
 * (either way) curve apart instead of lying on one line.
 */
function bend(links) {
  const pairs = new Map();
  for (const link of links) {
    const [a, b] = [link.entity.start, link.entity.end].sort();
    const key = `${a} ${b}`;
    if (!pairs.has(key)) pairs.set(key, []);
    pairs.get(key).push(link);
  }
  for (const group of pairs.values()) {
    group.forEach((link, k) => {
      const offset = (k - (group.length - 1) / 2) * 36;
      // The normal of a reversed link points the other way.
      link.bend = link.entity.start <= link.entity.end ? offset : -offset;
    });
  }
}

/** Draws a link from circle edge to circle edge (a loop for a node to itself). */
function curve({ source, target, bend: offset, line, label }) {
  if (source === target) {
    const { x } = source;
    const y = source.y - RADIUS;
    const lift = 50 + Math.abs(offset);
    line.setAttribute('d', `M${x - 8},${y} C${x - 40},${y - lift} ${x + 40},${y - lift} ${x + 8},${y}`);
    label.setAttribute('x', x);
    label.setAttribute('y', y - lift * 0.75 - 4);
    return;
  }
  const dx = target.x - source.x;
  const dy = target.y - source.y;
  const d = Math.hypot(dx, dy) || 1;
  const cx = (source.x + target.x) / 2 - (dy / d) * offset;
  const cy = (source.y + target.y) / 2 + (dx / d) * offset;
  const edge = (node) => {
    const ex = cx - node.x;
    const ey = cy - node.y;
    const e = Math.hypot(ex, ey) || 1;
    return [node.x + (ex * RADIUS) / e, node.y + (ey * RADIUS) / e];
  };
  const [x1, y1] = edge(source);
  const [x2, y2] = edge(target);
  line.setAttribute('d', `M${x1},${y1} Q${cx},${cy} ${x2},${y2}`);
  label.setAttribute('x', 0.25 * x1 + 0.5 * cx + 0.25 * x2);
  label.setAttribute('y', 0.25 * y1 + 0.5 * cy + 0.25 * y2 - 4);
}

/** Stops the previous drawing's animation. */
let stopLast = () => {};

/** Lists an entity's labels or type and its properties in `panel`. */
function describe(panel, entity) {
  panel.replaceChildren();
  const title = document.createElement('h3');
  title.textContent = entity.kind === 'node'
    ? entity.labels.map((l) => `:${l}`).join('') || '(no label)'
    : `:${entity.type}`;
  const table = document.createElement('table');
  for (const [key, value] of [['<id>', entity.id], ...Object.entries(entity.properties)]) {
    const row = table.insertRow();
    row.insertCell().textContent = key;
    row.insertCell().textContent = typeof value === 'string' ? value : JSON.stringify(value);
  }
  panel.append(title, table);
  panel.hidden = false;
}

/**
 * Draws `graph` ({nodes, relationships} by element id) into `container`;
 * a click shows an entity's properties in `panel`.
 */
export function drawGraph(container, panel, graph) {
  stopLast();
  container.replaceChildren();
  panel.hidden = true;
  const showDetails = (entity) => describe(panel, entity);
  if (graph.nodes.size === 0) {
    container.textContent = 'The result holds no nodes to draw.';
    return;
  }
  const width = container.clientWidth || 800;
  const height = container.clientHeight || 500;
  const svg = element('svg', { viewBox: `0 0 ${width} ${height}`, class: 'graph' }, container);
  const marker = element('marker', {
    id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto',
  }, element('defs', {}, svg));
  element('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }, marker);

  const nodes = [...graph.nodes.values()].slice(0, MAX_NODES).map((entity) => ({ entity }));
  if (graph.nodes.size > MAX_NODES) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `Drawing the first ${MAX_NODES} of ${graph.nodes.size} nodes.`;
    container.appendChild(note);
  }
  const byId = new Map(nodes.map((n) => [n.entity.id, n]));
  const links = [...graph.relationships.values()]
    .filter((r) => byId.has(r.start) && byId.has(r.end))
    .map((entity) => ({ entity, source: byId.get(entity.start), target: byId.get(entity.end) }));
  bend(links);

  const linkLayer = element('g', { class: 'links' }, svg);
  const nodeLayer = element('g', { class: 'nodes' }, svg);
  for (const link of links) {
    link.g = element('g', { class: 'rel', 'data-type': link.entity.type }, linkLayer);
    link.line = element('path', { 'marker-end': 'url(#arrow)' }, link.g);
    link.label = element('text', { 'text-anchor': 'middle' }, link.g);
    link.label.textContent = link.entity.type;
    link.g.addEventListener('click', () => showDetails(link.entity));
  }
  for (const node of nodes) {
    const { labels } = node.entity;
    node.g = element('g', { class: 'node', 'data-labels': labels.join(' ') }, nodeLayer);
    element('circle', { r: RADIUS, fill: colourOf(labels[0] ?? '') }, node.g);
    const text = element('text', { 'text-anchor': 'middle', dy: '0.35em' }, node.g);
    text.textContent = short(caption(node.entity), 10);
    element('title', {}, node.g).textContent = `${labels.map((l) => `:${l}`).join('')} ${caption(node.entity)}`;
  }

  const layout = new ForceLayout(nodes, links, width, height);
  const place = () => {
    for (const node of nodes) node.g.setAttribute('transform', `translate(${node.x},${node.y})`);
    for (const link of links) curve(link);
  };
  // Once settled, the view widens to show every node (it never shrinks).
  const fit = () => {
    const margin = RADIUS + 20;
    const xs = nodes.map((n) => n.x);
    const ys = nodes.map((n) => n.y);
    const left = Math.min(0, Math.min(...xs) - margin);
    const top = Math.min(0, Math.min(...ys) - margin);
    const right = Math.max(width, Math.max(...xs) + margin);
    const bottom = Math.max(height, Math.max(...ys) + margin);
    svg.setAttribute('viewBox', `${left} ${top} ${right - left} ${bottom - top}`);
  };
  let frame = null;
  let steps = 0;
  const animate = () => {
    const moved = layout.step();
    place();
    steps += 1;
    const more = moved > 0.3 * nodes.length && steps < 600;
    frame = more ? requestAnimationFrame(animate) : null;
    if (!more) fit();
  };
  const wake = () => {
    steps = Math.min(steps, 500);
    if (frame === null) frame = requestAnimationFrame(animate);
  };
  place();
  wake();
  stopLast = () => cancelAnimationFrame(frame);
  dragging(svg, nodes, showDetails, wake);
}

/** Pointer handling: drag a node to move and pin it; a click without a move shows it. */
function dragging(svg, nodes, showDetails, wake) {
  const toSvg = (event) => {
    const screen = new DOMPoint(event.clientX, event.clientY);
    return screen.matrixTransform(svg.getScreenCTM().inverse());
  };
  for (const node of nodes) {
    let start = null;
    node.g.addEventListener('pointerdown', (event) => {
      start = { x: event.clientX, y: event.clientY, moved: false };
      node.fixed = true;
      node.g.setPointerCapture(event.pointerId);
      node.g.classList.add('dragged');
    });
    node.g.addEventListener('pointermove', (event) => {
      if (!start) return;
      if (Math.hypot(event.clientX - start.x, event.clientY - start.y) > 3) start.moved = true;
      const p = toSvg(event);
      node.x = p.x;
      node.y = p.y;
      wake();
    });
    node.g.addEventListener('pointerup', (event) => {
      if (start && !start.moved) showDetails(node.entity);
      start = null;
      node.g.releasePointerCapture(event.pointerId);
      node.g.classList.remove('dragged');
    });
  }
}
