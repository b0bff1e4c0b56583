"""LlamaIndex's Neo4j stores, unchanged: Neo4jVectorStore
(llama-index-vector-stores-neo4jvector 0.7: add, query, hybrid query,
metadata filters, delete by document) and the graph stores of
llama-index-graph-stores-neo4j 0.8 (Neo4jPropertyGraphStore: upserts,
get, triplets, vector query, structured query, schema, delete; the older
Neo4jGraphStore: triplets and relation maps)."""

import pytest
from conftest import DIMENSIONS, PASSWORD, USER, fake_embedding
from llama_index.core.graph_stores.types import ChunkNode, EntityNode, Relation
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.types import (
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
)
from llama_index.graph_stores.neo4j import Neo4jGraphStore, Neo4jPropertyGraphStore
from llama_index.vector_stores.neo4jvector import Neo4jVectorStore

TEXTS = {"n1": ("the cat sat on the mat", "doc1", "pets"), "n2": ("dogs chase cats in the park", "doc1", "pets"),
         "n3": ("stock markets fell sharply today", "doc2", "money")}


def text_node(node_id, text, doc, topic):
    return TextNode(id_=node_id, text=text, embedding=fake_embedding(text), metadata={"topic": topic},
                    relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=doc)})


@pytest.fixture(scope="module")
def conn(driver, uri):
    return {"url": uri, "username": USER, "password": PASSWORD}


@pytest.fixture(scope="module")
def vectors(conn):
    return Neo4jVectorStore(embedding_dimension=DIMENSIONS, **conn)


def test_vector_store_add(vectors):
    ids = vectors.add([text_node(i, *v) for i, v in TEXTS.items()])
    assert ids == ["n1", "n2", "n3"]


def test_vector_store_query(vectors):
    result = vectors.query(VectorStoreQuery(query_embedding=fake_embedding("the cat sat on the mat"),
                                            similarity_top_k=2))
    assert result.ids[0] == "n1" and result.nodes[0].get_content() == "the cat sat on the mat"
    assert result.similarities[0] > 0.99 and result.similarities[0] > result.similarities[1]


def test_vector_store_metadata_filter(vectors):
    filters = MetadataFilters(filters=[MetadataFilter(key="topic", value="money", operator=FilterOperator.EQ)])
    result = vectors.query(VectorStoreQuery(query_embedding=fake_embedding("cat"), similarity_top_k=3,
                                            filters=filters))
    assert result.ids == ["n3"]


def test_vector_store_delete_document(vectors, driver):
    vectors.delete("doc2")
    records, _, _ = driver.execute_query("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id")
    assert [r["id"] for r in records] == ["n1", "n2"]


def test_vector_store_hybrid(conn):
    hybrid = Neo4jVectorStore(embedding_dimension=DIMENSIONS, hybrid_search=True, index_name="hvec",
                              keyword_index_name="hkw", node_label="HChunk", **conn)
    hybrid.add([text_node(i, *v) for i, v in TEXTS.items()])
    result = hybrid.query(VectorStoreQuery(query_embedding=fake_embedding("stock markets"), query_str="stock",
                                           similarity_top_k=1, mode=VectorStoreQueryMode.HYBRID))
    assert result.ids == ["n3"]


@pytest.fixture(scope="module")
def graph(conn):
    store = Neo4jPropertyGraphStore(**conn)
    yield store
    store.close()


def test_property_graph_upsert_nodes(graph):
    chunk = ChunkNode(text="Alice knows Bob", id_="c1", embedding=fake_embedding("Alice knows Bob"))
    alice = EntityNode(name="Alice", label="PERSON", properties={"age": 30}, embedding=fake_embedding("Alice"))
    bob = EntityNode(name="Bob", label="PERSON", embedding=fake_embedding("Bob"))
    graph.upsert_nodes([chunk, alice, bob])
    assert sorted(n.name for n in graph.get(properties={"age": 30})) == ["Alice"]


def test_property_graph_upsert_relations(graph):
    graph.upsert_relations([Relation(label="KNOWS", source_id="Alice", target_id="Bob",
                                     properties={"since": 2020})])
    triplets = graph.get_triplets(entity_names=["Alice"])
    assert [(s.name, r.label, t.name) for s, r, t in triplets] == [("Alice", "KNOWS", "Bob")]


def test_property_graph_get_by_ids(graph):
    assert sorted(n.id for n in graph.get(ids=["Alice", "Bob"])) == ["Alice", "Bob"]


def test_property_graph_rel_map(graph):
    rel_map = graph.get_rel_map(graph.get(ids=["Alice"]), depth=2)
    assert ("Alice", "KNOWS", "Bob") in [(s.name, r.label, t.name) for s, r, t in rel_map]


def test_property_graph_vector_query(graph):
    from llama_index.core.vector_stores.types import VectorStoreQuery as Query
    nodes, scores = graph.vector_query(Query(query_embedding=fake_embedding("Alice"), similarity_top_k=1))
    assert nodes[0].name == "Alice" and scores[0] == pytest.approx(1.0, abs=1e-3)


def test_property_graph_structured_query(graph):
    rows = graph.structured_query("MATCH (n:PERSON {name: $name}) RETURN n.age AS age", {"name": "Alice"})
    assert rows == [{"age": 30}]


def test_property_graph_schema(graph):
    graph.refresh_schema()
    schema = graph.get_schema()
    assert any(label == "PERSON" for label in schema["node_props"])
    assert "KNOWS" in graph.get_schema_str()


def test_property_graph_delete(graph):
    graph.delete(entity_names=["Bob"])
    assert sorted(n.id for n in graph.get(ids=["Alice", "Bob"])) == ["Alice"]


@pytest.fixture(scope="module")
def legacy(conn):
    return Neo4jGraphStore(**conn)


def test_legacy_graph_upsert_and_get(legacy):
    legacy.upsert_triplet("Paris", "CAPITAL_OF", "France")
    legacy.upsert_triplet("Paris", "ON_RIVER", "Seine")
    assert sorted(legacy.get("Paris")) == [["CAPITAL_OF", "France"], ["ON_RIVER", "Seine"]]


def test_legacy_graph_rel_map(legacy):
    rel_map = legacy.get_rel_map(["Paris"], depth=1)
    assert len(rel_map["Paris"]) == 2


def test_legacy_graph_delete(legacy):
    legacy.delete("Paris", "ON_RIVER", "Seine")
    assert legacy.get("Paris") == [["CAPITAL_OF", "France"]]


def test_legacy_graph_schema(legacy):
    legacy.refresh_schema()
    assert "CAPITAL_OF" in legacy.get_schema()
