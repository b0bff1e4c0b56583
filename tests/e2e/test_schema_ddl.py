"""Issue 23 over Bolt with the official driver: every DDL form, the summary
counters and query type a schema command reports, SHOW INDEXES / SHOW
CONSTRAINTS columns, the error codes drivers see, DDL and data in one
explicit transaction, and `$name` parameters. Expected values are what the
reference Neo4j 5.26 answers (tests/sidebyside runs the same commands
against it)."""

import pytest
from neo4j.exceptions import ClientError, CypherSyntaxError, DatabaseError

INDEX_DEFAULT = [
    "id", "name", "state", "populationPercent", "type", "entityType", "labelsOrTypes",
    "properties", "indexProvider", "owningConstraint", "lastRead", "readCount",
]
INDEX_ALL = INDEX_DEFAULT + ["trackedSince", "options", "failureMessage", "createStatement"]
CONSTRAINT_DEFAULT = [
    "id", "name", "type", "entityType", "labelsOrTypes", "properties", "ownedIndex", "propertyType",
]
CONSTRAINT_ALL = CONSTRAINT_DEFAULT + ["options", "createStatement"]


def run(driver, query, **params):
    records, summary, keys = driver.execute_query(query, params)
    return [r.data() for r in records], summary, keys


def counters(summary):
    return {k: v for k, v in vars(summary.counters).items() if v and not k.startswith("_")}


def test_create_index_counts_and_is_a_schema_query(driver):
    _, summary, keys = run(driver, "CREATE INDEX person_name FOR (n:Person) ON (n.name)")
    assert keys == []
    assert summary.query_type == "s"
    assert counters(summary) == {"indexes_added": 1}
    assert summary.counters.contains_updates

    _, summary, _ = run(driver, "CREATE INDEX person_name IF NOT EXISTS FOR (n:Person) ON (n.name)")
    assert counters(summary) == {}
    assert summary.query_type == "s"

    _, summary, _ = run(driver, "DROP INDEX person_name")
    assert counters(summary) == {"indexes_removed": 1}

    _, summary, _ = run(driver, "CREATE CONSTRAINT user_email FOR (n:User) REQUIRE n.email IS UNIQUE")
    assert counters(summary) == {"constraints_added": 1}
    assert summary.query_type == "s"
    _, summary, _ = run(driver, "DROP CONSTRAINT user_email")
    assert counters(summary) == {"constraints_removed": 1}

    _, summary, _ = run(driver, "SHOW INDEXES")
    assert summary.query_type == "r"


def test_show_indexes_columns_and_values(driver):
    run(driver, "CREATE (:Person {name: 'Ann', age: 3})")
    run(driver, "CREATE INDEX person_age FOR (n:Person) ON (n.age, n.name)")
    run(driver, "CREATE TEXT INDEX knows_note FOR ()-[r:KNOWS]-() ON (r.note)")
    run(driver, "CALL db.awaitIndexes()")

    rows, _, keys = run(driver, "SHOW INDEXES")
    assert keys == INDEX_DEFAULT
    by_name = {r["name"]: r for r in rows}
    assert [r["name"] for r in rows] == sorted(by_name)
    assert by_name["person_age"] == {
        "id": by_name["person_age"]["id"], "name": "person_age", "state": "ONLINE",
        "populationPercent": 100.0, "type": "RANGE", "entityType": "NODE",
        "labelsOrTypes": ["Person"], "properties": ["age", "name"], "indexProvider": "range-1.0",
        "owningConstraint": None, "lastRead": None, "readCount": 0,
    }
    assert by_name["knows_note"]["type"] == "TEXT"
    assert by_name["knows_note"]["indexProvider"] == "text-2.0"
    assert by_name["knows_note"]["entityType"] == "RELATIONSHIP"
    lookups = {r["entityType"]: r["name"] for r in rows if r["type"] == "LOOKUP"}
    assert lookups == {"NODE": "index_343aff4e", "RELATIONSHIP": "index_f7700477"}

    rows, _, keys = run(driver, "SHOW INDEXES YIELD *")
    assert keys == INDEX_ALL
    row = next(r for r in rows if r["name"] == "person_age")
    assert row["options"] == {"indexConfig": {}, "indexProvider": "range-1.0"}
    assert row["failureMessage"] == ""
    assert row["createStatement"] == (
        "CREATE RANGE INDEX `person_age` FOR (n:`Person`) ON (n.`age`, n.`name`)"
    )

    rows, _, keys = run(driver, "SHOW TEXT INDEXES YIELD name, type WHERE name STARTS WITH 'knows'")
    assert keys == ["name", "type"]
    assert rows == [{"name": "knows_note", "type": "TEXT"}]


