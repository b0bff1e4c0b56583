"""One TCK case run over Bolt, step by step; the first step that does not
hold ends it. The graph is cleared at the start of every case (one server
serves the whole run), so a case sees only what its own steps created."""

import os
from dataclasses import dataclass

from neo4j.exceptions import Neo4jError

import errors
from received import Unrepresentable, tagged
from snapshot import KINDS, Snapshot
from values import NotationError, matches, multiset_eq, parse, render, to_param

PROCEDURE_SKIP = "needs a registered fixture procedure (not available over Bolt)"
CLEAR = "MATCH (n) DETACH DELETE n"


@dataclass
class Outcome:
    status: str  # "passed", "failed", "skipped"
    reason: str = ""  # short and stable: the expectations file keeps it
    message: str = ""  # the long story, printed for unexpected failures


class CaseFailed(Exception):
    def __init__(self, reason, message=""):
        super().__init__(reason)
        self.reason = reason
        self.message = message or reason


@dataclass
class Rows:
    columns: list
    rows: list


@dataclass
class Failed:
    phase: str
    code: str
    message: str
    description: str = ""  # the GQL status description (nereid's detail is there)


def _description(e):
    """The failure's GQL status description (Bolt 5.7+), or ""."""
    return getattr(e, "gql_status_description", None) or ""


def execute(session, query, params):
    """Rows or Failed; the phase is where the driver raised (see errors.py)."""
    try:
        result = session.run(query, params)
    except Neo4jError as e:
        return Failed(errors.COMPILE, e.code or "", e.message or "", _description(e))
    try:
        records = list(result)
        columns = list(result.keys())
        return Rows(columns, [[tagged(v) for v in r.values()] for r in records])
    except Neo4jError as e:
        return Failed(errors.RUNTIME, e.code or "", e.message or "", _description(e))
    except Unrepresentable as e:
        raise CaseFailed("driver: value not representable", str(e)) from None
    except (ValueError, TypeError, OverflowError) as e:
        # The driver could not hydrate what the server sent.
        raise CaseFailed(f"driver: {type(e).__name__}", str(e)) from None


def _short(text, n=80):
    first = (text or "").splitlines()[0] if text else ""
    return first if len(first) <= n else first[: n - 1] + "…"


