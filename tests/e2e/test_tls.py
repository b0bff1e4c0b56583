"""Bolt over TLS with a self-signed certificate made at test time by the
openssl CLI: bolt+ssc:// and neo4j+ssc:// (no verification), a verified
connection trusting that certificate (bolt+s:// with a custom CA), and the
refusals that prove verification and encryption are real."""

import os
import shutil
import subprocess
import tempfile

import neo4j
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ServiceUnavailable, UnsupportedServerProduct

from conftest import Server

# What a driver raises when the 4-byte handshake reply is not a Bolt
# version (here: a TLS alert). 6.x: UnsupportedServerProduct; 5.28: its
# private BoltHandshakeError.
HANDSHAKE_ERRORS = (ServiceUnavailable, UnsupportedServerProduct) + tuple(
    e for e in [getattr(getattr(neo4j, "_exceptions", None), "BoltHandshakeError", None)] if e
)

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


@pytest.fixture(scope="module")
def tls_server():
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-tls-") as tmp:
        cert = os.path.join(tmp, "cert.pem")
        key = os.path.join(tmp, "key.pem")
        subprocess.run(
            [
                "openssl", "req", "-x509", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ],
            check=True,
            capture_output=True,
        )
        srv = Server(os.path.join(tmp, "data"),
                     extra_args=["--tls-cert", cert, "--tls-key", key, "--http-tls"])
        srv.cert = cert
        srv.key = key
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


def _one(driver):
    records, _, _ = driver.execute_query("RETURN 1 AS x")
    return records[0]["x"]


@pytest.mark.parametrize("scheme", ["bolt+ssc", "neo4j+ssc"])
def test_self_signed_schemes_connect(tls_server, scheme):
    with GraphDatabase.driver(f"{scheme}://localhost:{tls_server.bolt_port}", auth=("u", "p")) as drv:
        assert _one(drv) == 1


def test_verified_tls_trusting_the_certificate(tls_server):
    with GraphDatabase.driver(
        f"bolt://localhost:{tls_server.bolt_port}",
        auth=("u", "p"),
        encrypted=True,
        trusted_certificates=neo4j.TrustCustomCAs(tls_server.cert),
    ) as drv:
        assert _one(drv) == 1


def test_verification_rejects_an_untrusted_certificate(tls_server):
    with GraphDatabase.driver(
        f"bolt+s://localhost:{tls_server.bolt_port}", auth=("u", "p"),
        connection_acquisition_timeout=10,
    ) as drv:
        # verify_connectivity does not retry (execute_query would, for 30 s).
        with pytest.raises(ServiceUnavailable):
            drv.verify_connectivity()


def test_plaintext_is_refused_by_a_tls_listener(tls_server):
    with GraphDatabase.driver(
        f"bolt://localhost:{tls_server.bolt_port}", auth=("u", "p"),
        connection_acquisition_timeout=10,
    ) as drv:
        with pytest.raises(HANDSHAKE_ERRORS):
            drv.verify_connectivity()


def test_https_on_the_http_port_with_the_same_certificate(tls_server):
    """`--http-tls`: /health and the Query API over HTTPS, verified against the certificate;
    plain HTTP on that port gets no answer."""
    import http.client
    import json
    import ssl
    import urllib.error
    import urllib.request

    context = ssl.create_default_context(cafile=tls_server.cert)
    base = f"https://localhost:{tls_server.http_port}"
    with urllib.request.urlopen(f"{base}/health", context=context, timeout=10) as response:
        assert response.status == 200
    request = urllib.request.Request(
        f"{base}/db/neo4j/query/v2", data=json.dumps({"statement": "RETURN 1 AS x"}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        assert json.loads(response.read())["data"]["values"] == [[1]]
    with pytest.raises((urllib.error.URLError, OSError, http.client.HTTPException)):
        urllib.request.urlopen(f"http://localhost:{tls_server.http_port}/health", timeout=5)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{base}/health", context=ssl.create_default_context(), timeout=10)


def test_the_healthcheck_probe_speaks_https(tls_server):
    """`nereid healthcheck` (the image's HEALTHCHECK) with --http-tls probes over TLS."""
    args = [os.environ["NEREID_BIN"], "--http-address", f"127.0.0.1:{tls_server.http_port}",
            "--tls-cert", tls_server.cert, "--tls-key", tls_server.key]
    assert subprocess.run([*args, "--http-tls", "healthcheck"], timeout=30).returncode == 0
    assert subprocess.run([*args, "healthcheck"], capture_output=True, timeout=30).returncode == 1
