"""Crash harness: concurrent writers, kill -9 at random moments, restart, and
check the recovered data against a model of what was acknowledged.

Used by `test_crash.py` (a short run inside pytest) and by `scripts/crash-loop`
(CI runs 50 iterations; longer runs with `--iterations N`). Not collected by
pytest itself (no `test_` prefix).

Every writer owns a disjoint slice of the graph, so writers never conflict and
the model per writer is exact. Transaction (w, i) is an explicit transaction
of several statements that
  - creates three nodes `(:T {w, i, k})`, k = 0, 1, 2, and a relationship
    `(k=0)-[:R {w, i}]->(k=1)`,
  - sets the writer's counter node `(:Counter {w}).n = i` (an update in place),
  - every fourth transaction also DETACH DELETEs the nodes of transaction
    (w, i - 2) if that one is present (a delete that recovery must replay).
The harness records transaction ids that were acknowledged (COMMIT returned)
and the one transaction per writer that was attempted but not acknowledged
(COMMIT sent, then the server died). After restart it checks:
  - every acknowledged transaction is present with all its parts and with
    the node ids the server returned at the time (replay reproduces ids),
    unless a later acknowledged one deleted it;
  - a transaction is never partly visible: nodes, relationship, counter
    and deletion all-or-nothing;
  - an unacknowledged transaction is either wholly present or wholly absent;
    the harness then adopts what the server kept into its model;
  - nothing else exists.
"""

import argparse
import logging
import os
import random
import sys
import tempfile
import threading
import time

from neo4j import GraphDatabase

from nereid_process import NereidProcess

# Connection errors after a kill are expected; keep the driver quiet about them.
logging.getLogger("neo4j").addHandler(logging.NullHandler())
logging.getLogger("neo4j").propagate = False

DELETE_EVERY = 4
DELETE_BACK = 2


class CrashServer(NereidProcess):
    """A nereid process the harness kills with SIGKILL; every start takes
    fresh ports (the harness reconnects by the new URI)."""

    def __init__(self, binary, data_dir, log_path, extra_args=()):
        super().__init__(binary, data_dir, log_path, extra_args, keep_ports=False)


class Model:
    """What the server must hold: per writer, the present transactions with
    the node ids returned at commit, and the counter value."""

    def __init__(self, writers):
        self.present = {w: {} for w in range(writers)}  # w -> {i: (id0, id1, id2)}
        self.counter = {w: None for w in range(writers)}
        self.next_i = {w: 0 for w in range(writers)}
        self.acked = 0
        self.unacked_kept = 0
        self.unacked_lost = 0

    def apply(self, w, i, ids):
        if i % DELETE_EVERY == DELETE_EVERY - 1:
            self.present[w].pop(i - DELETE_BACK, None)
        self.present[w][i] = ids
        self.counter[w] = i


def _run_txn(session, w, i):
    """Runs transaction (w, i) up to (not including) COMMIT; returns the tx
    and the node ids the server assigned."""
    tx = session.begin_transaction()
    rec = tx.run(
        "CREATE (a:T {w: $w, i: $i, k: 0})-[:R {w: $w, i: $i}]->(b:T {w: $w, i: $i, k: 1}) "
        "CREATE (c:T {w: $w, i: $i, k: 2}) RETURN id(a) AS a, id(b) AS b, id(c) AS c",
        w=w, i=i,
    ).single()
    ids = (rec["a"], rec["b"], rec["c"])
    tx.run("MATCH (c:Counter {w: $w}) SET c.n = $i", w=w, i=i).consume()
    if i % DELETE_EVERY == DELETE_EVERY - 1:
        tx.run("MATCH (n:T {w: $w, i: $j}) DETACH DELETE n", w=w, j=i - DELETE_BACK).consume()
    return tx, ids


