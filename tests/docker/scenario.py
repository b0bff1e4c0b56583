"""The image as an operator uses it, with podman (run by tests/docker/run,
which builds the image first): the server refuses the image's 0.0.0.0
default without users; with NEREID_AUTH it starts, reports healthy, takes
writes, checkpoints on `stop` (SIGTERM) and keeps its data and users on the
volume across containers; with an s3:// checkpoint URI a new container on
an empty volume restores everything from the bucket alone.

Containers use the host's network on free loopback ports (no bridge
networking needed); everything started here is removed at the end."""

import argparse
import os
import subprocess
import sys
import time
import urllib.request
import uuid

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
import moto_s3  # noqa: E402
from nereid_process import free_port  # noqa: E402

USER, PASSWORD = "neo4j", "docker-test-password"
BUCKET = "nereid-docker"


def podman(*args, check=True, timeout=180):
    proc = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


class Containers:
    """Containers and volumes named after this run, all removed by close()."""

    def __init__(self, image):
        self.image = image
        self.tag = f"nereid-test-{uuid.uuid4().hex[:8]}"
        self.names = []
        self.volumes = []

    def volume(self):
        name = f"{self.tag}-vol{len(self.volumes)}"
        podman("volume", "create", name)
        self.volumes.append(name)
        return name

    def start(self, volume, env, network="host"):
        """Starts a container on `volume`; returns (name, bolt port, http port)."""
        name = f"{self.tag}-{len(self.names)}"
        bolt, http = free_port(), free_port()
        settings = {
            "NEREID_BOLT_ADDRESS": f"127.0.0.1:{bolt}",
            "NEREID_HTTP_ADDRESS": f"127.0.0.1:{http}",
            # Two cores: keep the server's own threads few.
            "NEREID_LOG_PARTITIONS": "2",
            **env,
        }
        flags = [f"--env={k}={v}" for k, v in settings.items()]
        self.names.append(name)
        podman("run", "--detach", f"--name={name}", f"--network={network}",
               f"--volume={volume}:/data", *flags, self.image)
        wait_healthy(name, http)
        return name, bolt, http

    def stop(self, name):
        """SIGTERM, as `docker stop`; returns the exit code and the log."""
        podman("stop", "--time=60", name, timeout=120)
        code = int(podman("inspect", "--format={{.State.ExitCode}}", name).stdout.strip())
        log = logs(name)
        podman("rm", name)
        return code, log

    def close(self):
        for name in self.names:
            podman("rm", "--force", "--time=5", name, check=False)
        for volume in self.volumes:
            podman("volume", "rm", "--force", volume, check=False)


def logs(name):
    proc = podman("logs", name, check=False)
    return proc.stdout + proc.stderr


def wait_healthy(name, http_port, timeout=120):
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        state = podman("inspect", "--format={{.State.Status}}", name, check=False).stdout.strip()
        if state not in ("running", "created", "configured") or time.time() > deadline:
            raise RuntimeError(f"{name} did not become healthy ({state}):\n{logs(name)}")
        time.sleep(0.2)


def driver(bolt_port):
    return GraphDatabase.driver(f"bolt://127.0.0.1:{bolt_port}", auth=(USER, PASSWORD))


def write_rows(bolt_port, label, values):
    with driver(bolt_port) as drv:
        drv.execute_query(
            f"UNWIND $values AS i CREATE (:{label} {{i: i}})-[:NEXT {{i: i}}]->(:Tail)",
            values=list(values),
        )


def read_rows(bolt_port, label):
    with driver(bolt_port) as drv:
        records, _, _ = drv.execute_query(
            f"MATCH (n:{label})-[r:NEXT]->(:Tail) WHERE r.i = n.i RETURN n.i AS i ORDER BY i"
        )
    return [r["i"] for r in records]


def step(text):
    print(f"  - {text}", flush=True)


def refuses_an_open_address_without_users(box):
    step("the image's 0.0.0.0 default without users: refused before listening")
    name = f"{box.tag}-open"
    box.names.append(name)
    # No network at all: the refusal is the point, nothing may listen.
    proc = podman("run", f"--name={name}", "--network=none", f"--volume={box.volume()}:/data",
                  box.image, check=False, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "without users" in output and "NEREID_AUTH" in output, output


def survives_a_restart_on_its_volume(box):
    volume = box.volume()
    name, bolt, _ = box.start(volume, {"NEREID_AUTH": f"{USER}/{PASSWORD}"})
    step("HEALTHCHECK (nereid healthcheck) reports healthy")
    health = podman("healthcheck", "run", name, check=False)
    assert health.returncode == 0, health.stdout + health.stderr
    step("NEREID_AUTH created the user: a wrong password is refused")
    try:
        with GraphDatabase.driver(f"bolt://127.0.0.1:{bolt}", auth=(USER, "wrong")) as drv:
            drv.verify_connectivity()
        raise AssertionError("a wrong password was accepted")
    except AuthError:
        pass
    step("write, then stop (SIGTERM): a clean exit with a shutdown checkpoint")
    write_rows(bolt, "Row", range(100))
    code, log = box.stop(name)
    assert code == 0, log
    assert 'trigger="shutdown"' in log, log
    step("a new container on the same volume, without NEREID_AUTH: data and user kept")
    name, bolt, _ = box.start(volume, {})
    assert read_rows(bolt, "Row") == list(range(100))
    code, log = box.stop(name)
    assert code == 0, log


def restores_from_the_bucket_alone(box):
    with moto_s3.moto_s3(BUCKET) as endpoint:
        s3 = {
            "NEREID_AUTH": f"{USER}/{PASSWORD}",
            "NEREID_CHECKPOINT_URI": f"s3://{BUCKET}/graph",
            "NEREID_S3_ENDPOINT": endpoint,
            **moto_s3.CREDENTIALS,
        }
        step("checkpointing to S3 (moto): write, checkpoint, write more, stop")
        name, bolt, _ = box.start(box.volume(), s3)
        write_rows(bolt, "Row", range(50))
        with driver(bolt) as drv:
            records, _, _ = drv.execute_query("CALL db.checkpoint()")
            assert records[0]["success"], records[0]["message"]
        write_rows(bolt, "Row", range(50, 80))
        code, log = box.stop(name)
        assert code == 0, log
        stored = moto_s3.keys(endpoint, BUCKET, "graph/")
        assert any(k.endswith("/MANIFEST") for k in stored), stored
        step("a fresh container on an empty volume restores from the bucket alone")
        name, bolt, _ = box.start(box.volume(), s3)
        assert "loaded the checkpoint" in logs(name), logs(name)
        assert read_rows(bolt, "Row") == list(range(80))
        write_rows(bolt, "Row", [80])
        assert read_rows(bolt, "Row") == list(range(81))
        code, log = box.stop(name)
        assert code == 0, log


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--image", required=True)
    image = args.parse_args().image
    started = time.time()
    box = Containers(image)
    try:
        refuses_an_open_address_without_users(box)
        survives_a_restart_on_its_volume(box)
        restores_from_the_bucket_alone(box)
    finally:
        box.close()
    print(f"docker: all passed in {time.time() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
