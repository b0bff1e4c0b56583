// Typed Query API values ({"$type", "_value"}) turned into what the views
// show: text for a table cell, plain JavaScript for the JSON view, and the
// nodes and relationships a result holds for the graph.

/** A node or relationship in the console's own shape. */
function entity(typed) {
  const v = typed._value;
  if (typed.$type === 'Node') {
    return { kind: 'node', id: v._element_id, labels: v._labels, properties: plainMap(v._properties) };
  }
  return {
    kind: 'relationship', id: v._element_id, type: v._type,
    start: v._start_node_element_id, end: v._end_node_element_id,
    properties: plainMap(v._properties),
  };
}

function plainMap(typedMap) {
  return Object.fromEntries(Object.entries(typedMap).map(([k, v]) => [k, plain(v)]));
}

/** A typed value as plain JavaScript (integers beyond 2^53 stay text). */
export function plain(typed) {
  if (typed === null || typeof typed !== 'object' || !('$type' in typed)) return typed;
  const v = typed._value;
  switch (typed.$type) {
    case 'Null': return null;
    case 'Integer': return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    case 'Float': return Number(v);
    case 'List': return v.map(plain);
    case 'Map': return plainMap(v);
    case 'Path': return v.map(plain);
    case 'Node':
    case 'Relationship': {
      const { kind, ...rest } = entity(typed);
      return rest;
    }
    default: return v;
  }
}

/** One line of text for a table cell. */
export function text(typed) {
  if (typed === null || typeof typed !== 'object') return String(typed);
  const v = typed._value;
  switch (typed.$type) {
    case 'Null': return 'null';
    case 'String': return v;
    case 'Node': {
      const e = entity(typed);
      return `(${e.labels.map((l) => `:${l}`).join('')} ${JSON.stringify(e.properties)})`;
    }
    case 'Relationship': {
      const e = entity(typed);
      return `[:${e.type} ${JSON.stringify(e.properties)}]`;
    }
    case 'Path': return v.map(text).join('');
    case 'List':
    case 'Map': return JSON.stringify(plain(typed));
    default: return String(v);
  }
}

/** Every node and relationship in `rows` (inside lists, maps and paths too), by element id. */
export function graphOf(rows) {
  const nodes = new Map();
  const relationships = new Map();
  const visit = (typed) => {
    if (typed === null || typeof typed !== 'object') return;
    switch (typed.$type) {
      case 'Node': nodes.set(typed._value._element_id, entity(typed)); break;
      case 'Relationship': relationships.set(typed._value._element_id, entity(typed)); break;
      case 'Path':
      case 'List': typed._value.forEach(visit); break;
      case 'Map': Object.values(typed._value).forEach(visit); break;
      default: break;
    }
  };
  rows.forEach((row) => row.forEach(visit));
  return { nodes, relationships };
}
