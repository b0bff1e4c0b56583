// The console's one way to the server: Neo4j's Query API on this origin,
// answering in typed JSON so nodes, relationships and paths keep their
// element ids. Basic credentials live in sessionStorage (gone with the tab)
// and are sent explicitly; `credentials: 'omit'` keeps the browser from
// caching them or prompting for them on a 401.

const ENDPOINT = '/db/neo4j/query/v2';
const TYPED = 'application/vnd.neo4j.query';
const STORED = 'nereid.credentials';

/** The server wants (other) credentials: the login form should show. */
export class Unauthorized extends Error {}

/** A statement the server refused or that failed: Neo4j's code and message. */
export class QueryError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export function setCredentials(user, password) {
  // btoa takes Latin-1 only: encode UTF-8 first.
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  const token = btoa(String.fromCharCode(...bytes));
  sessionStorage.setItem(STORED, JSON.stringify({ user, token }));
}

export function forgetCredentials() {
  sessionStorage.removeItem(STORED);
}

/** The user name the console sends, or null. */
export function currentUser() {
  const stored = sessionStorage.getItem(STORED);
  return stored ? JSON.parse(stored).user : null;
}

/**
 * Runs one statement in its own transaction; resolves to the answer
 * (`data.fields`, `data.values`, `counters`, `queryPlan`, ...). Rejects with
 * Unauthorized on 401/429 and QueryError for anything the server refused.
 */
export async function query(statement, parameters = {}) {
  const headers = { 'Content-Type': 'application/json', Accept: TYPED };
  const stored = sessionStorage.getItem(STORED);
  if (stored) headers.Authorization = `Basic ${JSON.parse(stored).token}`;
  const response = await fetch(ENDPOINT, {
    method: 'POST',
    headers,
    credentials: 'omit',
    body: JSON.stringify({ statement, parameters, includeCounters: true }),
  });
  const answer = await response.json().catch(() => ({}));
  const error = (answer.errors || [])[0];
  if (response.status === 401 || response.status === 429) {
    throw new Unauthorized(error ? error.message : 'The server wants a user and password.');
  }
  if (error) throw new QueryError(error.code, error.message);
  if (!response.ok) throw new QueryError('', `HTTP ${response.status}`);
  return answer;
}
