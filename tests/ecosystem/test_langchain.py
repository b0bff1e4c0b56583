"""langchain-neo4j 0.11 flows, unchanged: the Neo4jVector store (vector
and hybrid search, metadata filters, adding and deleting, reopening an
existing index, indexing an existing graph), Neo4jChatMessageHistory, and
Neo4jGraph (queries, schema through APOC, graph documents through
apoc.merge.node). Embeddings are the deterministic fake of conftest."""

import pytest
from conftest import DIMENSIONS, PASSWORD, USER, fake_embedding
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage
from langchain_neo4j import Neo4jChatMessageHistory, Neo4jGraph, Neo4jVector
from langchain_neo4j.graphs.graph_document import GraphDocument, Node, Relationship

TEXTS = ["the cat sat on the mat", "dogs chase cats in the park", "stock markets fell sharply today",
         "a kitten sleeps on a warm mat"]


class FakeEmbeddings(Embeddings):
    def embed_documents(self, texts):
        return [fake_embedding(t) for t in texts]

    def embed_query(self, text):
        return fake_embedding(text)


@pytest.fixture(scope="module")
def conn(driver, uri):
    return {"url": uri, "username": USER, "password": PASSWORD}


@pytest.fixture(scope="module")
def store(conn):
    return Neo4jVector.from_texts(TEXTS, FakeEmbeddings(), metadatas=[{"topic": t} for t in
                                  ("pets", "pets", "money", "pets")], ids=["a", "b", "c", "d"], **conn)


def test_vector_from_texts_creates_index(store, driver):
    records, _, _ = driver.execute_query("SHOW VECTOR INDEXES YIELD name, options RETURN name, options")
    assert [r["name"] for r in records] == ["vector"]
    assert records[0]["options"]["indexConfig"]["vector.dimensions"] == DIMENSIONS


def test_similarity_search(store):
    docs = store.similarity_search("the cat sat on the mat", k=2)
    assert docs[0].page_content == "the cat sat on the mat" and docs[0].metadata["topic"] == "pets"


def test_similarity_search_with_score(store):
    (doc, score), = store.similarity_search_with_score("stock markets fell sharply today", k=1)
    assert doc.page_content.startswith("stock") and score == pytest.approx(1.0, abs=1e-3)


def test_metadata_filter(store):
    docs = store.similarity_search("the cat sat on the mat", k=3, filter={"topic": {"$eq": "money"}})
    assert [d.page_content for d in docs] == ["stock markets fell sharply today"]


def test_metadata_filter_operators(store):
    docs = store.similarity_search("cat", k=4, filter={"topic": {"$in": ["pets"]}, "text": {"$like": "mat"}})
    assert sorted(d.page_content for d in docs) == ["a kitten sleeps on a warm mat", "the cat sat on the mat"]


def test_add_documents(store):
    ids = store.add_documents([Document(page_content="bonds rallied as markets fell", metadata={"topic": "money"})],
                              ids=["e"])
    assert ids == ["e"]
    assert store.similarity_search("bonds rallied as markets fell", k=1)[0].page_content.startswith("bonds")


def test_add_texts_upserts_by_id(store, driver):
    store.add_texts(["bonds rallied again"], metadatas=[{"topic": "money"}], ids=["e"])
    records, _, _ = driver.execute_query("MATCH (c:Chunk {id: 'e'}) RETURN c.text AS text")
    assert [r["text"] for r in records] == ["bonds rallied again"]


def test_mmr_search(store):
    docs = store.max_marginal_relevance_search("the cat sat on the mat", k=2, fetch_k=4)
    assert len(docs) == 2 and docs[0].page_content == "the cat sat on the mat"


def test_from_existing_index(conn):
    again = Neo4jVector.from_existing_index(FakeEmbeddings(), index_name="vector", **conn)
    assert again.similarity_search("dogs chase cats in the park", k=1)[0].page_content.startswith("dogs")


def test_hybrid_search(conn):
    hybrid = Neo4jVector.from_texts(TEXTS, FakeEmbeddings(), search_type="hybrid", index_name="hvec",
                                    keyword_index_name="hkw", node_label="HChunk", **conn)
    docs = hybrid.similarity_search("kitten", k=1)
    assert docs[0].page_content == "a kitten sleeps on a warm mat"


def test_from_existing_graph(conn, driver):
    driver.execute_query("UNWIND $rows AS r CREATE (:Movie {title: r[0], plot: r[1]})",
                         rows=[["Up", "an old man flies a house"], ["Jaws", "a shark attacks swimmers"]])
    graph_store = Neo4jVector.from_existing_graph(FakeEmbeddings(), node_label="Movie", index_name="movies",
                                                  text_node_properties=["title", "plot"],
                                                  embedding_node_property="embedding", **conn)
    records, _, _ = driver.execute_query("MATCH (m:Movie) WHERE size(m.embedding) = $d RETURN count(m) AS n",
                                         d=DIMENSIONS)
    assert records[0]["n"] == 2
    docs = graph_store.similarity_search("a shark", k=2)
    assert sorted(d.page_content.split("\n")[1] for d in docs) == ["title: Jaws", "title: Up"]


def test_chat_history_add_and_read(conn):
    history = Neo4jChatMessageHistory(session_id="s1", **conn)
    history.add_messages([HumanMessage(content="hi"), AIMessage(content="hello!")])
    history.add_user_message("how are you?")
    assert [m.content for m in history.messages] == ["hi", "hello!", "how are you?"]


def test_chat_history_sessions_apart(conn):
    other = Neo4jChatMessageHistory(session_id="s2", **conn)
    other.add_user_message("elsewhere")
    assert [m.content for m in other.messages] == ["elsewhere"]
    assert len(Neo4jChatMessageHistory(session_id="s1", **conn).messages) == 3


def test_chat_history_clear(conn):
    history = Neo4jChatMessageHistory(session_id="s1", **conn)
    history.clear()
    assert history.messages == []


def test_graph_query(conn):
    graph = Neo4jGraph(refresh_schema=False, **conn)
    assert graph.query("RETURN $x + 1 AS y", {"x": 1}) == [{"y": 2}]


def test_graph_add_graph_documents(conn):
    graph = Neo4jGraph(refresh_schema=False, **conn)
    alice, bob = Node(id="Alice", type="Person"), Node(id="Bob", type="Person", properties={"age": 3})
    doc = GraphDocument(nodes=[alice, bob], relationships=[Relationship(source=alice, target=bob, type="KNOWS")],
                        source=Document(page_content="Alice knows Bob"))
    graph.add_graph_documents([doc], include_source=True, baseEntityLabel=True)
    rows = graph.query("MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN a.id AS a, b.id AS b, b.age AS age")
    assert rows == [{"a": "Alice", "b": "Bob", "age": 3}]
    assert graph.query("MATCH (d:Document)-[:MENTIONS]->(e:__Entity__) RETURN count(e) AS c") == [{"c": 2}]


def test_graph_refresh_schema(conn):
    graph = Neo4jGraph(**conn)
    schema = graph.get_structured_schema
    assert "Person" in schema["node_props"] and {"start": "Person", "type": "KNOWS", "end": "Person"} in schema[
        "relationships"]
    assert "Person" in graph.get_schema


def test_graph_enhanced_schema(conn):
    graph = Neo4jGraph(enhanced_schema=True, **conn)
    assert "Person" in graph.get_schema
