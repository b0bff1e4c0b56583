"""Fixtures of the ecosystem suite: the database the libraries talk to.

$ECOSYSTEM_URI names a running server (the reference Neo4j, or a nereid
started by `run`); without it a nereid is started from $NEREID_BIN for the
session (the e2e suite's process helper). Every test module starts from an
empty graph with no indexes or constraints, as a new user's would."""

import hashlib
import math
import os
import sys
import tempfile

import pytest
from neo4j import GraphDatabase

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))

USER, PASSWORD = "neo4j", "eco-password"
DIMENSIONS = 16


def fake_embedding(text, dimensions=DIMENSIONS):
    """A deterministic unit vector for a text: texts that share words get
    near vectors (each word adds a hashed direction), so similarity search
    has a right answer without any model."""
    vector = [0.0] * dimensions
    for word in text.lower().split():
        digest = hashlib.sha256(word.strip(".,!?").encode()).digest()
        for i in range(dimensions):
            vector[i] += (digest[i] - 127.5) / 127.5
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


@pytest.fixture(scope="session")
def uri():
    given = os.environ.get("ECOSYSTEM_URI")
    if given:
        yield given
        return
    from nereid_process import NereidProcess

    binary = os.environ.get("NEREID_BIN")
    if not binary:
        raise RuntimeError("set ECOSYSTEM_URI or NEREID_BIN")
    with tempfile.TemporaryDirectory(prefix="nereid-eco-") as tmp:
        server = NereidProcess(binary, os.path.join(tmp, "data"), os.path.join(tmp, "server.log"))
        server.start()
        try:
            yield server.uri
        finally:
            server.stop()


def wipe(driver):
    """Deletes every node, index and constraint."""
    with driver.session() as s:
        s.run("MATCH (n) DETACH DELETE n").consume()
        for record in list(s.run("SHOW CONSTRAINTS YIELD name RETURN name")):
            s.run("DROP CONSTRAINT $name IF EXISTS", name=record["name"]).consume()
        for record in list(s.run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")):
            s.run("DROP INDEX $name IF EXISTS", name=record["name"]).consume()


@pytest.fixture(scope="module")
def driver(uri):
    drv = GraphDatabase.driver(uri, auth=(USER, PASSWORD))
    wipe(drv)
    try:
        yield drv
    finally:
        drv.close()

