"""Temporal values over Bolt with the official Python driver: results arrive
as the driver's date/time/duration types, and the driver's (and Python's
native) temporal values are accepted as parameters and stored."""

import datetime as dt

import pytz
from neo4j.time import Date, DateTime, Duration, Time


def test_temporal_results_arrive_as_driver_types(driver):
    records, _, _ = driver.execute_query(
        "RETURN date('2015-07-21') AS d, localtime('21:40:32.142') AS lt, "
        "time('21:40:32+01:00') AS t, localdatetime('2015-07-21T21:40:32.142') AS ldt, "
        "datetime('2015-07-21T21:40:32.142+01:00') AS odt, "
        "datetime('2015-07-21T21:40:32.142[Europe/Stockholm]') AS zdt, "
        "duration('P1Y2M3DT4H5M6.5S') AS dur"
    )
    r = records[0]
    assert r["d"] == Date(2015, 7, 21)
    assert r["lt"] == Time(21, 40, 32, 142_000_000)
    assert r["t"].utc_offset() == dt.timedelta(hours=1)
    assert (r["t"].hour, r["t"].minute, r["t"].second) == (21, 40, 32)
    assert r["ldt"] == DateTime(2015, 7, 21, 21, 40, 32, 142_000_000)
    assert r["odt"].to_native() == dt.datetime(
        2015, 7, 21, 21, 40, 32, 142000, tzinfo=dt.timezone(dt.timedelta(hours=1))
    )
    zdt = r["zdt"]
    assert zdt.tzinfo is not None
    assert zdt.utcoffset() == dt.timedelta(hours=2)  # summer time in Stockholm
    assert (zdt.year, zdt.hour, zdt.minute) == (2015, 21, 40)
    dur = r["dur"]
    assert isinstance(dur, Duration)
    assert (dur.months, dur.days, dur.seconds, dur.nanoseconds) == (14, 3, 14706, 500_000_000)


def test_temporal_parameters_round_trip(driver):
    params = {
        "d": dt.date(1984, 10, 11),
        "odt": dt.datetime(2015, 7, 21, 21, 40, 32, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
        # pytz, as the driver documents (a zoneinfo tzinfo crashed driver 6.4 here).
        "zdt": pytz.timezone("Europe/Stockholm").localize(dt.datetime(2015, 1, 21, 12, 0)),
        "ldt": dt.datetime(2015, 7, 21, 21, 40, 32),
        "dur": Duration(days=1, hours=2),
    }
    records, _, _ = driver.execute_query(
        "RETURN toString($d) AS d, toString($odt) AS odt, toString($zdt) AS zdt, "
        "toString($ldt) AS ldt, toString($dur) AS dur, $d + $dur AS next, "
        "$odt.offsetMinutes AS offset",
        params,
    )
    assert records[0].data() == {
        "d": "1984-10-11",
        "odt": "2015-07-21T21:40:32-05:00",
        "zdt": "2015-01-21T12:00:00+01:00[Europe/Stockholm]",  # seconds always, as Neo4j 5
        "ldt": "2015-07-21T21:40:32",
        "dur": "P1DT2H",
        "next": Date(1984, 10, 12),
        "offset": -300,
    }


def test_temporal_properties_are_stored_and_compared(driver):
    driver.execute_query(
        "UNWIND $days AS day CREATE (:Day {on: day, took: $took})",
        {"days": [dt.date(2020, 1, 3), dt.date(2020, 1, 1), dt.date(2020, 1, 2)], "took": Duration(minutes=90)},
    )
    records, _, _ = driver.execute_query(
        "MATCH (x:Day) WHERE x.on > date('2020-01-01') RETURN x.on AS day, x.took AS took ORDER BY day"
    )
    assert [r["day"] for r in records] == [Date(2020, 1, 2), Date(2020, 1, 3)]
    assert records[0]["took"] == Duration(minutes=90)
