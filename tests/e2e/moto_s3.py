"""moto's S3-compatible server on a free loopback port with one empty
bucket, for the tests that checkpoint to S3 (tests/e2e/test_s3_restore.py,
tests/docker). moto[server] is installed into the test venvs by
scripts/test-all; `moto_server` sits next to the venv's Python."""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from nereid_process import free_port

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "nereid-test-key",
    "AWS_SECRET_ACCESS_KEY": "nereid-test-secret",
}


def executable():
    """The moto_server beside this Python, or None."""
    return shutil.which("moto_server", path=os.path.dirname(sys.executable))


@contextlib.contextmanager
def moto_s3(bucket, env=None):
    """Runs moto's server with `bucket` created (and `env` added to its
    environment); yields its endpoint URL and stops it afterwards."""
    moto = executable()
    if moto is None:
        raise RuntimeError("moto_server is not installed next to this Python")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
        try:
            deadline = time.time() + 60
            while True:
                try:
                    urllib.request.urlopen(endpoint, timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.time() > deadline:
                        log.seek(0)
                        raise RuntimeError(f"moto_server did not start:\n{log.read().decode(errors='replace')}")
                    time.sleep(0.1)
            client(endpoint).create_bucket(Bucket=bucket)
            yield endpoint
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def serve_or_skip(bucket):
    """The body of a module fixture: yields the URL of moto's server with `bucket` created, or
    skips the module's tests when moto is not installed."""
    import pytest

    if executable() is None:
        pytest.skip("moto_server is not installed next to this Python")
    with moto_s3(bucket) as endpoint:
        yield endpoint


def client(endpoint):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


def keys(endpoint, bucket, prefix):
    listing = client(endpoint).list_objects_v2(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for o in listing.get("Contents", []))
