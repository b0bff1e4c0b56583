"""Self-tests of the Bolt TCK runner's parts that decide pass or fail without
a server: the value notation, structural matching, Gherkin table cells,
temporal string forms and the error check. Run by scripts/test-all before
the TCK itself (a runner that accepts anything would pass every case)."""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import errors  # noqa: E402
from features import split_cells  # noqa: E402
from temporal_text import duration_text  # noqa: E402
from values import NotationError, matches, parse, render, to_param  # noqa: E402


def test_scalars_keep_integer_and_float_apart():
    assert parse("1") == ("i", 1)
    assert parse("1.0") == ("f", 1.0)
    assert not matches(parse("1"), parse("1.0"))
    assert parse("-Infinity") == ("f", -math.inf)
    assert matches(parse("NaN"), ("f", math.nan))
    assert parse(".5") == ("f", 0.5) and parse("1e3") == ("f", 1000.0)


def test_strings_unescape_quotes_only():
    assert parse(r"'it\'s'") == ("s", "it's")
    assert parse(r"'a\nb'") == ("s", "a\\nb")


def test_entities_compare_by_labels_and_properties():
    a = parse("(:B:A {name: 'x', n: [1, 2]})")
    assert matches(a, ("n", frozenset({"A", "B"}), {"n": ("l", [("i", 1), ("i", 2)]), "name": ("s", "x")}))
    assert not matches(a, parse("(:A {name: 'x', n: [1, 2]})"))
    assert not matches(parse("[:T {k: 1}]"), parse("[:T {k: 2}]"))


def test_paths_keep_direction():
    forward = parse("<(:A)-[:T]->(:B)>")
    assert render(forward) == "<(:A)-[:T]->(:B)>"
    assert not matches(forward, parse("<(:A)<-[:T]-(:B)>"))


def test_list_order_matters_unless_ignored():
    assert not matches(parse("[1, 2]"), parse("[2, 1]"))
    assert matches(parse("[1, 2, 2]"), parse("[2, 1, 2]"), ignore_list_order=True)
    assert not matches(parse("[1, 1, 2]"), parse("[2, 1, 2]"), ignore_list_order=True)


def test_entities_are_not_parameters():
    assert to_param(parse("{a: [1, 'x', null]}")) == {"a": [1, "x", None]}
    try:
        to_param(parse("(:A)"))
    except NotationError:
        pass
    else:
        raise AssertionError("a node became a parameter")


def test_table_cells_unescape_as_gherkin_does():
    assert split_cells(r"| 'a\|b' | 'c\\d' | 'e\'f' |") == ["'a|b'", "'c\\d'", "'e\\'f'"]


def test_duration_text():
    assert duration_text(0, 0, 0, 0) == "PT0S"
    assert duration_text(0, 14, 58320, 0) == "P14DT16H12M"
    assert duration_text(0, 1, 0, -1_000_000) == "P1DT-0.001S"
    assert duration_text(-154, -43, -65343, -500000003) == "P-12Y-10M-43DT-18H-9M-3.500000003S"


def test_error_check_strict_and_lenient():
    want = errors.ExpectedError.parse("a TypeError should be raised at runtime: InvalidArgumentType")
    code = "Neo.ClientError.Statement.TypeError"
    assert errors.check(want, errors.RUNTIME, code, "error: InvalidArgumentType: no", strict=True) is None
    assert errors.check(want, errors.COMPILE, code, "error: InvalidArgumentType: no", strict=True)
    assert errors.check(want, errors.RUNTIME, code, "Type mismatch", strict=True)
    assert errors.check(want, errors.COMPILE, code, "Type mismatch", strict=False) is None
    assert errors.check(want, errors.RUNTIME, "Neo.ClientError.Statement.SyntaxError", "x", strict=False)
    catch_all = errors.ExpectedError.parse("an Error should be raised at any time: *")
    assert errors.check(catch_all, errors.COMPILE, "Neo.ClientError.Statement.SyntaxError", "x", True) is None
    assert errors.check(catch_all, errors.RUNTIME, "Neo.DatabaseError.General.UnknownError", "x", True)


def test_named_zones_come_from_current_iana_data():
    # Current IANA data links Stockholm to Berlin (local mean time +00:53:28 in 1818), as the TCK
    # expects; a backzone build (Debian's system files) gives Stockholm's own +01:12:12.
    import datetime as dt

    from driver_precision import iana_zone

    wall_clock = dt.datetime(1818, 7, 21, 21, 40, 32, tzinfo=iana_zone("Europe/Stockholm"))
    assert wall_clock.utcoffset() == dt.timedelta(minutes=53, seconds=28)
