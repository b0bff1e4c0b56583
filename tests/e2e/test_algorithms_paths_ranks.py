"""`neptune.algo.sssp.*.path`, personalised PageRank (`sourceNodes` / `sourceWeights`) and
`neptune.algo.degreeDistribution` (issue 27), through the official driver on the LDBC
Graphalytics example graphs as test_algorithms.py loads them: paths against the published SSSP
distances and the edge weights, personalised ranks against a plain Python power iteration,
the degree histogram and its statistics against counts made here from the edge file."""

import math
from collections import Counter, defaultdict

import pytest
from neo4j.exceptions import ClientError

from test_algorithms import close, config, expected, read, session  # noqa: F401 (fixture)


def directed_edges():
    return [(int(s), int(d), float(w)) for s, d, w in read("example-directed.e")]


def lightest(edges):
    """(source, target) -> the lightest edge's weight."""
    best = {}
    for s, d, w in edges:
        best[(s, d)] = min(w, best.get((s, d), math.inf))
    return best


@pytest.mark.parametrize("procedure", ["deltaStepping", "bellmanFord"])
def test_path_to_every_target_is_a_shortest_path_of_graphalytics_length(session, procedure):
    want = expected("directed", "SSSP")
    weight = lightest(directed_edges())
    cfg = config("directed", edgeWeightProperty="weight", edgeWeightType="double")
    rows = session.run(
        "MATCH (s:D {id: 1}) MATCH (t:D) WITH s, collect(t) AS targets "
        f"CALL neptune.algo.sssp.{procedure}.path(s, targets, $config) "
        "YIELD source, target, distance, vertexPath, allDistances, path "
        "RETURN source.id AS s, target.id AS t, distance, [n IN vertexPath | n.id] AS vertices, "
        "allDistances, [n IN nodes(path) | n.id] AS pathNodes, "
        "[r IN relationships(path) | [startNode(r).id, endNode(r).id, r.weight]] AS steps",
        config=cfg).data()
    # One row per reachable target (the source included, by the empty path), none for the rest.
    assert {r["t"] for r in rows} == {v for v, d in want.items() if d != "Infinity"}
    for r in rows:
        assert r["s"] == 1 and close(r["distance"], want[r["t"]], 1e-9), r
        vertices = r["vertices"]
        assert vertices[0] == 1 and vertices[-1] == r["t"] and r["pathNodes"] == vertices
        assert len(r["allDistances"]) == len(vertices) and r["allDistances"][0] == 0.0
        total = 0.0
        for (a, b, w), d_b, b_id in zip(r["steps"], r["allDistances"][1:], vertices[1:]):
            assert b == b_id and w == weight[(a, b)], r
            total += w
            assert close(d_b, str(total), 1e-9) and close(d_b, want[b], 1e-9), r
        assert r["allDistances"][-1] == r["distance"]
        if r["t"] == 1:
            assert r["distance"] == 0.0 and vertices == [1] and r["steps"] == []


def test_path_pairs_every_source_with_every_target_and_checks_options(session):
    cfg = config("directed", edgeWeightProperty="weight", edgeWeightType="double")
    rows = session.run(
        "MATCH (s:D) WHERE s.id IN [1, 2] WITH collect(s) AS sources "
        "MATCH (t:D) WHERE t.id IN [3, 4, 1] WITH sources, collect(t) AS targets "
        "CALL neptune.algo.sssp.deltaStepping.path(sources, targets, $config) "
        "YIELD source, target, distance RETURN source.id AS s, target.id AS t, distance",
        config=cfg).data()
    for r in rows:
        alone = session.run(
            "MATCH (s:D {id: $s}) CALL neptune.algo.sssp.bellmanFord(s, $config) "
            "YIELD node, distance WITH node, distance WHERE node.id = $t RETURN distance",
            s=r["s"], t=r["t"], config=cfg).single()
        assert alone is not None and alone[0] == r["distance"], r
    assert {(1, 3), (1, 4), (1, 1)} <= {(r["s"], r["t"]) for r in rows}
    with pytest.raises(ClientError) as failure:
        session.run("MATCH (s:D {id: 1}) CALL neptune.algo.sssp.bellmanFord.path(s, s, {}) "
                    "YIELD distance RETURN distance").consume()
    assert failure.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert "edgeWeightProperty" in failure.value.message


def personalised(vertices, edges, damping, jump, iterations):
    """Personalised PageRank by pushing each edge's share; dangling rank jumps like the rest."""
    out = defaultdict(list)
    for s, d, _ in edges:
        out[s].append(d)
    rank = {v: 1.0 / len(vertices) for v in vertices}
    for _ in range(iterations):
        dangling = sum(rank[v] for v in vertices if not out[v])
        nxt = {v: ((1 - damping) + damping * dangling) * jump.get(v, 0.0) for v in vertices}
        for u in vertices:
            for v in out[u]:
                nxt[v] += damping * rank[u] / len(out[u])
        rank = nxt
    return rank