def test_show_constraints_columns_and_values(driver):
    run(driver, "CREATE CONSTRAINT u_key FOR (n:User) REQUIRE (n.a, n.b) IS NODE KEY")
    run(driver, "CREATE CONSTRAINT u_type FOR (n:User) REQUIRE n.age IS :: INTEGER | FLOAT")
    run(driver, "CREATE CONSTRAINT r_uniq FOR ()-[r:R]-() REQUIRE r.id IS UNIQUE")

    rows, _, keys = run(driver, "SHOW CONSTRAINTS")
    assert keys == CONSTRAINT_DEFAULT
    by_name = {r["name"]: r for r in rows}
    assert sorted(by_name) == ["r_uniq", "u_key", "u_type"]
    assert by_name["u_key"]["type"] == "NODE_KEY"
    assert by_name["u_key"]["ownedIndex"] == "u_key"
    assert by_name["u_type"]["type"] == "NODE_PROPERTY_TYPE"
    assert by_name["u_type"]["propertyType"] == "INTEGER | FLOAT"
    assert by_name["r_uniq"]["type"] == "RELATIONSHIP_UNIQUENESS"
    assert by_name["r_uniq"]["entityType"] == "RELATIONSHIP"

    rows, _, keys = run(driver, "SHOW CONSTRAINTS YIELD *")
    assert keys == CONSTRAINT_ALL
    statements = {r["name"]: r["createStatement"] for r in rows}
    assert statements["u_key"] == "CREATE CONSTRAINT `u_key` FOR (n:`User`) REQUIRE (n.`a`, n.`b`) IS NODE KEY"
    assert statements["r_uniq"] == "CREATE CONSTRAINT `r_uniq` FOR ()-[r:`R`]-() REQUIRE (r.`id`) IS UNIQUE"

    rows, _, _ = run(driver, "SHOW KEY CONSTRAINTS YIELD name")
    assert rows == [{"name": "u_key"}]

    # The backing index of a key constraint is listed with its owner.
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name, owningConstraint WHERE owningConstraint IS NOT NULL")
    assert sorted(r["name"] for r in rows) == ["r_uniq", "u_key"]


def test_yield_star_ordered_filtered_and_returned(driver):
    """`YIELD *` followed by ORDER BY / SKIP / LIMIT / WHERE / RETURN, as
    Neo4j 5 accepts it; the columns keep the command's order, also through
    `RETURN *` (the reference answers the same, checked in this session)."""
    run(driver, "CREATE INDEX b_idx FOR (n:B) ON (n.p)")
    run(driver, "CREATE TEXT INDEX a_idx FOR (n:A) ON (n.p)")
    run(driver, "CREATE CONSTRAINT c_uniq FOR (n:C) REQUIRE n.p IS UNIQUE")

    rows, _, keys = run(driver, "SHOW INDEXES YIELD * ORDER BY name")
    assert keys == INDEX_ALL
    assert [r["name"] for r in rows] == sorted(r["name"] for r in rows)
    rows, _, keys = run(driver, "SHOW INDEXES YIELD * ORDER BY name DESC SKIP 1 LIMIT 2 WHERE type = 'RANGE'")
    assert keys == INDEX_ALL
    assert [r["name"] for r in rows] == ["c_uniq"]
    rows, _, keys = run(driver, "SHOW INDEXES YIELD * WHERE name STARTS WITH 'a' RETURN name, type")
    assert (keys, rows) == (["name", "type"], [{"name": "a_idx", "type": "TEXT"}])
    _, _, keys = run(driver, "SHOW INDEXES YIELD * RETURN *")
    assert keys == INDEX_ALL
    _, _, keys = run(driver, "SHOW INDEXES YIELD type, name RETURN *")
    assert keys == ["type", "name"]

    rows, _, keys = run(driver, "SHOW CONSTRAINTS YIELD * ORDER BY name LIMIT 1")
    assert keys == CONSTRAINT_ALL
    assert [r["name"] for r in rows] == ["c_uniq"]
    rows, _, _ = run(driver, "SHOW CONSTRAINTS YIELD * RETURN count(*) AS n")
    assert rows == [{"n": 1}]

    with pytest.raises(CypherSyntaxError) as raised:
        run(driver, "SHOW INDEXES YIELD nope")
    assert raised.value.message.startswith("Trying to YIELD non-existing column: `nope`")
    with pytest.raises(CypherSyntaxError) as raised:
        run(driver, "SHOW INDEXES YIELD * ORDER BY nope")
    assert "Variable `nope` not defined" in raised.value.message


