"""Virtual nodes and relationships through the official Python driver and the
Query API (issue 31): `apoc.meta.graph` / `apoc.meta.subGraph` answer with
entities that are not in the store, as APOC does: Bolt Node and Relationship
structures with negative ids and element ids no stored entity has, read by
neo4j-graphrag (langchain's enhanced schema) and LlamaIndex's property graph
store as `node["name"]`, `node["count"]` and `apoc.any.property(rel, ...)`."""

import pytest
from neo4j.graph import Node, Relationship

from test_query_api import query

# neo4j-graphrag's SCHEMA_COUNTS_QUERY and LlamaIndex's subGraph form, verbatim.
SCHEMA_COUNTS_QUERY = (
    "CALL apoc.meta.graph({sample: 1000, maxRels: 100}) "
    "YIELD nodes, relationships "
    "RETURN nodes, [rel in relationships | {name:apoc.any.property"
    "(rel, 'type'), count: apoc.any.property(rel, 'count')}]"
    " AS relationships"
)
SUBGRAPH_COUNTS_QUERY = (
    "CALL apoc.meta.subGraph({}) YIELD nodes, relationships "
    "RETURN nodes, [rel in relationships | {name:apoc.any.property"
    "(rel, 'type'), count: apoc.any.property(rel, 'count')}]"
    " AS relationships"
)

GRAPH = ("CREATE (a:Person {name: 'Ann'})-[:KNOWS]->(b:Person {name: 'Bob'}), "
         "(a)-[:LIKES]->(:Movie {title: 'M'}), (b)-[:LIKES]->(:Movie {title: 'N'})")


# The legacy integer ids are what APOC makes negative: read on purpose.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_meta_graph_returns_virtual_nodes_and_relationships(driver):
    with driver.session() as s:
        s.run(GRAPH).consume()
        stored = {r["e"] for r in s.run("MATCH (n) RETURN elementId(n) AS e UNION "
                                         "MATCH ()-[r]->() RETURN elementId(r) AS e")}
        record = s.run("CALL apoc.meta.graph() YIELD nodes, relationships "
                       "RETURN nodes, relationships").single()
    nodes, rels = record["nodes"], record["relationships"]
    assert all(isinstance(n, Node) for n in nodes) and all(isinstance(r, Relationship) for r in rels)
    by_name = {n["name"]: n for n in nodes}
    assert {name: (set(n.labels), n["count"]) for name, n in by_name.items()} == {
        "Person": ({"Person"}, 2), "Movie": ({"Movie"}, 2)}
    shapes = {(r.start_node.element_id, r.type, r.end_node.element_id): r["count"] for r in rels}
    person, movie = by_name["Person"].element_id, by_name["Movie"].element_id
    assert shapes == {(person, "KNOWS", person): 1, (person, "LIKES", movie): 2}
    assert all(r["type"] == r.type for r in rels)
    entities = nodes + rels
    assert all(e.id < 0 for e in entities)
    assert len({e.id for e in nodes}) == len(nodes) and len({e.id for e in rels}) == len(rels)
    assert not stored & {e.element_id for e in entities}


def test_graphrag_and_llamaindex_count_queries(driver):
    with driver.session() as s:
        s.run(GRAPH).consume()
        for statement in (SCHEMA_COUNTS_QUERY, SUBGRAPH_COUNTS_QUERY):
            record = s.run(statement).single()
            assert sorted((n["name"], n["count"]) for n in record["nodes"]) == [
                ("Movie", 2), ("Person", 2)]
            assert sorted((r["name"], r["count"]) for r in record["relationships"]) == [
                ("KNOWS", 1), ("LIKES", 2)]


def test_virtual_ids_are_found_nowhere_in_the_store(driver):
    with driver.session() as s:
        s.run(GRAPH).consume()
        record = s.run("CALL apoc.meta.subGraph({includeLabels: ['Person']}) "
                       "YIELD nodes, relationships RETURN nodes, relationships").single()
        assert [n["name"] for n in record["nodes"]] == ["Person"]
        assert [r.type for r in record["relationships"]] == ["KNOWS"]
        ids = [n.element_id for n in record["nodes"]]
        found = s.run("MATCH (n) WHERE elementId(n) IN $ids RETURN count(n) AS c", ids=ids).single()
        assert found["c"] == 0


def test_query_api_renders_virtual_entities(server):
    code, answer = query(server, GRAPH)
    assert code == 202, answer
    code, answer = query(server, "CALL apoc.meta.graph() YIELD nodes, relationships "
                                 "RETURN nodes, relationships")
    assert code == 202, answer
    nodes, rels = answer["data"]["values"][0]
    person = next(n for n in nodes if n["labels"] == ["Person"])
    assert person["properties"] == {"name": "Person", "count": 2}
    assert person["elementId"].startswith("virtual:node:")
    knows = next(r for r in rels if r["type"] == "KNOWS")
    assert knows["startNodeElementId"] == knows["endNodeElementId"] == person["elementId"]
    assert knows["properties"] == {"type": "KNOWS", "count": 1}
