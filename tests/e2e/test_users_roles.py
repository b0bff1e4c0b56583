"""Users and roles end to end (issue 29), through the official driver against a server seeded
with the administrator neo4j / s3cret-pw (NEREID_AUTH): user commands on the system database in
Neo4j 5's syntax, with the messages the reference Neo4j 5.26 gives for the commands Community has
(tests/reference-neo4j/start --auth); the built-in roles enforced on every statement; suspended
users and the password-change-required flow; Bolt read access mode; and the users kept across a
restart."""

import base64
import json
import urllib.error
import urllib.request

import neo4j
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError

ADMIN = ("neo4j", "s3cret-pw")


def run(server, auth, query, db="system", mode=neo4j.WRITE_ACCESS, params=None):
    """The records of `query` as dicts, and its summary."""
    with GraphDatabase.driver(server.uri, auth=auth) as drv:
        with drv.session(database=db, default_access_mode=mode) as session:
            result = session.run(query, params or {})
            records = [r.data() for r in result]
            return records, result.consume()


def refused(server, auth, query, db="system", mode=neo4j.WRITE_ACCESS):
    with pytest.raises(ClientError) as err:
        run(server, auth, query, db, mode)
    return err.value.code, err.value.message


def admin(server, query, params=None):
    return run(server, ADMIN, query, params=params)[0]


def test_the_seeded_user_is_an_administrator_listed_with_neo4j_columns(secured):
    records, summary = run(secured, ADMIN, "SHOW USERS")
    assert records == [{"user": "neo4j", "roles": ["PUBLIC", "admin"],
                        "passwordChangeRequired": False, "suspended": False, "home": None}]
    assert summary.query_type == "s"
    current, _ = run(secured, ADMIN, "SHOW CURRENT USER YIELD user, roles")
    assert current == [{"user": "neo4j", "roles": ["PUBLIC", "admin"]}]


def test_user_commands_answer_as_neo4j_does(secured):
    admin(secured, "CREATE USER alice SET PASSWORD 'password1' CHANGE NOT REQUIRED")
    # The same texts as the reference Neo4j 5.26 (Community has these commands).
    for query, message in [
        ("CREATE USER alice SET PASSWORD 'password1'",
         "Failed to create the specified user 'alice': User already exists."),
        ("DROP USER nobody", "Failed to delete the specified user 'nobody': User does not exist."),
        ("ALTER USER nobody SET PASSWORD 'xxxxxxxxxx'",
         "Failed to alter the specified user 'nobody': User does not exist."),
        ("ALTER USER alice SET PASSWORD 'password1'",
         "Failed to alter the specified user 'alice': Old password and new password cannot be "
         "the same."),
        ("DROP USER neo4j", "Failed to delete the specified user 'neo4j': Deleting yourself is "
                            "not allowed."),
        ("CREATE USER d SET PASSWORD 'short'", "A password must be at least 8 characters."),
        ("ALTER CURRENT USER SET PASSWORD FROM 'badbadbad' TO 'xxxxxxxxxxx'",
         "User 'neo4j' failed to alter their own password: Invalid principal or credentials."),
    ]:
        code, text = refused(secured, ADMIN, query)
        assert (code, text) == ("Neo.ClientError.Statement.ArgumentError", message), query
    code, text = refused(secured, ADMIN,
                         "CREATE OR REPLACE USER alice IF NOT EXISTS SET PASSWORD 'password1'")
    assert code == "Neo.ClientError.Statement.SyntaxError"
    assert "cannot have both `OR REPLACE` and `IF NOT EXISTS`" in text
    # IF [NOT] EXISTS make the same commands no-ops.
    admin(secured, "CREATE USER alice IF NOT EXISTS SET PASSWORD 'password1'")
    admin(secured, "DROP USER nobody IF EXISTS")
    admin(secured, "ALTER USER nobody IF EXISTS SET PASSWORD 'xxxxxxxxxx'")
    admin(secured, "CREATE USER $name SET PASSWORD $pw", {"name": "bob", "pw": "password2"})
    admin(secured, "RENAME USER bob TO robert")
    names = [r["user"] for r in admin(secured, "SHOW USERS YIELD user ORDER BY user")]
    assert names == ["alice", "neo4j", "robert"]
    admin(secured, "DROP USER robert")
    assert [r["user"] for r in admin(secured, "SHOW USERS")] == ["alice", "neo4j"]