def test_names_as_parameters(driver):
    run(driver, "CREATE INDEX $name FOR (n:P) ON (n.p)", name="from_param")
    run(driver, "CREATE CONSTRAINT $name FOR (n:P) REQUIRE n.q IS UNIQUE", name="c_param")
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name WHERE name IN ['from_param', 'c_param']")
    assert sorted(r["name"] for r in rows) == ["c_param", "from_param"]
    run(driver, "DROP INDEX $name", name="from_param")
    run(driver, "DROP CONSTRAINT $name IF EXISTS", name="c_param")
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name WHERE name IN ['from_param', 'c_param']")
    assert rows == []


@pytest.mark.parametrize(
    "query, code",
    [
        ("DROP INDEX missing", "Neo.DatabaseError.Schema.IndexDropFailed"),
        ("DROP CONSTRAINT missing", "Neo.DatabaseError.Schema.ConstraintDropFailed"),
        ("CALL db.awaitIndex('missing', 1)", "Neo.ClientError.Schema.IndexNotFound"),
        ("CREATE INDEX e FOR (n:E) ON (n.p)", "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"),
        ("CREATE INDEX other FOR (n:E) ON (n.p)", "Neo.ClientError.Schema.IndexAlreadyExists"),
        ("CREATE INDEX e FOR (n:E) ON (n.q)", "Neo.ClientError.Schema.IndexWithNameAlreadyExists"),
        ("CREATE POINT INDEX pt FOR (n:E) ON (n.loc)", "Neo.DatabaseError.Statement.ExecutionFailed"),
        ("CREATE INDEX ON :E(p)", "Neo.ClientError.Statement.SyntaxError"),
    ],
)
def test_errors(driver, query, code):
    run(driver, "CREATE INDEX e IF NOT EXISTS FOR (n:E) ON (n.p)")
    with pytest.raises((ClientError, DatabaseError)) as raised:
        run(driver, query)
    assert raised.value.code == code


def test_constraint_over_breaking_data_names_the_node(driver):
    run(driver, "CREATE (:Dup {k: 1}), (:Dup {k: 1})")
    with pytest.raises(DatabaseError) as raised:
        run(driver, "CREATE CONSTRAINT dup FOR (n:Dup) REQUIRE n.k IS UNIQUE")
    assert raised.value.code == "Neo.DatabaseError.Schema.ConstraintCreationFailed"
    assert "have the label `Dup` and property `k` = 1" in raised.value.message
    assert "Node(" in raised.value.message
    rows, _, _ = run(driver, "SHOW CONSTRAINTS")
    assert rows == []


