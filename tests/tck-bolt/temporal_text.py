"""Temporal values received over Bolt, written as Cypher's `toString` writes
them, because that is how the TCK's result tables state temporal results
(`'2015-07-21T20:40:32.142+01:00'`).

The forms (those of ISO 8601 as Java prints them, which the TCK follows):
- fractions of a second in groups of 3, 6 or 9 digits (`.645`, `.000001`,
  `.000000002`), omitted when zero; seconds omitted when they and the
  fraction are zero (`12:00`);
- offsets `Z` or `+HH:MM[:SS]`; a named zone adds `[Europe/Stockholm]`;
- years outside 0000..9999 carry a sign and at least four digits;
- durations `P1Y2M3DT4H5M6.5S`, each component with its own sign, seconds'
  fraction with trailing zeros dropped, `PT0S` when zero.
"""

import datetime

import neo4j.time as nt


def _fraction_grouped(ns):
    if ns == 0:
        return ""
    if ns % 1_000_000 == 0:
        return f".{ns // 1_000_000:03d}"
    if ns % 1_000 == 0:
        return f".{ns // 1_000:06d}"
    return f".{ns:09d}"


def _clock(hour, minute, second, ns):
    out = f"{hour:02d}:{minute:02d}"
    if second or ns:
        out += f":{second:02d}{_fraction_grouped(ns)}"
    return out


def _offset(delta):
    total = int(delta.total_seconds())
    if total == 0:
        return "Z"
    sign = "+" if total > 0 else "-"
    total = abs(total)
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def _year(y):
    if 0 <= y <= 9999:
        return f"{y:04d}"
    return ("+" if y > 0 else "-") + f"{abs(y):04d}"


def _date(d):
    return f"{_year(d.year)}-{d.month:02d}-{d.day:02d}"


def _zone_name(tz):
    for attr in ("zone", "key"):
        name = getattr(tz, attr, None)
        if isinstance(name, str) and name:
            return name
    return None


def _utc_offset(v):
    """The offset from the tzinfo itself: the driver's own `utcoffset()`
    refuses offsets that are not whole minutes."""
    try:
        return v.tzinfo.utcoffset(v)
    except (TypeError, ValueError):
        return v.utcoffset()


def _time_of(v):
    return _clock(v.hour, v.minute, v.second, v.nanosecond)


def text_of(v):
    """The Cypher string form of a driver temporal value, or None when `v` is
    not temporal."""
    if isinstance(v, nt.DateTime):
        base = f"{_date(v)}T{_time_of(v)}"
        if v.tzinfo is None:
            return base
        out = base + _offset(_utc_offset(v))
        name = _zone_name(v.tzinfo)
        # The driver hydrates a zero offset as pytz's `UTC` zone, so a bare
        # `UTC` cannot be told from an offset; region names have a slash.
        if name and "/" in name:
            out += f"[{name}]"
        return out
    if isinstance(v, nt.Date):
        return _date(v)
    if isinstance(v, nt.Time):
        base = _time_of(v)
        if v.tzinfo is None:
            return base
        return base + _offset(_utc_offset(v))
    if isinstance(v, nt.Duration):
        return duration_text(v.months, v.days, v.seconds, v.nanoseconds)
    if isinstance(v, (datetime.date, datetime.time, datetime.timedelta)):
        return str(v)
    return None


def _trunc_div(a, b):
    q = abs(a) // b
    return q if a >= 0 else -q


def duration_text(months, days, seconds, nanoseconds):
    total_ns = seconds * 1_000_000_000 + nanoseconds
    if months == 0 and days == 0 and total_ns == 0:
        return "PT0S"
    out = "P"
    years, rest_months = _trunc_div(months, 12), months - _trunc_div(months, 12) * 12
    for n, unit in ((years, "Y"), (rest_months, "M"), (days, "D")):
        if n:
            out += f"{n}{unit}"
    if total_ns:
        out += "T"
        negative = total_ns < 0
        mag = abs(total_ns)
        secs, ns = divmod(mag, 1_000_000_000)
        hours, secs = divmod(secs, 3600)
        minutes, secs = divmod(secs, 60)
        sign = "-" if negative else ""
        if hours:
            out += f"{sign}{hours}H"
        if minutes:
            out += f"{sign}{minutes}M"
        if secs or ns:
            frac = f".{ns:09d}".rstrip("0") if ns else ""
            out += f"{sign}{secs}{frac}S"
    return out