class _Run:
    def __init__(self, session, graphs_dir, strict):
        self.session = session
        self.graphs_dir = graphs_dir
        self.strict = strict
        self.params = {}
        self.last = None
        self.before = None

    def setup(self, query):
        out = execute(self.session, query, self.params)
        if isinstance(out, Failed):
            raise CaseFailed(f"setup: {out.code}: {_short(out.message, 60)}", f"setup query failed: {out.code}: {out.message}")

    def named_graph(self, name):
        import json

        d = os.path.join(self.graphs_dir, name)
        with open(os.path.join(d, f"{name}.json"), encoding="utf-8") as f:
            meta = json.load(f)
        for script in meta.get("scripts", []):
            with open(os.path.join(d, f"{script}.cypher"), encoding="utf-8") as f:
                for statement in f.read().split(";"):
                    if statement.strip():
                        self.setup(statement.strip())

    def rows(self):
        if self.last is None:
            raise CaseFailed("runner: no query was executed")
        if isinstance(self.last, Failed):
            raise CaseFailed(
                f"{self.last.code.rsplit('.', 1)[-1]} at {self.last.phase}: {_short(self.last.message, 60)}",
                f"the query failed at {self.last.phase}: {self.last.code}: {self.last.message}",
            )
        return self.last

    def result(self, table, ordered, ignore_list_order):
        got = self.rows()
        header, body = table[0], table[1:]
        try:
            expected = [[parse(c) for c in row] for row in body]
        except NotationError as e:
            raise CaseFailed("runner: unparsable expected value", str(e)) from None

        def row_eq(a, b):
            return len(a) == len(b) and all(matches(x, y, ignore_list_order) for x, y in zip(a, b))

        same_cols = header == got.columns
        if ordered:
            same_rows = len(expected) == len(got.rows) and all(row_eq(a, b) for a, b in zip(expected, got.rows))
        else:
            same_rows = multiset_eq(expected, got.rows, row_eq)
        if same_cols and same_rows:
            return
        raise CaseFailed(
            "wrong result" if same_cols else "wrong columns",
            f"expected:\n{render_table(header, expected)}\ngot:\n{render_table(got.columns, got.rows)}",
        )

    def error(self, expected):
        if self.last is None:
            raise CaseFailed("runner: no query was executed")
        if isinstance(self.last, Rows):
            raise CaseFailed(
                f"no error raised: {expected.detail}",
                f"expected {expected.error_type} {expected.detail}, got {len(self.last.rows)} row(s)",
            )
        problem = errors.check(expected, self.last.phase, self.last.code, self.last.description, self.strict)
        if problem:
            raise CaseFailed(
                f"wrong error: expected {expected.error_type} {expected.detail}; {problem.split(';')[0]}",
                f"{problem}\n  error was at {self.last.phase}: {self.last.code}: {self.last.message}",
            )

    def side_effects(self, table):
        if self.before is None:
            raise CaseFailed("runner: side effects checked before a query")
        got = self.before.diff(Snapshot.take(self.session))
        want = {k: 0 for k in KINDS}
        for kind, count in table:
            if kind not in want:
                raise CaseFailed(f"runner: unknown side effect {kind}")
            want[kind] = int(count)
        differing = [f"{k}: expected {want[k]}, got {got[k]}" for k in KINDS if want[k] != got[k]]
        if differing:
            raise CaseFailed("wrong side effects", ", ".join(differing))

    def step(self, step, wants_side_effects):
        text = step.text
        if text in ("an empty graph", "any graph"):
            return
        if text == "having executed:":
            return self.setup(step.docstring)
        if text == "parameters are:":
            for name, value in step.table:
                self.params[name] = to_param(parse(value))
            return
        if text == "executing query:":
            if wants_side_effects:
                self.before = Snapshot.take(self.session)
            self.last = execute(self.session, step.docstring, self.params)
            return
        if text == "executing control query:":
            self.last = execute(self.session, step.docstring, self.params)
            return
        if text == "the result should be, in any order:":
            return self.result(step.table, False, False)
        if text == "the result should be, in order:":
            return self.result(step.table, True, False)
        if text == "the result should be (ignoring element order for lists):":
            return self.result(step.table, False, True)
        if text == "the result should be, in order (ignoring element order for lists):":
            return self.result(step.table, True, True)
        if text == "the result should be empty":
            rows = self.rows()
            if rows.rows:
                raise CaseFailed("wrong result", f"expected no rows, got:\n{render_table(rows.columns, rows.rows)}")
            return
        if text == "no side effects":
            return self.side_effects([])
        if text == "the side effects should be:":
            return self.side_effects(step.table)
        if text.startswith("the ") and text.endswith(" graph"):
            return self.named_graph(text[len("the "):-len(" graph")])
        expected = errors.ExpectedError.parse(text)
        if expected is None:
            raise CaseFailed(f"runner: unknown step {text}")
        return self.error(expected)


def run_case(case, driver, graphs_dir, strict):
    if case.ignored:
        return Outcome("skipped", "tagged @ignore in the TCK")
    if any(s.text.startswith("there exists a procedure") for s in case.steps):
        return Outcome("skipped", PROCEDURE_SKIP)
    wants = any(s.text in ("no side effects", "the side effects should be:") for s in case.steps)
    with driver.session() as session:
        try:
            session.run(CLEAR).consume()
            run = _Run(session, graphs_dir, strict)
            for step in case.steps:
                try:
                    run.step(step, wants)
                except CaseFailed as e:
                    return Outcome("failed", e.reason, f"step `{step.text}`: {e.message}")
        except Neo4jError as e:
            return Outcome("failed", f"runner: {e.code}", str(e))
    return Outcome("passed")


def render_table(columns, rows):
    out = "   | " + " | ".join(columns) + " |"
    for row in rows:
        out += "\n   | " + " | ".join(render(v) for v in row) + " |"
    return out
