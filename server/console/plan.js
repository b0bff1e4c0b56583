// The plan view: an EXPLAIN or PROFILE plan (the Query API's `queryPlan` /
// `profiledQueryPlan`) drawn as a tree of operator boxes, the root (the
// operator producing the results) on top and its inputs below it. A
// profiled operator shows its rows, database hits and time.

function box(operator) {
  const div = document.createElement('div');
  div.className = 'operator';
  const name = document.createElement('strong');
  name.textContent = operator.operatorType;
  div.appendChild(name);
  const details = operator.arguments?.Details;
  if (details) {
    const p = document.createElement('code');
    p.textContent = details;
    div.appendChild(p);
  }
  const figures = [];
  if (operator.identifiers?.length) figures.push(operator.identifiers.join(', '));
  if ('records' in operator) {
    const rows = `${operator.records} row${operator.records === 1 ? '' : 's'}`;
    figures.push(rows, `${operator.dbHits} db hits`,
      `${(operator.time / 1e6).toFixed(3)} ms`);
  }
  if (figures.length) {
    const small = document.createElement('small');
    small.textContent = figures.join(' · ');
    div.appendChild(small);
  }
  return div;
}

function subtree(operator) {
  const li = document.createElement('li');
  li.appendChild(box(operator));
  if (operator.children?.length) {
    const ul = document.createElement('ul');
    for (const child of operator.children) ul.appendChild(subtree(child));
    li.appendChild(ul);
  }
  return li;
}

/** Draws `plan` into `container`; false when there is none. */
export function drawPlan(container, plan) {
  container.replaceChildren();
  if (!plan) {
    container.textContent = 'Prefix the query with EXPLAIN or PROFILE (or use the buttons) to see its plan.';
    return false;
  }
  const tree = document.createElement('ul');
  tree.className = 'plan';
  tree.appendChild(subtree(plan));
  container.appendChild(tree);
  return true;
}
