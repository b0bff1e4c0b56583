"""Exact time zone offsets for the Python driver's temporal values.

The driver (6.x) hydrates offsets through pytz `FixedOffset(minutes)`, so an
offset with seconds (`+02:05:59`, which the TCK constructs) loses them and
shifts the wall clock; named zones go through pytz, whose historical offsets
are rounded to minutes (Stockholm's 1818 `+00:53:28` becomes `+00:53`). The
server sent the exact values, so the runner replaces the hydration of the
three offset-carrying structures (Time `T`, DateTime `I`, DateTimeZoneId
`i`) with functions that keep every second: the wall clock is computed here
from the UTC seconds and the exact offset (from the structure, or for a named
zone from the current IANA data of the PyPI `tzdata` package, never the
system's: Debian builds its tzdata with the pre-1970 "backzone" history, so
Europe/Stockholm in 1818 would be +01:12:12 there, while the TCK, like Java's
tzdb and the default IANA build, links Stockholm to Berlin: +00:53:28). Only
this runner process is affected; the values are still the driver's
`neo4j.time` types.

Installed by `install()` before the driver opens a connection (every
connection builds its hydration table from these module functions)."""

import datetime as _dt
import functools
import importlib.resources
from zoneinfo import ZoneInfo

import neo4j.time as nt
from neo4j._codec.hydration.bolt.v1 import temporal as temporal_v1
from neo4j._codec.hydration.bolt.v2 import temporal as temporal_v2

_original_time = temporal_v1.hydrate_time
_original_datetime = temporal_v2.hydrate_datetime


@functools.lru_cache(maxsize=None)
def iana_zone(name):
    """The zone `name` from the `tzdata` package's database (KeyError when it
    has no such zone). Read from the package explicitly rather than through
    `zoneinfo`'s search path, which prefers the system's files."""
    try:
        resource = importlib.resources.files("tzdata.zoneinfo").joinpath(*name.split("/"))
        with resource.open("rb") as data:
            return ZoneInfo.from_file(data, key=name)
    except ModuleNotFoundError as missing:
        raise RuntimeError("the TCK over Bolt needs the PyPI package `tzdata` (pip install tzdata)") from missing
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, ValueError) as unknown:
        raise KeyError(name) from unknown


class ExactOffset(_dt.tzinfo):
    """A fixed offset to the second, optionally carrying the IANA zone name it
    was taken from (`key`, as zoneinfo names it)."""

    def __init__(self, seconds, key=None):
        self._offset = _dt.timedelta(seconds=seconds)
        self.key = key

    def utcoffset(self, _dt_value):
        return self._offset

    def dst(self, _dt_value):
        return None

    def tzname(self, _dt_value):
        return self.key

    def fromutc(self, value):
        return value + self._offset


def _wall_clock(local_seconds, nanoseconds, tz):
    days, rest = divmod(local_seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    date = nt.Date.from_ordinal(_dt.date(1970, 1, 1).toordinal() + days)
    return nt.DateTime(date.year, date.month, date.day, hours, minutes, seconds, nanoseconds, tzinfo=tz)


def hydrate_time(nanoseconds, tz=None):
    if tz is None:
        return _original_time(nanoseconds)
    seconds, ns = divmod(nanoseconds, 1_000_000_000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return nt.Time(hours, minutes, seconds, ns, tzinfo=ExactOffset(tz))


def hydrate_datetime(seconds, nanoseconds, tz=None):
    if tz is None:
        return _original_datetime(seconds, nanoseconds)
    if isinstance(tz, int):
        offset, key = tz, None
    else:
        try:
            zone = iana_zone(tz)
            instant = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(seconds=seconds)
            offset, key = int(instant.astimezone(zone).utcoffset().total_seconds()), tz
        except (OverflowError, ValueError, KeyError, OSError):
            return _original_datetime(seconds, nanoseconds, tz)
    return _wall_clock(seconds + offset, nanoseconds, ExactOffset(offset, key))


def install():
    iana_zone("Europe/Berlin")  # fails now, loudly, if `tzdata` is not installed
    temporal_v1.hydrate_time = hydrate_time
    temporal_v2.hydrate_datetime = hydrate_datetime