def test_roles_are_enforced_on_every_statement(secured):
    admin(secured, "CREATE USER rita SET PASSWORD 'password1' CHANGE NOT REQUIRED")
    rita = ("rita", "password1")
    # Only PUBLIC: nothing but what concerns herself.
    code, text = refused(secured, rita, "MATCH (n) RETURN count(n)", db="neo4j")
    assert code == "Neo.ClientError.Security.Forbidden"
    assert text == "Read operations are not allowed for user 'rita' with roles [PUBLIC]."
    assert run(secured, rita, "SHOW CURRENT USER YIELD user")[0] == [{"user": "rita"}]

    admin(secured, "GRANT ROLE reader TO rita")
    assert run(secured, rita, "MATCH (n) RETURN count(n) AS c", db="neo4j")[0] == [{"c": 0}]
    code, text = refused(secured, rita, "CREATE (:Person {name: 'x'})", db="neo4j")
    assert code == "Neo.ClientError.Security.Forbidden"
    assert text == "Write operations are not allowed for user 'rita' with roles [PUBLIC, reader]."
    code, _ = refused(secured, rita, "CREATE USER eve SET PASSWORD 'password1'")
    assert code == "Neo.ClientError.Security.Forbidden"
    code, _ = refused(secured, rita, "SHOW USERS")
    assert code == "Neo.ClientError.Security.Forbidden"

    admin(secured, "GRANT ROLE editor TO rita")
    run(secured, rita, "CREATE (:Person {name: 'rita'})", db="neo4j")
    code, text = refused(secured, rita, "CREATE INDEX FOR (p:Person) ON (p.name)", db="neo4j")
    assert code == "Neo.ClientError.Security.Forbidden"
    assert text.startswith("Schema operations are not allowed for user 'rita'")
    code, text = refused(secured, rita, "CALL db.checkpoint()", db="neo4j")
    assert code == "Neo.ClientError.Security.Forbidden"

    admin(secured, "GRANT ROLE architect TO rita")
    run(secured, rita, "CREATE INDEX person_name FOR (p:Person) ON (p.name)", db="neo4j")

    admin(secured, "REVOKE ROLES reader, editor, architect FROM rita")
    code, _ = refused(secured, rita, "MATCH (n) RETURN n", db="neo4j")
    assert code == "Neo.ClientError.Security.Forbidden"

    roles = admin(secured, "SHOW ROLES WITH USERS")
    assert {"role": "admin", "member": "neo4j"} in roles
    assert {"role": "PUBLIC", "member": "rita"} in roles
    assert {"role": "reader", "member": None} in roles
    assert [r["role"] for r in admin(secured, "SHOW POPULATED ROLES")] == ["PUBLIC", "admin"]
    code, text = refused(secured, ADMIN, "GRANT ROLE wizard TO rita")
    assert (code, text) == ("Neo.ClientError.Statement.ArgumentError",
                            "Failed to grant role 'wizard' to user 'rita': Role does not exist.")


def test_a_required_password_change_comes_before_anything_else(secured):
    admin(secured, "CREATE USER carl SET PASSWORD 'password1'")
    carl = ("carl", "password1")
    assert admin(secured, "SHOW USERS WHERE user = 'carl'")[0]["passwordChangeRequired"] is True
    code, text = refused(secured, carl, "SHOW CURRENT USER")
    assert code == "Neo.ClientError.Security.CredentialsExpired"
    # The reference's text, word for word.
    assert text.startswith("Permission denied.\n\nThe credentials you provided were valid, but "
                           "must be changed before you can use this instance.")
    assert text.endswith("statement against the system database.")
    run(secured, carl, "ALTER CURRENT USER SET PASSWORD FROM 'password1' TO 'password2'")
    with pytest.raises(AuthError):
        run(secured, carl, "SHOW CURRENT USER")
    records, _ = run(secured, ("carl", "password2"), "SHOW CURRENT USER YIELD passwordChangeRequired")
    assert records == [{"passwordChangeRequired": False}]


def test_suspended_users_cannot_log_in(secured):
    admin(secured, "CREATE USER sam SET PASSWORD 'password1' CHANGE NOT REQUIRED "
                   "SET STATUS SUSPENDED")
    with pytest.raises(AuthError) as err:
        run(secured, ("sam", "password1"), "SHOW CURRENT USER")
    assert err.value.code == "Neo.ClientError.Security.Unauthorized"
    admin(secured, "ALTER USER sam SET STATUS ACTIVE")
    assert run(secured, ("sam", "password1"), "SHOW CURRENT USER YIELD user")[0] == [
        {"user": "sam"}]
    code, _ = refused(secured, ADMIN, "ALTER USER neo4j SET STATUS SUSPENDED")
    assert code == "Neo.ClientError.Statement.ArgumentError"


