"""The openCypher TCK over Bolt, with the official Python driver.

    python tests/tck-bolt/run.py [--uri bolt://...] [--lenient]
        [--expectations FILE] [--bless] [--filter TEXT] [--verbose]

Without --uri it starts `$NEREID_BIN` on free loopback ports with a
temporary data directory (one server for the whole run; the graph is
cleared before each case) and stops it at the end. Features come from
`$TCK_DIR/features` (or `$TCK_DIR` itself when it has no `features`
folder; default `<repo>/../shared/tck`), named graphs from `<tck>/graphs`.

Prints `TCK over Bolt: P passed, F failed, S skipped of N` and a table by
folder. Exit status 1 when a case fails that the expectations file does not
list; `--bless` (or NEREID_TCK_BOLT_BLESS=1) rewrites the file from this run
instead. See README.md for the matching rules and the reference numbers."""

import argparse
import logging
import os
import signal
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

from neo4j import GraphDatabase  # noqa: E402

from case_runner import Outcome, run_case  # noqa: E402
from driver_precision import install as exact_offsets  # noqa: E402
from expectations import bless, load  # noqa: E402
from features import cases_of, feature_files  # noqa: E402


def tck_dirs():
    tck = os.environ.get("TCK_DIR") or os.path.join(ROOT, "..", "shared", "tck")
    features = os.path.join(tck, "features")
    if not os.path.isdir(features):
        features = tck
        tck = os.path.dirname(os.path.normpath(tck))
    return features, os.path.join(tck, "graphs")


CASE_LIMIT_SECONDS = 120


class CaseTimedOut(Exception):
    pass


def _alarm(_signum, _frame):
    raise CaseTimedOut()


def run_guarded(case, driver, graphs_dir, strict):
    """A case that hangs (a server that never answers) fails after
    CASE_LIMIT_SECONDS instead of stalling the whole run; a guard, not a
    performance check: the slowest case takes well under a second."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_LIMIT_SECONDS)
    try:
        return run_case(case, driver, graphs_dir, strict)
    except CaseTimedOut:
        return Outcome("failed", f"runner: no answer within {CASE_LIMIT_SECONDS} s", "the server did not answer")
    finally:
        signal.alarm(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--uri", help="a running server; default: start $NEREID_BIN")
    ap.add_argument("--lenient", action="store_true",
                    help="reference-server mode: error phase from the status family, detail names unchecked (Neo4j)")
    ap.add_argument("--expectations", default=os.path.join(HERE, "expected-failures.txt"))
    ap.add_argument("--bless", action="store_true", default=os.environ.get("NEREID_TCK_BOLT_BLESS", "0") not in ("", "0"))
    ap.add_argument("--filter", default="", help="run only cases whose name contains this")
    ap.add_argument("--verbose", action="store_true", help="print every failure, expected or not")
    args = ap.parse_args()

    features_dir, graphs_dir = tck_dirs()
    if not os.path.isdir(features_dir):
        print(f"\n!!!!!!!!!!\nWARNING: no openCypher TCK at {features_dir} (set TCK_DIR); NOT run.\n!!!!!!!!!!\n")
        return 0
    cases = [c for rel in feature_files(features_dir) for c in cases_of(features_dir, rel)]
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        print("runner: two cases share a name", file=sys.stderr)
        return 2
    total = len(cases)
    cases = [c for c in cases if args.filter in c.name]
    expected = load(args.expectations)

    server = None
    tmp = None
    uri = args.uri
    if uri is None:
        from nereid_process import NereidProcess

        binary = os.environ.get("NEREID_BIN")
        if not binary:
            print("NEREID_BIN must name the nereid binary (or pass --uri)", file=sys.stderr)
            return 2
        tmp = tempfile.TemporaryDirectory(prefix="nereid-tck-bolt-")
        server = NereidProcess(binary, os.path.join(tmp.name, "data"), os.path.join(tmp.name, "server.log"))
        server.start()
        uri = server.uri
    exact_offsets()
    # Servers warn about unknown labels and the like; the TCK does not check notifications.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    driver = GraphDatabase.driver(uri, auth=("neo4j", "tck-bolt"))
    try:
        results = []
        for case in cases:
            outcome = run_guarded(case, driver, graphs_dir, strict=not args.lenient)
            results.append((case, outcome))
    finally:
        driver.close()
        if server is not None:
            server.stop()
            tmp.cleanup()

    return report(results, total, expected, args)


def report(results, total, expected, args):
    by_folder = defaultdict(lambda: [0, 0, 0])
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    unexpected, newly_passing = [], []
    for case, outcome in results:
        counts[outcome.status] += 1
        by_folder[case.folder][["passed", "failed", "skipped"].index(outcome.status)] += 1
        if outcome.status == "failed" and (args.verbose or case.name not in expected):
            unexpected.append((case, outcome))
        if outcome.status == "passed" and case.name in expected:
            newly_passing.append(case.name)
    for case, outcome in unexpected:
        tag = "" if case.name not in expected else " (expected)"
        print(f"FAILED{tag} {case.name} [{outcome.reason}]\n  {outcome.message}\n")
    print(f"{'folder':<14}{'passed':>8}{'failed':>8}{'skipped':>9}")
    for folder in sorted(by_folder):
        p, f, s = by_folder[folder]
        print(f"{folder:<14}{p:>8}{f:>8}{s:>9}")
    ran = len(results)
    suffix = "" if ran == total else f" (filtered from {total})"
    print(f"TCK over Bolt: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped of {ran}{suffix}")
    if args.bless:
        failing = {c.name: o.reason for c, o in results if o.status == "failed"}
        n = bless(args.expectations, expected, {c.name for c, _ in results}, failing)
        print(f"blessed {args.expectations}: {n} expected failures")
        return 0
    if newly_passing:
        print(f"{len(newly_passing)} listed case(s) now pass; rerun with --bless to shrink the list:")
        for name in newly_passing:
            print(f"  {name}")
    really_unexpected = [c for c, _ in unexpected if c.name not in expected]
    if really_unexpected:
        print(f"{len(really_unexpected)} case(s) failed that {args.expectations} does not list")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