def test_violating_write_fails(driver):
    run(driver, "CREATE CONSTRAINT email FOR (n:User) REQUIRE n.email IS UNIQUE")
    run(driver, "CREATE (:User {email: 'a@x'})")
    with pytest.raises(ClientError) as raised:
        run(driver, "CREATE (:User {email: 'a@x'})")
    assert raised.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
    assert "already exists with label `User` and property `email` = 'a@x'" in raised.value.message
    rows, _, _ = run(driver, "MATCH (u:User) RETURN count(u) AS n")
    assert rows == [{"n": 1}]
    # In an explicit transaction the failing statement (its first row
    # written before the second fails) keeps nothing, and the driver then
    # treats the transaction as failed: nothing of it commits (the
    # reference Neo4j 5.26 ends in the same state).
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:User {email: 'b@x'})").consume()
        with pytest.raises(ClientError) as raised:
            tx.run("UNWIND ['c@x', 'a@x'] AS e CREATE (:User {email: e})").consume()
        assert raised.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
        tx.close()
    rows, _, _ = run(driver, "MATCH (u:User) RETURN u.email AS e ORDER BY e")
    assert rows == [{"e": "a@x"}]


def test_schema_and_data_in_one_transaction(driver):
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:T)").consume()
        with pytest.raises(ClientError) as raised:
            tx.run("CREATE INDEX t FOR (n:T) ON (n.p)").consume()
        assert raised.value.code == "Neo.ClientError.Transaction.ForbiddenDueToTransactionType"
        tx.close()
    with driver.session() as session:
        tx = session.begin_transaction()
        summary = tx.run("CREATE INDEX t FOR (n:T) ON (n.p)").consume()
        assert summary.counters.indexes_added == 1
        with pytest.raises(ClientError) as raised:
            tx.run("CREATE (:T)").consume()
        assert raised.value.code == "Neo.ClientError.Transaction.ForbiddenDueToTransactionType"
        tx.close()
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE INDEX t2 FOR (n:T) ON (n.p2)").consume()
        assert tx.run("MATCH (n) RETURN count(n) AS c").single()["c"] == 0
        tx.run("CREATE CONSTRAINT t3 FOR (n:T) REQUIRE n.p3 IS UNIQUE").consume()
        tx.commit()
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name WHERE name STARTS WITH 't'")
    assert sorted(r["name"] for r in rows) == ["t2", "t3"]


def test_syntax_error_has_a_position(driver):
    with pytest.raises(CypherSyntaxError) as raised:
        run(driver, "CREATE CONSTRAINT FOR (n:P) REQUIRE (n.a, n.b) IS NOT NULL")
    assert "(line 1, column 44 (offset: 43))" in raised.value.message


def test_indexes_survive_a_restart(server, driver):
    run(driver, "CREATE (:R {k: 1})")
    run(driver, "CREATE INDEX r_k FOR (n:R) ON (n.k)")
    run(driver, "CREATE CONSTRAINT r_u FOR (n:R) REQUIRE n.u IS UNIQUE")
    server.stop()
    server.start()
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name, state WHERE name STARTS WITH 'r_'")
    assert sorted((r["name"], r["state"]) for r in rows) == [("r_k", "ONLINE"), ("r_u", "ONLINE")]
    rows, _, _ = run(driver, "SHOW CONSTRAINTS YIELD name")
    assert rows == [{"name": "r_u"}]


def schema_notes(summary):
    """(gql status, status description, legacy title, legacy description) of
    each notification, with its severity, classification and position checked
    as the reference Neo4j 5.26 sends them for schema commands."""
    notes = [s for s in summary.gql_status_objects if s.is_notification]
    for s in notes:
        assert (s.raw_severity, s.raw_classification, s.position) == ("INFORMATION", "SCHEMA", None)
    legacy = summary.summary_notifications
    assert [n.code.rsplit(".", 1)[-1] for n in legacy] == [
        {"00NA0": "IndexOrConstraintAlreadyExists", "00NA1": "IndexOrConstraintDoesNotExist"}[s.gql_status]
        for s in notes]
    for n in legacy:
        assert (n.raw_severity_level, n.raw_category, n.position) == ("INFORMATION", "SCHEMA", None)
    return [(s.gql_status, s.status_description, n.title, n.description) for s, n in zip(notes, legacy)]


def already(command, existing):
    return ("00NA0",
            f"note: successful completion - index or constraint already exists. The command "
            f"'{command}' has no effect. The index or constraint specified by '{existing}' "
            f"already exists.",
            f"`{command}` has no effect.", f"`{existing}` already exists.")


