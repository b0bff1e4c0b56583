"""Side effects as the TCK defines them: differences between two snapshots of
the graph read over Bolt, not the server's own update counters (a server
that miscounts its writes would miscount them the same way in its stats).

A snapshot holds the node and relationship element ids, the set of label
names in use and the set of (entity, key, value) property triples; `+x`
counts what the second has and the first has not, `-x` the reverse. So
overwriting a property is `+properties 1, -properties 1`, and a second node
with a label already in use adds no label."""

from received import tagged
from values import render

KINDS = (
    "+nodes",
    "-nodes",
    "+relationships",
    "-relationships",
    "+labels",
    "-labels",
    "+properties",
    "-properties",
)


class Snapshot:
    def __init__(self):
        self.nodes = set()
        self.rels = set()
        self.labels = set()
        self.properties = set()

    @staticmethod
    def take(session):
        snap = Snapshot()
        for record in session.run("MATCH (n) RETURN n"):
            n = record[0]
            snap.nodes.add(n.element_id)
            snap.labels.update(n.labels)
            for k, v in n.items():
                snap.properties.add(("n" + n.element_id, k, render(tagged(v))))
        for record in session.run("MATCH ()-[r]->() RETURN r"):
            r = record[0]
            snap.rels.add(r.element_id)
            for k, v in r.items():
                snap.properties.add(("r" + r.element_id, k, render(tagged(v))))
        return snap

    def diff(self, after):
        pairs = (
            (after.nodes, self.nodes),
            (after.rels, self.rels),
            (after.labels, self.labels),
            (after.properties, self.properties),
        )
        out = {}
        for i, (a, b) in enumerate(pairs):
            out[KINDS[2 * i]] = len(a - b)
            out[KINDS[2 * i + 1]] = len(b - a)
        return out
