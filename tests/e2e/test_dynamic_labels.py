"""Dynamic labels and types (Cypher 5.26: `(n:$(expr))`, `-[:$(expr)]->`,
`SET n:$(expr)`) through the official Python driver, with the names in
parameters as the libraries send them, and the errors clients see: codes,
GQL statuses and messages as the reference Neo4j 5.26 answers them."""

import pytest
from neo4j.exceptions import ClientError, DatabaseError

# neo4j-graphrag 1.22's node upsert (Neo4jWriter, servers >= 5.24), verbatim.
UPSERT_NODES = (
    "UNWIND $rows AS row "
    "CREATE (n:__KGBuilder__ {__tmp_internal_id: row.id}) "
    "SET n += row.properties "
    "SET n:$(row.labels) "
    "WITH n, row "
    "CALL (n, row) { "
    "WITH n, row WHERE row.embedding_properties IS NOT NULL "
    "UNWIND keys(row.embedding_properties) as emb "
    "CALL db.create.setNodeVectorProperty(n, emb, row.embedding_properties[emb]) "
    "RETURN count(*) as nbEmb "
    "} "
    "RETURN elementId(n) as element_id"
)


def test_graphrag_writer_upsert_sets_dynamic_labels(driver):
    rows = [{"id": "1", "labels": ["Person"], "properties": {"name": "Ann"}, "embedding_properties": None},
            {"id": "2", "labels": ["City", "Place"], "properties": {"name": "Oslo"},
             "embedding_properties": {"vec": [0.5, 0.5]}}]
    records, _, _ = driver.execute_query(UPSERT_NODES, rows=rows)
    assert len(records) == 2
    records, _, _ = driver.execute_query(
        "MATCH (n:__KGBuilder__) RETURN n.name AS name, labels(n) AS labels, n.vec AS vec ORDER BY name")
    assert [(r["name"], sorted(r["labels"]), r["vec"]) for r in records] == [
        ("Ann", ["Person", "__KGBuilder__"], None), ("Oslo", ["City", "Place", "__KGBuilder__"], [0.5, 0.5])]


def test_parameter_names_in_create_merge_and_match(driver):
    driver.execute_query("UNWIND $rows AS row MERGE (n:$(row.label) {id: row.id}) "
                         "MERGE (m:$($other) {id: row.id}) MERGE (n)-[:$(row.type)]->(m)",
                         rows=[{"label": "A", "id": 1, "type": "T"}, {"label": "A", "id": 1, "type": "T"},
                               {"label": "B", "id": 2, "type": "U"}], other="Z")
    records, _, _ = driver.execute_query(
        "MATCH (n:$any($labels))-[r:$($types)]->(m:$($other)) RETURN n.id AS id, type(r) AS t ORDER BY id",
        labels=["A", "B"], types=["T"], other="Z")
    assert [(r["id"], r["t"]) for r in records] == [(1, "T")]
    records, _, _ = driver.execute_query("MATCH ()-[r]->() RETURN count(r) AS n")
    assert records[0]["n"] == 2


@pytest.mark.parametrize("value, code, gql, message", [
    (None, "Neo.ClientError.Statement.TypeError", "22G03", "Expected node label to be a string or list of strings."),
    (["A", None], "Neo.ClientError.Statement.TypeError", "22G03",
     "Expected node label to be a string or list of strings."),
    ("", "Neo.ClientError.Schema.TokenNameError", "50N42",
     "'' is not a valid token name. Token names cannot be empty or contain any null-bytes."),
])
def test_bad_label_values_fail_as_in_neo4j(driver, value, code, gql, message):
    with pytest.raises(ClientError) as failure:
        driver.execute_query("CREATE (:Kept) CREATE (n:$($x)) RETURN n", x=value)
    assert (failure.value.code, failure.value.gql_status, failure.value.message) == (code, gql, message)
    records, _, _ = driver.execute_query("MATCH (n:Kept) RETURN count(n) AS n")
    assert records[0]["n"] == 0


def test_created_relationship_needs_exactly_one_type(driver):
    with pytest.raises(DatabaseError) as failure:
        driver.execute_query("CREATE ()-[r:$($x)]->() RETURN r", x=["A", "B"])
    assert failure.value.code == "Neo.DatabaseError.Statement.ExecutionFailed"
    assert failure.value.message == "Exactly one relationship type must be specified, but 2 were found."


def test_literal_null_is_refused_before_running(driver):
    with pytest.raises(ClientError) as failure:
        driver.execute_query("CREATE (n:$(null)) RETURN n")
    assert failure.value.code == "Neo.ClientError.Statement.SyntaxError"
    # Neo4j's text; ours keeps the analysis detail name in front (as every
    # analysis error of nereid does).
    assert "Null is not a valid token name. Token names cannot be empty or contain any null-bytes." in (
        failure.value.message)
