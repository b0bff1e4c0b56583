// The sidebar: what the database holds (labels, relationship types,
// property keys) and its schema (indexes, constraints), each read with the
// procedure or command Neo4j users know. A click puts a query for the item
// into the editor.

import { query, Unauthorized } from './api.js';
import { plain } from './values.js';
import { colourOf } from './graph.js';

/** Backticks a name when Cypher needs them. */
function quoted(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replaceAll('`', '``')}\``;
}

const SECTIONS = [
  {
    id: 'labels', statement: 'CALL db.labels() YIELD label RETURN label ORDER BY label',
    use: (l) => `MATCH (n:${quoted(l)}) RETURN n LIMIT 25`, colour: true,
  },
  {
    id: 'types', statement: 'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType',
    use: (t) => `MATCH p = ()-[:${quoted(t)}]->() RETURN p LIMIT 25`,
  },
  {
    id: 'keys', statement: 'CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey',
    use: (k) => `MATCH (n) WHERE n.${quoted(k)} IS NOT NULL RETURN n LIMIT 25`,
  },
  {
    id: 'indexes',
    statement: "SHOW INDEXES YIELD name, type, labelsOrTypes, properties RETURN name, type + ' ' + coalesce(labelsOrTypes[0], '') + coalesce(' ' + properties[0], '') AS what ORDER BY name",
    use: () => 'SHOW INDEXES',
  },
  {
    id: 'constraints',
    statement: "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN name, type + ' ' + coalesce(labelsOrTypes[0], '') + coalesce(' ' + properties[0], '') AS what ORDER BY name",
    use: () => 'SHOW CONSTRAINTS',
  },
];

function item(text, title, colour, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = text;
  if (title) button.title = title;
  if (colour) button.style.backgroundColor = colour;
  button.addEventListener('click', onClick);
  return button;
}

/**
 * Fills the sidebar; `use(statement)` receives a clicked item's query.
 * Rejects with api.js's Unauthorized when the server wants a login.
 */
export async function loadSidebar(use) {
  await Promise.all(SECTIONS.map(async (section) => {
    const list = document.getElementById(`sidebar-${section.id}`);
    let answer;
    try {
      answer = await query(section.statement);
    } catch (e) {
      if (e instanceof Unauthorized) throw e;
      list.replaceChildren(`(${e.message})`);
      return;
    }
    const items = answer.data.values.map((row) => {
      const [name, what] = row.map(plain);
      const colour = section.colour ? colourOf(name) : null;
      return item(name, what, colour, () => use(section.use(name)));
    });
    list.replaceChildren(...(items.length ? items : ['(none)']));
  }));
}
