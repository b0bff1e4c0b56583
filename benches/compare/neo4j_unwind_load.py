"""Neo4j's side of benches/compare/load: the openCypher CSV directory loaded into the reference
Neo4j through the Python driver as Neo4j's documentation recommends for a client-side load
(`UNWIND $rows` in batches, each batch one transaction; nodes, then an index on the key the
relationships are matched on, then relationships).

Everything the statements need is read from the headers, never from file names:
  - a node file's `:ID(space)` column gives its rows' ids in that space, its `:LABEL` column each
    row's labels (`;`-separated); rows are grouped by label set, since a label in `CREATE` is
    part of the statement's text;
  - a relationship file's `:START_ID(space)` / `:END_ID(space)` say which space each end's id is
    in, its `:TYPE` column each row's type;
  - an ID space is matched on the labels every one of its rows carries (e.g. `Place` for rows
    labelled `Place;City` and `Place;Country`), and on its key: the property column that holds the
    row's `:ID` in every row (the SNB files' `id:long`), with that column's type. A space without
    such a column has its ids stored in the property `_id` as strings (Neo4j's import default).
Values are typed from the header (`name:type`); an empty field is no property, as for the other
loaders (the row counts compared are the same).
"""

import csv
import os
import time
from collections import defaultdict

BATCH = 10_000

CONVERT = {
    "long": int, "int": int, "short": int, "byte": int,
    "double": float, "float": float,
    "boolean": lambda v: v.lower() == "true",
    "string": str,
    "string[]": lambda v: v.split(";"),
}


def column(header, prefix):
    """Index and the parenthesised ID space of the first column starting with `prefix`."""
    for i, h in enumerate(header):
        if h.startswith(prefix):
            return i, h[len(prefix) + 1:-1] if h.endswith(")") else ""
    return None, None


def typed_columns(header):
    """(index, property name, converter) of the header's property columns."""
    out = []
    for i, h in enumerate(header):
        if h.startswith(":"):
            continue
        name, _, kind = h.partition(":")
        if (kind or "string") not in CONVERT:
            raise SystemExit(f"neo4j load: no conversion for the column type {h!r}")
        out.append((i, name, CONVERT[kind or "string"]))
    return out


def rows_of(directory, name):
    with open(os.path.join(directory, name), newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        next(reader)
        yield from reader


class Plan:
    """The batches to send, read and typed: `nodes` is [(labels, [batch of maps])], `indexes`
    [(label, key)], `rels` [(file, src label, src key, type, dst label, dst key, props, [batch])]."""

    def __init__(self):
        self.nodes, self.indexes, self.rels = [], [], []


def neo4j_plan(directory, files):
    """Reads every file once, in the order given (node files first), into a Plan."""
    plan = Plan()
    space_labels, space_key = {}, {}
    for name, header in files:
        id_col, space = column(header, ":ID")
        if id_col is None:
            continue
        label_col, _ = column(header, ":LABEL")
        props = typed_columns(header)
        # The key: a property column equal to the :ID in every row, so far.
        mirrors = list(props)
        groups = defaultdict(list)
        common = None
        for row in rows_of(directory, name):
            labels = tuple(row[label_col].split(";")) if label_col is not None else ()
            common = set(labels) if common is None else common & set(labels)
            mirrors = [p for p in mirrors if row[p[0]] == row[id_col]]
            groups[labels].append(row)
        if space in space_key:
            raise SystemExit(f"neo4j load: ID space {space!r} spans several files; not supported")
        space_labels[space] = sorted(common or ())
        if not space_labels[space]:
            raise SystemExit(f"neo4j load: the rows of {name} share no label to match them on")
        if mirrors:
            space_key[space] = (mirrors[0][1], mirrors[0][2])
        else:
            props = props + [(id_col, "_id", str)]
            space_key[space] = ("_id", str)
        for labels, rows in groups.items():
            maps = [{p: conv(row[i]) for i, p, conv in props if row[i] != ""} for row in rows]
            for start in range(0, len(maps), BATCH):
                plan.nodes.append((labels, maps[start:start + BATCH]))
    for space, labels in sorted(space_labels.items()):
        plan.indexes.append((labels[0], space_key[space][0]))
    for name, header in files:
        s_col, s_space = column(header, ":START_ID")
        if s_col is None:
            continue
        e_col, e_space = column(header, ":END_ID")
        t_col, _ = column(header, ":TYPE")
        props = typed_columns(header)
        (s_key, s_conv), (e_key, e_conv) = space_key[s_space], space_key[e_space]
        by_type = defaultdict(list)
        for row in rows_of(directory, name):
            by_type[row[t_col]].append({
                "s": s_conv(row[s_col]), "e": e_conv(row[e_col]),
                "p": {p: conv(row[i]) for i, p, conv in props if row[i] != ""}})
        for rel_type, rows in by_type.items():
            for start in range(0, len(rows), BATCH):
                plan.rels.append((name, space_labels[s_space][0], s_key, rel_type,
                                  space_labels[e_space][0], e_key, [p for _, p, _ in props],
                                  rows[start:start + BATCH]))
    return plan


def quote(name):
    return "`" + name.replace("`", "``") + "`"


def write(session, query, rows):
    """One batch in one transaction; returns its counters."""
    return session.execute_write(lambda tx: tx.run(query, rows=rows).consume().counters)


def neo4j_load(driver, plan):
    """Sends the plan; returns (seconds in all, nodes s, indexes s, relationships s). A batch that
    creates fewer entities than its rows (an end not found) is a failure."""
    with driver.session() as session:
        started = time.perf_counter()
        for labels, rows in plan.nodes:
            query = f"UNWIND $rows AS r CREATE (n:{':'.join(map(quote, labels))}) SET n = r"
            made = write(session, query, rows).nodes_created
            if made != len(rows):
                raise SystemExit(f"neo4j: a batch of :{':'.join(labels)} created {made} of {len(rows)}")
        nodes_done = time.perf_counter()
        for label, key in plan.indexes:
            session.run(f"CREATE INDEX {quote('load_' + label + '_' + key)} IF NOT EXISTS "
                        f"FOR (n:{quote(label)}) ON (n.{quote(key)})").consume()
        session.run("CALL db.awaitIndexes(600)").consume()
        indexes_done = time.perf_counter()
        for name, src, s_key, rel_type, dst, e_key, props, rows in plan.rels:
            body = ", ".join(f"{quote(p)}: r.p.{quote(p)}" for p in props)
            query = (f"UNWIND $rows AS r MATCH (a:{quote(src)} {{{quote(s_key)}: r.s}}) "
                     f"MATCH (b:{quote(dst)} {{{quote(e_key)}: r.e}}) "
                     f"CREATE (a)-[:{quote(rel_type)}{' {' + body + '}' if body else ''}]->(b)")
            made = write(session, query, rows).relationships_created
            if made != len(rows):
                raise SystemExit(f"neo4j: a batch of {name} created {made} of {len(rows)} relationships")
        ended = time.perf_counter()
    return ended - started, nodes_done - started, indexes_done - nodes_done, ended - indexes_done