def _writer(uri, model, w, stop, outcome, lock):
    """Writes transactions until the server dies or `stop` is set. Sets
    outcome[w] to the attempted-but-unacknowledged transaction, if any."""
    drv = GraphDatabase.driver(uri, auth=("neo4j", "x"), max_connection_pool_size=1,
                               connection_timeout=2, connection_acquisition_timeout=5)
    try:
        with drv.session() as session:
            while not stop.is_set():
                i = model.next_i[w]
                committing = False
                try:
                    tx, ids = _run_txn(session, w, i)
                    committing = True
                    tx.commit()
                except Exception:
                    if committing:
                        outcome[w] = (i, ids)
                    return
                with lock:
                    model.apply(w, i, ids)
                    model.next_i[w] = i + 1
                    model.acked += 1
    except Exception:
        return
    finally:
        try:
            drv.close()
        except Exception:
            pass


def _read_state(uri):
    drv = GraphDatabase.driver(uri, auth=("neo4j", "x"))
    try:
        nodes, _, _ = drv.execute_query(
            "MATCH (n:T) RETURN n.w AS w, n.i AS i, n.k AS k, id(n) AS id, labels(n) AS l"
        )
        rels, _, _ = drv.execute_query(
            "MATCH (a:T)-[r]->(b) RETURN r.w AS w, r.i AS i, type(r) AS t, "
            "a.k AS ak, b.k AS bk, b.i AS bi, a.i AS ai"
        )
        counters, _, _ = drv.execute_query("MATCH (c:Counter) RETURN c.w AS w, c.n AS n")
        others, _, _ = drv.execute_query(
            "MATCH (n) WHERE NOT n:T AND NOT n:Counter RETURN count(n) AS c"
        )
        return nodes, rels, counters, others[0]["c"]
    finally:
        drv.close()


class Mismatch(AssertionError):
    pass


def _check(uri, model, pending):
    """Compares the server with the model, resolving each pending
    (unacknowledged) transaction as wholly present or wholly absent."""
    nodes, rels, counters, others = _read_state(uri)
    if others:
        raise Mismatch(f"{others} nodes that no transaction created")
    found = {}
    for r in nodes:
        found.setdefault((r["w"], r["i"]), {})[r["k"]] = r["id"]
        if r["l"] != ["T"]:
            raise Mismatch(f"node {r['id']} has labels {r['l']}")
    rel_of = {}
    for r in rels:
        if r["t"] != "R" or (r["ak"], r["bk"]) != (0, 1) or not (r["w"], r["i"]) == (r["w"], r["ai"]) == (r["w"], r["bi"]):
            raise Mismatch(f"unexpected relationship {dict(r)}")
        if (r["w"], r["i"]) in rel_of:
            raise Mismatch(f"two relationships for transaction {(r['w'], r['i'])}")
        rel_of[(r["w"], r["i"])] = True
    counter = {r["w"]: r["n"] for r in counters}

    for w, (i, ids) in pending.items():
        parts = found.get((w, i), {})
        deletes = i % DELETE_EVERY == DELETE_EVERY - 1 and (i - DELETE_BACK) in model.present[w]
        target_gone = deletes and (w, i - DELETE_BACK) not in found
        signs = [
            len(parts) == 3,
            (w, i) in rel_of,
            counter.get(w) == i,
        ] + ([target_gone] if deletes else [])
        if all(signs):
            if tuple(parts.get(k) for k in range(3)) != ids:
                raise Mismatch(f"unacknowledged txn {(w, i)} kept with ids {parts}, server said {ids}")
            model.apply(w, i, ids)
            model.next_i[w] = i + 1
            model.unacked_kept += 1
        elif not any(signs) and not parts:
            model.unacked_lost += 1
        else:
            raise Mismatch(
                f"unacknowledged transaction {(w, i)} is partly visible: nodes {parts}, "
                f"relationship {(w, i) in rel_of}, counter {counter.get(w)}, target deleted {target_gone if deletes else None}"
            )

    expected = {(w, i): ids for w in model.present for i, ids in model.present[w].items()}
    for key, ids in expected.items():
        parts = found.get(key, {})
        if tuple(parts.get(k) for k in range(3)) != ids:
            raise Mismatch(f"acknowledged transaction {key}: expected node ids {ids}, found {parts}")
        if key not in rel_of:
            raise Mismatch(f"acknowledged transaction {key}: relationship missing")
    extra = set(found) - set(expected)
    if extra:
        raise Mismatch(f"transactions present that the model does not have: {sorted(extra)[:10]}")
    extra_rels = set(rel_of) - set(expected)
    if extra_rels:
        raise Mismatch(f"relationships of absent transactions: {sorted(extra_rels)[:10]}")
    for w, n in model.counter.items():
        if counter.get(w) != n:
            raise Mismatch(f"counter of writer {w}: expected {n}, found {counter.get(w)}")


