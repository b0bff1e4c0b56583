"""`--log-format json` (issue 29): every line the server writes to standard output is one JSON
object a log collector can parse (timestamp, level, target, fields.message), from start to the
clean shutdown; the default stays human-readable text."""

import json

from neo4j import GraphDatabase

from conftest import Server


def served_log(tmp_path, *args):
    server = Server(str(tmp_path / "data"), extra_args=args)
    server.start()
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver:
            driver.execute_query("CREATE (:Logged) RETURN 1")
    finally:
        server.stop()
    with open(tmp_path / "server.log") as f:
        return [line for line in f.read().splitlines() if line.strip()]


def test_json_lines_from_start_to_shutdown(tmp_path):
    lines = served_log(tmp_path, "--log-format", "json")
    assert len(lines) >= 2, lines
    events = [json.loads(line) for line in lines]
    for event in events:
        assert {"timestamp", "level", "target", "fields"} <= event.keys(), event
        assert event["level"] in {"TRACE", "DEBUG", "INFO", "WARN", "ERROR"}
    messages = " ".join(e["fields"].get("message", "") for e in events)
    assert "bolt" in messages.lower(), messages


def test_text_is_the_default(tmp_path):
    lines = served_log(tmp_path)
    assert lines and not any(line.startswith("{") for line in lines), lines
    assert any(" INFO " in line for line in lines), lines