def test_personalised_pagerank_jumps_only_to_the_weighted_sources(session):
    vertices = [int(row[0]) for row in read("example-directed.v")]
    cfg = config("directed", numOfIterations=20, dampingFactor=0.85)
    rows = session.run(
        "MATCH (a:D {id: 1}), (b:D {id: 5}) "
        "CALL neptune.algo.pageRank(a, {vertexLabel: 'D', edgeLabels: ['ED'], numOfIterations: 20, "
        "  sourceNodes: [a, b], sourceWeights: [1, 3]}) YIELD node, rank RETURN node.id AS id, rank"
    ).data()
    whole = session.run("MATCH (a:D {id: 1}), (b:D {id: 5}) "
                        "CALL neptune.algo.pageRank({vertexLabel: 'D', edgeLabels: ['ED'], "
                        "numOfIterations: 20, sourceNodes: [a, b], sourceWeights: [1, 3]}) "
                        "YIELD node, rank RETURN node.id AS id, rank").data()
    want = personalised(vertices, directed_edges(), 0.85, {1: 0.25, 5: 0.75}, 20)
    assert [r["id"] for r in rows] == [1]
    ranks = {r["id"]: r["rank"] for r in whole}
    assert set(ranks) == set(vertices)
    # The kernel keeps each vertex's share of its rank in single precision
    # (ADR 0146): ranks agree with this double-precision model to ~1e-7.
    for v, rank in ranks.items():
        assert abs(rank - want[v]) <= 1e-12 + 1e-5 * want[v], (v, rank, want[v])
    assert rows[0]["rank"] == ranks[1]
    assert abs(sum(ranks.values()) - 1.0) < 1e-6
    # Equal shares when no weights are given; plain PageRank without sources.
    equal = session.run("MATCH (a:D {id: 1}), (b:D {id: 5}) "
                        "CALL neptune.algo.pageRank({vertexLabel: 'D', edgeLabels: ['ED'], "
                        "numOfIterations: 20, sourceNodes: [a, b]}) YIELD node, rank "
                        "RETURN node.id AS id, rank").data()
    want = personalised(vertices, directed_edges(), 0.85, {1: 0.5, 5: 0.5}, 20)
    for r in equal:
        assert abs(r["rank"] - want[r["id"]]) <= 1e-12 + 1e-5 * want[r["id"]], r
    plain = session.run("CALL neptune.algo.pageRank($config) YIELD node, rank "
                        "RETURN node.id AS id, rank", config=cfg).data()
    uniform = personalised(vertices, directed_edges(), 0.85,
                           {v: 1.0 / len(vertices) for v in vertices}, 20)
    for r in plain:
        assert abs(r["rank"] - uniform[r["id"]]) <= 1e-12 + 1e-5 * uniform[r["id"]], r


@pytest.mark.parametrize("options, named", [
    ("sourceNodes: [a], sourceWeights: [1, 2]", "sourceWeights"),
    ("sourceNodes: [a], sourceWeights: [0]", "sourceWeights"),
    ("sourceNodes: [a], sourceWeights: [-1]", "sourceWeights"),
    ("sourceWeights: [1]", "sourceNodes"),
    ("sourceNodes: ['a']", "source"),
    ("sourceNodes: [u]", "personalization source"),
])
def test_bad_personalization_fails_naming_it(session, options, named):
    with pytest.raises(ClientError) as failure:
        session.run("MATCH (a:D {id: 1}), (u:U {id: 2}) "
                    f"CALL neptune.algo.pageRank({{vertexLabel: 'D', {options}}}) YIELD rank "
                    "RETURN rank").consume()
    assert failure.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert named in failure.value.message


def degree_summary(degrees, width):
    """Neptune's output map computed here: bins named by their largest degree, nearest-rank
    percentiles."""
    ordered = sorted(degrees)
    n = len(ordered)
    bins = Counter(-(-d // width) * width for d in ordered)

    def rank(p):
        return ordered[min(max(math.ceil(p * n), 1), n) - 1]

    statistics = {"maxDeg": ordered[-1], "minDeg": ordered[0], "mean": sum(ordered) / n}
    for name, p in [("p50", 0.5), ("p75", 0.75), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99),
                    ("p999", 0.999)]:
        statistics[name] = rank(p)
    return {"distribution": [[b, bins[b]] for b in sorted(bins)], "statistics": statistics}


@pytest.mark.parametrize("direction, width", [(None, 1), ("outbound", 1), ("inbound", 2)])
def test_degree_distribution_counts_the_labelled_nodes_degrees(session, direction, width):
    vertices = [int(row[0]) for row in read("example-directed.v")]
    degree = {v: 0 for v in vertices}
    for s, d, _ in directed_edges():
        if direction in (None, "outbound"):
            degree[s] += 1
        if direction in (None, "inbound"):
            degree[d] += 1
    cfg = {"vertexLabels": ["D"], "edgeLabels": ["ED"], "binWidth": width}
    if direction:
        cfg["traversalDirection"] = direction
    output = session.run("CALL neptune.algo.degreeDistribution($cfg) YIELD output RETURN output",
                         cfg=cfg).single()["output"]
    want = degree_summary(list(degree.values()), width)
    assert output["distribution"] == want["distribution"]
    assert output["statistics"].keys() == want["statistics"].keys()
    for key, value in want["statistics"].items():
        assert output["statistics"][key] == pytest.approx(value), key
    mean = session.run("CALL neptune.algo.degreeDistribution($cfg) YIELD output "
                       "RETURN output.statistics.mean AS mean", cfg=cfg).single()["mean"]
    assert mean == pytest.approx(want["statistics"]["mean"])


def test_degree_distribution_over_two_labels_and_bad_bins(session):
    both = session.run("CALL neptune.algo.degreeDistribution({vertexLabels: ['D', 'U']}) "
                       "YIELD output RETURN output").single()["output"]
    count = session.run("MATCH (n) WHERE n:D OR n:U RETURN count(n)").single()[0]
    assert sum(c for _, c in both["distribution"]) == count
    nothing = session.run("CALL neptune.algo.degreeDistribution({vertexLabels: ['Nowhere']}) "
                          "YIELD output RETURN output").single()["output"]
    assert nothing["distribution"] == [] and nothing["statistics"]["maxDeg"] is None
    with pytest.raises(ClientError) as failure:
        session.run("CALL neptune.algo.degreeDistribution({binWidth: 0}) YIELD output "
                    "RETURN output").consume()
    assert failure.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert "binWidth" in failure.value.message