def run(binary, iterations, seed, writers=4, max_run_seconds=0.6, extra_args=(),
        checkpoint_every=0, log=print, workdir=None):
    """Runs the crash loop; raises `Mismatch` (with the seed) on any
    violation. Returns a summary dict."""
    rng = random.Random(seed)
    log(f"crash harness: seed {seed}, {iterations} iterations, {writers} writers")
    with tempfile.TemporaryDirectory(prefix="nereid-crash-", dir=workdir) as tmp:
        server = CrashServer(binary, os.path.join(tmp, "data"), os.path.join(tmp, "server.log"), extra_args)
        model = Model(writers)
        started = time.time()
        try:
            server.start()
            drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
            for w in range(writers):
                drv.execute_query("CREATE (:Counter {w: $w})", w=w)
            drv.close()
            for it in range(iterations):
                stop = threading.Event()
                outcome = {}
                lock = threading.Lock()
                threads = [
                    threading.Thread(target=_writer, args=(server.uri, model, w, stop, outcome, lock))
                    for w in range(writers)
                ]
                for t in threads:
                    t.start()
                delay = rng.uniform(0.02, max_run_seconds)
                if checkpoint_every and it % checkpoint_every == checkpoint_every - 1:
                    # Kill while (or right after) a checkpoint runs.
                    threading.Thread(target=_try_checkpoint, args=(server,), daemon=True).start()
                time.sleep(delay)
                server.kill9()
                stop.set()
                for t in threads:
                    t.join(timeout=60)
                server.start()
                try:
                    _check(server.uri, model, outcome)
                except Mismatch as e:
                    raise Mismatch(f"iteration {it} (seed {seed}): {e}\n--- server log tail ---\n{server.log_tail()}") from None
                if (it + 1) % 10 == 0 or it + 1 == iterations:
                    log(f"  iteration {it + 1}/{iterations}: {model.acked} acknowledged, "
                        f"{model.unacked_kept} unacknowledged kept, {model.unacked_lost} lost")
        finally:
            server.stop()
        log_text = open(server.log_path, "rb").read().decode("utf-8", "replace")
        summary = {
            "seed": seed,
            "iterations": iterations,
            "acknowledged": model.acked,
            "unacknowledged_kept": model.unacked_kept,
            "unacknowledged_lost": model.unacked_lost,
            "checkpoints_taken": log_text.count(" checkpoint trigger="),
            "restarts_from_a_checkpoint": log_text.count("loaded the checkpoint"),
            "torn_tails_truncated": log_text.count("truncating an incomplete record"),
            "seconds": round(time.time() - started, 1),
        }
        log(f"crash harness passed: {summary}")
        return summary


def _try_checkpoint(server):
    try:
        server.http_post("/admin/checkpoint")
    except Exception:
        pass


def main(argv=None):
    parser = argparse.ArgumentParser(description="kill -9 crash loop against a nereid binary")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=None, help="default: random, printed")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--max-run-seconds", type=float, default=0.6)
    parser.add_argument("--checkpoint-every", type=int, default=0,
                        help="every N-th iteration, request a checkpoint just before the kill")
    parser.add_argument("--binary", default=os.environ.get("NEREID_BIN"))
    parser.add_argument("server_args", nargs="*", help="extra nereid flags (after --)")
    args = parser.parse_args(argv)
    if not args.binary:
        parser.error("--binary or NEREID_BIN is required")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    try:
        run(args.binary, args.iterations, seed, writers=args.writers,
            max_run_seconds=args.max_run_seconds, extra_args=args.server_args,
            checkpoint_every=args.checkpoint_every)
    except Mismatch as e:
        print(f"CRASH HARNESS FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