def missing(command, name):
    return ("00NA1",
            f"note: successful completion - index or constraint does not exist. The command "
            f"'{command}' has no effect. The specified index or constraint `{name}` does not exist.",
            f"`{command}` has no effect.", f"`{name}` does not exist.")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_commands_that_do_nothing_carry_neo4js_schema_notifications(driver):
    """IF NOT EXISTS finding the rule (equivalent or of that name, a
    constraint's backing index included) and IF EXISTS finding nothing: texts
    recorded from the reference Neo4j 5.26; a command that did something
    carries none."""
    def notes(query, **params):
        return schema_notes(run(driver, query, **params)[1])

    assert notes("CREATE INDEX ix1 IF NOT EXISTS FOR (n:A) ON (n.p)") == []
    assert notes("CREATE INDEX ix2 IF NOT EXISTS FOR (x:A) ON (x.p)") == [already(
        "CREATE RANGE INDEX ix2 IF NOT EXISTS FOR (e:A) ON (e.p)", "RANGE INDEX ix1 FOR (e:A) ON (e.p)")]
    assert notes("CREATE TEXT INDEX ix1 IF NOT EXISTS FOR (n:B) ON (n.q)") == [already(
        "CREATE TEXT INDEX ix1 IF NOT EXISTS FOR (e:B) ON (e.q)", "RANGE INDEX ix1 FOR (e:A) ON (e.p)")]
    assert notes("CREATE INDEX $n IF NOT EXISTS FOR (n:A) ON (n.p) OPTIONS {}", n="we`ird") == [already(
        "CREATE RANGE INDEX `we``ird` IF NOT EXISTS FOR (e:A) ON (e.p) OPTIONS {}",
        "RANGE INDEX ix1 FOR (e:A) ON (e.p)")]
    # index_dfa66b13 is the name the reference gave this index.
    run(driver, "CREATE INDEX FOR ()-[r:`T y`]-() ON (r.p, r.`1q`)")
    assert notes("CREATE INDEX IF NOT EXISTS FOR ()-[r:`T y`]->() ON (r.p, r.`1q`)") == [already(
        "CREATE RANGE INDEX IF NOT EXISTS FOR ()-[e:`T y`]-() ON (e.p, e.`1q`)",
        "RANGE INDEX index_dfa66b13 FOR ()-[e:`T y`]-() ON (e.p, e.`1q`)")]
    assert notes("CREATE LOOKUP INDEX foo IF NOT EXISTS FOR ()-[r]-() ON EACH type(r)") == [already(
        "CREATE LOOKUP INDEX foo IF NOT EXISTS FOR ()-[e]-() ON EACH type(e)",
        "LOOKUP INDEX index_f7700477 FOR ()-[e]-() ON EACH type(e)")]

    run(driver, "CREATE CONSTRAINT c1 FOR (n:U) REQUIRE n.e IS UNIQUE")
    assert notes("CREATE CONSTRAINT IF NOT EXISTS FOR (n:U) REQUIRE n.e IS NODE UNIQUE") == [already(
        "CREATE CONSTRAINT IF NOT EXISTS FOR (e:U) REQUIRE (e.e) IS UNIQUE",
        "CONSTRAINT c1 FOR (e:U) REQUIRE (e.e) IS UNIQUE")]
    assert notes("CREATE CONSTRAINT c1 IF NOT EXISTS FOR (n:U) REQUIRE (n.e, n.f) IS UNIQUE") == [already(
        "CREATE CONSTRAINT c1 IF NOT EXISTS FOR (e:U) REQUIRE (e.e, e.f) IS UNIQUE",
        "CONSTRAINT c1 FOR (e:U) REQUIRE (e.e) IS UNIQUE")]
    assert notes("CREATE INDEX other IF NOT EXISTS FOR (n:U) ON (n.e)") == [already(
        "CREATE RANGE INDEX other IF NOT EXISTS FOR (e:U) ON (e.e)", "RANGE INDEX c1 FOR (e:U) ON (e.e)")]
    # A constraint named like an index, or over an index's keys, is refused
    # even under IF NOT EXISTS.
    for query, code in [
        ("CREATE CONSTRAINT ix1 IF NOT EXISTS FOR (n:V) REQUIRE n.e IS UNIQUE",
         "Neo.ClientError.Schema.IndexWithNameAlreadyExists"),
        ("CREATE CONSTRAINT IF NOT EXISTS FOR (n:A) REQUIRE n.p IS UNIQUE",
         "Neo.ClientError.Schema.IndexAlreadyExists"),
    ]:
        with pytest.raises(ClientError) as raised:
            run(driver, query)
        assert raised.value.code == code

    assert notes("DROP INDEX nope IF EXISTS") == [missing("DROP INDEX nope IF EXISTS", "nope")]
    assert notes("DROP CONSTRAINT ix1 IF EXISTS") == [missing("DROP CONSTRAINT ix1 IF EXISTS", "ix1")]
    assert notes("DROP INDEX $n IF EXISTS", n="we ird") == [
        missing("DROP INDEX `we ird` IF EXISTS", "we ird")]
    assert notes("DROP INDEX ix1 IF EXISTS") == []
    assert notes("EXPLAIN CREATE INDEX IF NOT EXISTS FOR (n:U) ON (n.e)") == []

    # In an explicit transaction each statement's summary has its own.
    with driver.session() as session, session.begin_transaction() as tx:
        assert schema_notes(tx.run("CREATE INDEX ix3 IF NOT EXISTS FOR (n:A) ON (n.q)").consume()) == []
        summary = tx.run("CREATE INDEX ix3 IF NOT EXISTS FOR (n:A) ON (n.q)").consume()
        assert schema_notes(summary) == [already(
            "CREATE RANGE INDEX ix3 IF NOT EXISTS FOR (e:A) ON (e.q)", "RANGE INDEX ix3 FOR (e:A) ON (e.q)")]
        statuses = [s.gql_status for s in summary.gql_status_objects]
        assert statuses == ["00NA0", "00001"]
        tx.commit()


