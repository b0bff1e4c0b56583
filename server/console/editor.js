// The query editor: the statement, its parameters as a JSON object, the
// Run / Explain / Profile buttons (Ctrl+Enter runs), and a history of the
// statements run, kept in localStorage and stepped through with Ctrl+Up /
// Ctrl+Down or picked from its list.

const HISTORY = 'nereid.history';
const KEPT = 50;

export class Editor {
  /** `run(statement, parameters, mode)`: mode '', 'EXPLAIN' or 'PROFILE'. */
  constructor(run) {
    this.statement = document.getElementById('statement');
    this.parameters = document.getElementById('parameters');
    this.historyList = document.getElementById('history');
    this.position = -1;
    const submit = (mode) => {
      let parameters;
      try {
        parameters = this.parsedParameters();
      } catch (e) {
        run(null, e.message, mode);
        return;
      }
      this.remember(this.statement.value);
      run(this.statement.value, parameters, mode);
    };
    document.getElementById('run').addEventListener('click', () => submit(''));
    document.getElementById('explain').addEventListener('click', () => submit('EXPLAIN'));
    document.getElementById('profile').addEventListener('click', () => submit('PROFILE'));
    this.statement.addEventListener('keydown', (event) => {
      if (!(event.ctrlKey || event.metaKey)) return;
      if (event.key === 'Enter') submit('');
      else if (event.key === 'ArrowUp') this.step(1);
      else if (event.key === 'ArrowDown') this.step(-1);
      else return;
      event.preventDefault();
    });
    this.historyList.addEventListener('change', () => {
      if (this.historyList.value) this.set(this.historyList.value);
      this.historyList.selectedIndex = 0;
    });
    this.showHistory();
  }

  /** The parameters box as an object (empty box: none); throws on bad JSON. */
  parsedParameters() {
    const text = this.parameters.value.trim();
    if (!text) return {};
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Error(`Parameters are not JSON: ${e.message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error('Parameters must be a JSON object, such as {"name": "Ann"}');
    }
    return value;
  }

  set(statement) {
    this.statement.value = statement;
    this.statement.focus();
  }

  history() {
    try {
      return JSON.parse(localStorage.getItem(HISTORY)) || [];
    } catch {
      return [];
    }
  }

  remember(statement) {
    const text = statement.trim();
    if (!text) return;
    const kept = [text, ...this.history().filter((s) => s !== text)].slice(0, KEPT);
    localStorage.setItem(HISTORY, JSON.stringify(kept));
    this.position = -1;
    this.showHistory();
  }

  /** Moves `by` entries back in the history (forward when negative). */
  step(by) {
    const entries = this.history();
    const next = Math.max(-1, Math.min(entries.length - 1, this.position + by));
    this.position = next;
    this.statement.value = next < 0 ? '' : entries[next];
  }

  showHistory() {
    const first = new Option(`History (${this.history().length})`, '');
    const options = this.history().map((s) => new Option(s.length > 80 ? `${s.slice(0, 79)}…` : s, s));
    this.historyList.replaceChildren(first, ...options);
  }
}
