"""The HTTP endpoints that act on the database (/admin/checkpoint, /loader) take the Bolt users'
credentials (issues 25 and 29): without them, or with wrong ones, 401 with a Basic challenge
and Neo4j's Unauthorized code; with them, the request runs; repeated failures meet the Bolt
listener's rate limit. /health stays open; /metrics takes any user's credentials. Without users
(loopback only) everything stays open to local tools."""

import base64
import json
import urllib.error
import urllib.request

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError


def call(server, method, path, user=None, password=None, body=None):
    headers = {"Content-Type": "application/json"}
    if user is not None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{server.http_port}{path}", method=method,
                                 data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


@pytest.mark.parametrize("method, path", [("POST", "/admin/checkpoint"), ("GET", "/loader"),
                                          ("POST", "/loader"), ("GET", "/loader/1"),
                                          ("DELETE", "/loader/1")])
def test_acting_endpoints_refuse_missing_and_wrong_credentials(secured, method, path):
    for user, password in [(None, None), ("neo4j", "wrong"), ("nobody", "s3cret-pw")]:
        code, headers, body = call(secured, method, path, user, password)
        assert code == 401, (user, body)
        assert headers.get("WWW-Authenticate", "").startswith("Basic")
        error = json.loads(body)["errors"][0]
        assert error["code"] == "Neo.ClientError.Security.Unauthorized"


def test_the_users_credentials_open_them(secured):
    code, _, body = call(secured, "POST", "/admin/checkpoint", "neo4j", "s3cret-pw")
    assert code == 200, body
    code, _, body = call(secured, "GET", "/loader", "neo4j", "s3cret-pw")
    assert code == 200, body
    code, _, body = call(secured, "POST", "/loader", "neo4j", "s3cret-pw",
                         {"source": "file:///absent", "format": "opencypher"})
    assert code != 401, body


def test_health_stays_open_and_metrics_take_any_users_credentials(secured):
    assert call(secured, "GET", "/health")[0] == 200
    code, headers, _ = call(secured, "GET", "/metrics")
    assert code == 401 and headers.get("WWW-Authenticate", "").startswith("Basic")
    assert call(secured, "GET", "/metrics", "neo4j", "wrong")[0] == 401
    code, _, body = call(secured, "GET", "/metrics", "neo4j", "s3cret-pw")
    assert code == 200 and b"nereid_" in body


def test_without_users_local_tools_need_no_credentials(server):
    assert call(server, "GET", "/loader")[0] == 200
    assert call(server, "POST", "/admin/checkpoint")[0] == 200


def test_repeated_wrong_passwords_meet_the_bolt_rate_limit(secured):
    # The lock-out is the Bolt listener's own (per client address): after three failures even
    # the right password is refused for a while, 429 with Neo4j's rate-limit code.
    for _ in range(3):
        code, _, _ = call(secured, "POST", "/admin/checkpoint", "neo4j", "wrong")
        assert code == 401
    code, _, body = call(secured, "POST", "/admin/checkpoint", "neo4j", "s3cret-pw")
    assert code == 429, body
    assert json.loads(body)["errors"][0]["code"] == \
        "Neo.ClientError.Security.AuthenticationRateLimit"
    with GraphDatabase.driver(secured.uri, auth=("neo4j", "s3cret-pw")) as driver:
        with pytest.raises(ClientError) as err:
            driver.verify_connectivity()
    assert err.value.code == "Neo.ClientError.Security.AuthenticationRateLimit"