def test_unnamed_rules_get_the_names_neo4j_generates(driver):
    """Recorded from the reference Neo4j 5.26 for the same statements."""
    run(driver, "CREATE INDEX FOR (n:Person) ON (n.name)")
    run(driver, "CREATE TEXT INDEX FOR ()-[r:T]-() ON (r.p)")
    run(driver, "CREATE INDEX FOR (n:`Ünïcode label`) ON (n.`prop with spaces and a long name that goes on`)")
    run(driver, "CREATE CONSTRAINT FOR (n:U) REQUIRE (n.a, n.b) IS UNIQUE")
    run(driver, "CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.e IS UNIQUE")
    rows, _, _ = run(driver, "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'")
    assert sorted(r["name"] for r in rows) == [
        "constraint_29b408cf", "constraint_e486d68e", "index_4b2e9408", "index_861e0082",
        "index_a63e6a80"]


def test_reads_are_tracked_as_neo4j_shows_them(driver):
    """As the reference Neo4j 5.26 shows an index once its usage is sampled:
    never read, `readCount` 0 and `lastRead` null; `trackedSince` when it
    was created; a read counts and sets `lastRead` (EXPLAIN reads nothing)."""
    import datetime
    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=1)
    run(driver, "CREATE (:Tracked {p: 1})")
    run(driver, "CREATE INDEX tracked FOR (n:Tracked) ON (n.p)")
    run(driver, "CALL db.awaitIndexes()")

    def usage():
        rows, _, _ = run(driver, "SHOW INDEXES YIELD name, lastRead, readCount, trackedSince "
                                 "WHERE name = 'tracked'")
        row = rows[0]
        return row["lastRead"], row["readCount"], row["trackedSince"]

    last, count, since = usage()
    assert (last, count) == (None, 0)
    assert since.to_native() >= before
    run(driver, "EXPLAIN MATCH (n:Tracked) WHERE n.p = 1 RETURN n")
    assert usage()[:2] == (None, 0)
    rows, _, _ = run(driver, "MATCH (n:Tracked) WHERE n.p = 1 RETURN n.p AS p")
    assert rows == [{"p": 1}]
    last, count, since_again = usage()
    assert count == 1 and since_again == since
    assert last.to_native() >= since.to_native()
    assert last.utcoffset() == datetime.timedelta(0)
