"""Authentication end to end: a server with a user (NEREID_AUTH), checked
by the official driver over Bolt 5.x (LOGON), and kept across restarts."""

import os

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError



def _value(uri, auth, query="RETURN 1 AS x"):
    with GraphDatabase.driver(uri, auth=auth) as drv:
        records, _, _ = drv.execute_query(query)
        return records[0]["x"]


def test_good_password_connects(secured):
    assert _value(secured.uri, ("neo4j", "s3cret-pw")) == 1


def test_bad_password_and_unknown_user_are_auth_errors(secured):
    for auth in [("neo4j", "wrong"), ("nobody", "s3cret-pw")]:
        with pytest.raises(AuthError) as err:
            _value(secured.uri, auth)
        assert err.value.code == "Neo.ClientError.Security.Unauthorized"


def test_no_auth_token_is_refused_when_users_exist(secured):
    with pytest.raises(AuthError):
        _value(secured.uri, None)


def test_repeated_failures_lock_the_address_out(secured):
    for _ in range(3):
        with pytest.raises(AuthError):
            _value(secured.uri, ("neo4j", "wrong"))
    # Locked out now: even the right password is refused for a while, with
    # Neo4j's rate-limit status (a ClientError, not an AuthError, in the driver).
    with pytest.raises(ClientError) as err:
        _value(secured.uri, ("neo4j", "s3cret-pw"))
    assert err.value.code == "Neo.ClientError.Security.AuthenticationRateLimit"
    assert "too many times" in err.value.message


def test_users_persist_across_restarts(secured):
    secured.stop()
    secured.extra_env = {}
    secured.start()
    assert _value(secured.uri, ("neo4j", "s3cret-pw")) == 1
    with pytest.raises(AuthError):
        _value(secured.uri, ("neo4j", "any"))
    users = open(os.path.join(secured.data_dir, "users.json")).read()
    assert "s3cret-pw" not in users


def test_without_users_loopback_accepts_anything(server):
    assert _value(server.uri, ("whoever", "whatever")) == 1
    assert _value(server.uri, None) == 1
