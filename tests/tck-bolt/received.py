"""Values the Python driver hands back, in the tagged form of values.py:
entities by labels, type and properties (never by id), paths with the
direction of each step, temporal values by their Cypher string form."""

import math

from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import Point

from temporal_text import text_of


class Unrepresentable(TypeError):
    """A value the TCK notation has no form for (a driver hydration failure)."""


def _props(entity):
    return {k: tagged(v) for k, v in entity.items()}


def _node(n):
    return ("n", frozenset(n.labels), _props(n))


def _rel(r):
    return ("r", r.type, _props(r))


def _point_text(p):
    names = ("x", "y", "z") if p.srid in (7203, 9157) else ("longitude", "latitude", "height")
    crs = {7203: "cartesian", 9157: "cartesian-3d", 4326: "wgs-84", 4979: "wgs-84-3d"}.get(p.srid, str(p.srid))
    coords = ", ".join(f"{n}: {float(c)!r}" for n, c in zip(names, p))
    return f"point({{{coords}, crs: '{crs}'}})"


def tagged(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, int):
        return ("i", v)
    if isinstance(v, float):
        return ("f", v if not math.isnan(v) else math.nan)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, Node):
        return _node(v)
    if isinstance(v, Relationship):
        return _rel(v)
    if isinstance(v, Path):
        steps = []
        nodes = v.nodes
        for i, r in enumerate(v.relationships):
            forward = r.start_node is not None and r.start_node.element_id == nodes[i].element_id
            steps.append((_rel(r), forward, _node(nodes[i + 1])))
        return ("p", _node(v.start_node), steps)
    # Before lists: the driver's Duration and Point are tuples.
    text = text_of(v)
    if text is not None:
        return ("s", text)
    if isinstance(v, (list, tuple)) and not isinstance(v, Point):
        return ("l", [tagged(x) for x in v])
    if isinstance(v, dict):
        return ("m", {k: tagged(x) for k, x in v.items()})
    if isinstance(v, Point):
        return ("s", _point_text(v))
    if isinstance(v, (bytes, bytearray)):
        return ("s", "bytes:" + bytes(v).hex())
    raise Unrepresentable(f"{type(v).__name__}: {v!r}")
