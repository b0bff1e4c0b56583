// The table view: one column per field, one row per record, each value as
// one line of text (values.js).

import { text } from './values.js';

/** Draws `fields` and `values` (rows of typed values) into `container`. */
export function drawTable(container, fields, values) {
  container.replaceChildren();
  if (fields.length === 0) {
    container.textContent = 'The statement returns no columns.';
    return;
  }
  const table = document.createElement('table');
  table.className = 'result';
  const head = table.createTHead().insertRow();
  for (const field of fields) {
    const th = document.createElement('th');
    th.textContent = field;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of values) {
    const tr = body.insertRow();
    for (const value of row) tr.insertCell().textContent = text(value);
  }
  container.appendChild(table);
}
