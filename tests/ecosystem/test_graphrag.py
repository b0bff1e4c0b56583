"""neo4j-graphrag 1.22 flows, unchanged: index helpers (vector and
full-text index creation, vector upserts on nodes and relationships),
the retrievers that need no LLM (Vector, VectorCypher, Hybrid,
HybridCypher), and the knowledge-graph writer Neo4jWriter (nodes with
dynamic labels `SET n:$(row.labels)`, embeddings through
db.create.setNodeVectorProperty, relationships through
apoc.merge.relationship, and the clean-up of its internal ids)."""

import asyncio

import pytest
from conftest import DIMENSIONS, fake_embedding
from neo4j_graphrag.components.kg_writer import Neo4jWriter
from neo4j_graphrag.components.types import Neo4jGraph, Neo4jNode, Neo4jRelationship
from neo4j_graphrag.embeddings.base import Embedder
from neo4j_graphrag.indexes import (
    create_fulltext_index,
    create_vector_index,
    drop_index_if_exists,
    upsert_vectors,
)
from neo4j_graphrag.retrievers import HybridCypherRetriever, HybridRetriever, VectorCypherRetriever, VectorRetriever
from neo4j_graphrag.types import EntityType

TEXTS = ["the cat sat on the mat", "dogs chase cats in the park", "stock markets fell sharply today"]


class FakeEmbedder(Embedder):
    def embed_query(self, text):
        return fake_embedding(text)


def test_create_vector_index(driver):
    create_vector_index(driver, "chunks", label="Chunk", embedding_property="embedding", dimensions=DIMENSIONS,
                        similarity_fn="cosine")
    records, _, _ = driver.execute_query("SHOW VECTOR INDEXES YIELD name, labelsOrTypes RETURN *")
    assert [(r["name"], r["labelsOrTypes"]) for r in records] == [("chunks", ["Chunk"])]


def test_create_fulltext_index(driver):
    create_fulltext_index(driver, "chunk_text", label="Chunk", node_properties=["text"])
    records, _, _ = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name RETURN name")
    assert [r["name"] for r in records] == ["chunk_text"]


def test_upsert_vectors(driver):
    records, _, _ = driver.execute_query(
        "UNWIND $texts AS t CREATE (c:Chunk {text: t}) RETURN elementId(c) AS id", texts=TEXTS)
    upsert_vectors(driver, ids=[r["id"] for r in records], embedding_property="embedding",
                   embeddings=[fake_embedding(t) for t in TEXTS], entity_type=EntityType.NODE)
    records, _, _ = driver.execute_query("MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN count(c) AS n")
    assert records[0]["n"] == 3


def test_upsert_vectors_on_relationships(driver):
    records, _, _ = driver.execute_query(
        "MATCH (a:Chunk {text: $a}), (b:Chunk {text: $b}) CREATE (a)-[r:NEXT]->(b) RETURN elementId(r) AS id",
        a=TEXTS[0], b=TEXTS[1])
    upsert_vectors(driver, ids=[records[0]["id"]], embedding_property="embedding",
                   embeddings=[fake_embedding("next")], entity_type=EntityType.RELATIONSHIP)
    records, _, _ = driver.execute_query("MATCH ()-[r:NEXT]->() RETURN size(r.embedding) AS n")
    assert records[0]["n"] == DIMENSIONS


def test_vector_retriever(driver):
    retriever = VectorRetriever(driver, "chunks", FakeEmbedder(), return_properties=["text"])
    result = retriever.search(query_text="stock markets fell sharply today", top_k=1)
    assert "stock markets" in result.items[0].content and result.items[0].metadata["score"] == pytest.approx(1, abs=1e-3)


def test_vector_retriever_by_vector(driver):
    retriever = VectorRetriever(driver, "chunks")
    result = retriever.search(query_vector=fake_embedding("the cat sat on the mat"), top_k=2)
    assert len(result.items) == 2 and "the cat sat" in result.items[0].content


def test_vector_retriever_filters(driver):
    retriever = VectorRetriever(driver, "chunks", FakeEmbedder(), return_properties=["text"])
    result = retriever.search(query_text="cat", top_k=3, filters={"text": {"$like": "dogs"}})
    assert len(result.items) == 1 and "dogs" in result.items[0].content


def test_vector_cypher_retriever(driver):
    retriever = VectorCypherRetriever(driver, "chunks", "OPTIONAL MATCH (node)-[:NEXT]->(n) "
                                      "RETURN node.text AS text, n.text AS next, score", FakeEmbedder())
    result = retriever.search(query_text="the cat sat on the mat", top_k=1)
    assert "dogs chase" in result.items[0].content


def test_hybrid_retriever(driver):
    retriever = HybridRetriever(driver, "chunks", "chunk_text", FakeEmbedder(), return_properties=["text"])
    result = retriever.search(query_text="markets", top_k=1)
    assert "stock markets" in result.items[0].content


def test_hybrid_cypher_retriever(driver):
    retriever = HybridCypherRetriever(driver, "chunks", "chunk_text",
                                      "RETURN node.text AS text, score", FakeEmbedder())
    result = retriever.search(query_text="dogs", top_k=1)
    assert "dogs chase" in result.items[0].content


def test_kg_writer_nodes_and_relationships(driver):
    graph = Neo4jGraph(
        nodes=[Neo4jNode(id="1", label="Person", properties={"name": "Alice"},
                         embedding_properties={"vec": fake_embedding("Alice")}),
               Neo4jNode(id="2", label="Person", properties={"name": "Bob"}),
               Neo4jNode(id="3", label="City", properties={"name": "Paris"})],
        relationships=[Neo4jRelationship(start_node_id="1", end_node_id="2", type="KNOWS",
                                         properties={"since": 2020}),
                       Neo4jRelationship(start_node_id="1", end_node_id="3", type="LIVES_IN")])
    result = asyncio.run(Neo4jWriter(driver).run(graph))
    assert result.status == "SUCCESS", result.metadata
    records, _, _ = driver.execute_query(
        "MATCH (a:Person {name: 'Alice'})-[k:KNOWS]->(b:Person), (a)-[:LIVES_IN]->(c:City) "
        "RETURN labels(a) AS labels, k.since AS since, b.name AS b, c.name AS c, size(a.vec) AS dims")
    (record,) = records
    assert {"__KGBuilder__", "Person"} <= set(record["labels"])
    assert (record["since"], record["b"], record["c"], record["dims"]) == (2020, "Bob", "Paris", DIMENSIONS)


def test_kg_writer_cleans_internal_ids(driver):
    records, _, _ = driver.execute_query(
        "MATCH (n:__KGBuilder__) WHERE n.__tmp_internal_id IS NOT NULL RETURN count(n) AS n")
    assert records[0]["n"] == 0


def test_drop_index_if_exists(driver):
    drop_index_if_exists(driver, "chunk_text")
    drop_index_if_exists(driver, "chunk_text")
    records, _, _ = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name RETURN name")
    assert records == []