def test_read_access_mode_refuses_writes_as_neo4j_does(secured):
    for query in ["CREATE (:X)", "CREATE INDEX FOR (n:L) ON (n.p)"]:
        code, text = refused(secured, ADMIN, query, db="neo4j", mode=neo4j.READ_ACCESS)
        assert (code, text) == ("Neo.ClientError.Statement.AccessMode",
                                "Writing in read access mode not allowed. Attempted write to neo4j")
        with GraphDatabase.driver(secured.uri, auth=ADMIN) as drv:
            with drv.session(default_access_mode=neo4j.READ_ACCESS) as session:
                with pytest.raises(ClientError) as err:
                    with session.begin_transaction() as tx:
                        tx.run(query).consume()
                assert err.value.code == "Neo.ClientError.Statement.AccessMode"
    records, _ = run(secured, ADMIN, "MATCH (n) RETURN count(n) AS c", db="neo4j",
                     mode=neo4j.READ_ACCESS)
    assert records == [{"c": 0}]


def _http(server, method, path, auth):
    token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    req = urllib.request.Request(f"http://127.0.0.1:{server.http_port}{path}", method=method,
                                 headers={"Authorization": f"Basic {token}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_only_administrators_checkpoint_over_http(secured):
    admin(secured, "CREATE USER ed SET PASSWORD 'password1' CHANGE NOT REQUIRED")
    admin(secured, "GRANT ROLE editor TO ed")
    code, body = _http(secured, "POST", "/admin/checkpoint", ("ed", "password1"))
    assert code == 403
    assert json.loads(body)["errors"][0]["code"] == "Neo.ClientError.Security.Forbidden"
    code, _ = _http(secured, "POST", "/admin/checkpoint", ADMIN)
    assert code == 200


def test_users_and_roles_persist_across_restarts(secured):
    admin(secured, "CREATE USER dora SET PASSWORD 'password1' CHANGE NOT REQUIRED")
    admin(secured, "GRANT ROLE reader TO dora")
    secured.stop()
    secured.extra_env = {}
    secured.start()
    records, _ = run(secured, ("dora", "password1"), "SHOW CURRENT USER YIELD user, roles")
    assert records == [{"user": "dora", "roles": ["PUBLIC", "reader"]}]


def test_user_commands_report_system_updates_as_neo4j_does(secured):
    # As the reference Neo4j 5.26 reports them (tests/reference-neo4j/start --auth): one per
    # change, two for a user replaced, none for a command with nothing to do; the graph's
    # counters stay untouched.
    for query, updates in [
        ("CREATE USER una SET PASSWORD 'password1' CHANGE NOT REQUIRED", 1),
        ("CREATE USER una IF NOT EXISTS SET PASSWORD 'password1'", 0),
        ("ALTER USER una SET PASSWORD 'password2'", 1),
        ("ALTER USER nobody IF EXISTS SET PASSWORD 'password2'", 0),
        ("RENAME USER una TO ursula", 1),
        ("SHOW USERS", 0),
        ("GRANT ROLES reader, editor TO ursula", 2),
        ("GRANT ROLE reader TO ursula", 0),
        ("REVOKE ROLE editor FROM ursula", 1),
        ("REVOKE ROLE editor FROM ursula", 0),
        ("CREATE OR REPLACE USER ursula SET PASSWORD 'password3'", 2),
        ("DROP USER ursula", 1),
        ("DROP USER ursula IF EXISTS", 0),
    ]:
        _, summary = run(secured, ADMIN, query)
        counters = summary.counters
        assert counters.system_updates == updates, query
        assert counters.contains_system_updates is (updates > 0), query
        assert counters.contains_updates is False, query
        assert summary.query_type == "s", query
    _, summary = run(secured, ADMIN, "ALTER CURRENT USER SET PASSWORD FROM 's3cret-pw' TO "
                                     "'s3cret-pw2'")
    assert summary.counters.system_updates == 1
    _, summary = run(secured, ("neo4j", "s3cret-pw2"), "CREATE (:Node)", db="neo4j")
    assert summary.counters.system_updates == 0
    assert summary.counters.nodes_created == 1
