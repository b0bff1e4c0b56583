"""Reading the TCK's feature files into cases: one per scenario, one per
Examples row of a scenario outline, with `<name>` placeholders substituted
in step texts, docstrings and tables and the Background steps first.

A small Gherkin reader of its own (the TCK uses a plain subset: tags,
Feature, Background, Scenario, Scenario Outline, Examples, steps with a
docstring or a table, comments) so the runner needs nothing beyond the
neo4j driver. Case names are those of the in-process runner
(`clauses/match/Match1.feature::[1] Name::3`), so the two expectation
files can be compared line by line."""

import os
from dataclasses import dataclass, field

STEP_KEYWORDS = ("Given ", "When ", "Then ", "And ", "But ")


@dataclass
class Step:
    text: str
    docstring: str | None = None
    table: list[list[str]] | None = None


@dataclass
class Case:
    name: str
    folder: str
    steps: list[Step]
    ignored: bool = False


@dataclass
class _Scenario:
    name: str
    tags: list[str]
    steps: list[Step] = field(default_factory=list)
    examples: list[list[list[str]]] = field(default_factory=list)


def feature_files(root):
    """Every `*.feature` under `root`, as sorted paths relative to it."""
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".feature"):
                out.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return sorted(out)


def split_cells(line):
    """The cells of a table row `| a | b\\|c |`, unescaped as Gherkin does:
    `\\|` is a pipe, `\\n` a newline, `\\\\` a backslash; any other
    backslash stands for itself."""
    body = line.strip()
    assert body.startswith("|")
    cells, cur, i = [], [], 1
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "|":
                cur.append("|")
                i += 2
                continue
            if nxt == "n":
                cur.append("\n")
                i += 2
                continue
            if nxt == "\\":
                cur.append("\\")
                i += 2
                continue
            cur.append("\\")
            i += 1
            continue
        if c == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return cells


def _parse(text):
    """(background steps, scenarios) of one feature file."""
    lines = text.splitlines()
    background, scenarios = [], []
    current_steps = None  # the list steps are appended to
    pending_tags = []
    in_examples = False
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            pending_tags.extend(t.lstrip("@") for t in line.split())
            continue
        if line.startswith("Feature:"):
            pending_tags = []
            continue
        if line.startswith("Background:"):
            current_steps, in_examples = background, False
            continue
        if line.startswith("Scenario Outline:") or line.startswith("Scenario:"):
            name = line.split(":", 1)[1].strip()
            sc = _Scenario(name=name, tags=pending_tags)
            pending_tags = []
            scenarios.append(sc)
            current_steps, in_examples = sc.steps, False
            continue
        if line.startswith("Examples:"):
            scenarios[-1].examples.append([])
            in_examples = True
            pending_tags = []
            continue
        if line.startswith("|"):
            row = split_cells(line)
            if in_examples:
                scenarios[-1].examples[-1].append(row)
            else:
                step = current_steps[-1]
                if step.table is None:
                    step.table = []
                step.table.append(row)
            continue
        if line.startswith('"""'):
            indent = len(raw) - len(raw.lstrip())
            body = []
            while i < len(lines) and not lines[i].strip().startswith('"""'):
                ln = lines[i]
                strip = min(indent, len(ln) - len(ln.lstrip()))
                body.append(ln[strip:])
                i += 1
            i += 1  # the closing quotes
            current_steps[-1].docstring = "\n".join(body)
            continue
        for kw in STEP_KEYWORDS:
            if line.startswith(kw):
                current_steps.append(Step(text=line[len(kw):].strip()))
                break
        else:
            raise ValueError(f"unrecognised line {i}: {line!r}")
    return background, scenarios


def _fill(text, header, row):
    for k, v in zip(header, row):
        text = text.replace(f"<{k}>", v)
    return text


def _substitute(step, header, row):
    return Step(
        text=_fill(step.text, header, row),
        docstring=None if step.docstring is None else _fill(step.docstring.strip(), header, row),
        table=None if step.table is None else [[_fill(c, header, row) for c in r] for r in step.table],
    )


def cases_of(root, rel):
    """The cases of the feature file `rel` (relative to `root`)."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        background, scenarios = _parse(f.read())
    folder = rel.split("/")[0]
    cases = []
    for sc in scenarios:
        base = f"{rel}::{sc.name}"
        steps = background + sc.steps
        ignored = "ignore" in sc.tags
        rows = [(ex[0], r) for ex in sc.examples if ex for r in ex[1:]]
        if not rows:
            cases.append(Case(base, folder, [_substitute(s, [], []) for s in steps], ignored))
            continue
        for n, (header, row) in enumerate(rows, 1):
            cases.append(Case(f"{base}::{n}", folder, [_substitute(s, header, row) for s in steps], ignored))
    return cases
