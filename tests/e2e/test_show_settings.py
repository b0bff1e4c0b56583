"""`SHOW SETTINGS [names] [YIELD ...] [WHERE ...]` (issue 29): the server's settings under the keys
of its configuration file, with Neo4j 5.26's columns (five by default, nine with YIELD *), the
value in effect, the default, and the flag's help as the description; the password never shows."""

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import Server

DEFAULT = ["name", "value", "isDynamic", "defaultValue", "description"]


def test_settings_show_values_defaults_and_descriptions(tmp_path):
    server = Server(str(tmp_path / "data"),
                    extra_args=("--slow-query-ms", "250", "--query-log", str(tmp_path / "q.log")),
                    extra_env={"NEREID_AUTH": "neo4j/secret-password"})
    server.start()
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", "secret-password")) as driver:
            records, summary, keys = driver.execute_query("SHOW SETTINGS")
            assert keys == DEFAULT
            by_name = {r["name"]: r for r in records}
            assert [r["name"] for r in records] == sorted(by_name)
            assert by_name["bolt_address"]["value"] == f"127.0.0.1:{server.bolt_port}"
            assert by_name["bolt_address"]["defaultValue"] == "127.0.0.1:7687"
            assert "Bolt" in by_name["bolt_address"]["description"]
            assert by_name["slow_query_ms"]["value"] == "250"
            assert by_name["slow_query_ms"]["defaultValue"] == "0"
            assert by_name["auth"]["value"] == "********"
            assert "secret-password" not in str(records)
            assert all(r["isDynamic"] is False for r in records)

            records, _, keys = driver.execute_query(
                "SHOW SETTINGS 'slow_query_ms', 'partitions' "
                "YIELD name, startupValue, isExplicitlySet "
                "WHERE isExplicitlySet RETURN name, startupValue")
            assert [r.data() for r in records] == [{"name": "slow_query_ms",
                                                    "startupValue": "250"}]
            _, _, keys = driver.execute_query("SHOW SETTINGS YIELD *")
            assert keys == DEFAULT + ["startupValue", "isExplicitlySet", "validValues",
                                      "isDeprecated"]
            records, _, _ = driver.execute_query("SHOW SETTING $n YIELD name, value", n="log")
            assert [r["name"] for r in records] == ["log"]
            with pytest.raises(ClientError):
                driver.execute_query("SHOW SETTINGS 1")
    finally:
        server.stop()
