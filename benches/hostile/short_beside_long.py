"""Latency of a short query (`RETURN 1` through the Python driver) while
long queries occupy the server: `--long` cartesian-product counts (an
operator that drains its input inside one slice) plus `--stuck` clients
that asked for a huge result and never read it. Prints p50/p99/max.

    python benches/hostile/short_beside_long.py --bin target/release/nereid

Starts its own server on free loopback ports in a temporary directory."""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "hostile"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "e2e"))
import bolt_raw  # noqa: E402
from nereid_process import NereidProcess  # noqa: E402
from neo4j import GraphDatabase  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--long", type=int, default=4)
    ap.add_argument("--stuck", type=int, default=2)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--budget-s", type=float, default=120, help="stop sampling after this long")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="nereid-bench-") as tmp:
        srv = NereidProcess(args.bin, os.path.join(tmp, "data"), os.path.join(tmp, "log"))
        srv.start()
        try:
            with GraphDatabase.driver(srv.uri, auth=("neo4j", "x")) as drv:
                drv.execute_query("UNWIND range(1, 1000) AS i CREATE (:N {i: i})")
                socks = []
                for _ in range(args.long):
                    s = bolt_raw.login(srv.bolt_port)
                    s.sendall(bolt_raw.run("MATCH (a), (b), (c) RETURN count(*)") + bolt_raw.pull())
                    socks.append(s)
                for _ in range(args.stuck):
                    s = bolt_raw.login(srv.bolt_port)
                    s.sendall(bolt_raw.run("MATCH (a), (b), (c) RETURN a.i, b.i") + bolt_raw.pull())
                    socks.append(s)
                time.sleep(1.0)
                took = []
                deadline = time.monotonic() + args.budget_s
                with drv.session() as session:
                    for _ in range(args.samples):
                        if time.monotonic() > deadline:
                            break
                        started = time.monotonic()
                        session.run("RETURN 1 AS one").single()
                        took.append((time.monotonic() - started) * 1000)
                for s in socks:
                    s.close()
            took.sort()
            p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
            print(
                f"long={args.long} stuck={args.stuck} samples={len(took)} "
                f"p50={statistics.median(took):.2f} ms p99={p99:.2f} ms max={took[-1]:.2f} ms"
            )
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
