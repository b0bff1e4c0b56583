//! Temporal values in both directions: every temporal type neo4rs 0.8 has
//! (Date, Time with offset, LocalTime, DateTime with offset, DateTime with a
//! zone id, LocalDateTime, Duration; Bolt 4.x, so the legacy DateTime
//! structures) sent as parameters, read back as the chrono values sent, and
//! printed by the server with toString, which shows that the server read
//! the wire form as neo4rs meant it.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
use neo4rs::{query, BoltDuration, BoltType, Graph, Row};

use crate::support::{ensure, single, Checked, Context, Outcome};

fn value(row: &Row, key: &str) -> Result<BoltType, String> {
    row.get::<BoltType>(key).context(key)
}

fn expect<T: PartialEq + std::fmt::Debug>(key: &str, got: T, sent: &T) -> Result<(), String> {
    ensure(&got == sent, || {
        format!("{key}: sent {sent:?}, got {got:?}")
    })
}

pub async fn round_trip(graph: &Graph) -> Checked {
    let hours = |h: i32| FixedOffset::east_opt(h * 3600).ok_or("offset");
    let date = NaiveDate::from_ymd_opt(2015, 7, 21).ok_or("date")?;
    let local_time = NaiveTime::from_hms_milli_opt(21, 40, 32, 142).ok_or("time")?;
    let time = (
        NaiveTime::from_hms_opt(21, 40, 32).ok_or("time")?,
        hours(1)?,
    );
    let local = date.and_time(local_time);
    let offset: DateTime<FixedOffset> =
        DateTime::parse_from_rfc3339("2015-07-21T21:40:32-05:00").context("datetime")?;
    let zoned_local: NaiveDateTime = NaiveDate::from_ymd_opt(2015, 1, 21)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .ok_or("zoned")?;
    let duration = BoltDuration::new(14.into(), 3.into(), 14706.into(), 500_000_000.into());
    let q = query(
        "RETURN $date AS date, $lt AS lt, $t AS t, $ldt AS ldt, $odt AS odt, $zdt AS zdt, \
         $dur AS dur, [toString($date), toString($lt), toString($t), toString($ldt), \
         toString($odt), toString($zdt), toString($dur)] AS texts, \
         $date + duration('P1D') AS next, time('21:40:32+01:00') AS serverTime",
    )
    .param("date", date)
    .param("lt", local_time)
    .param("t", time)
    .param("ldt", local)
    .param("odt", offset)
    .param("zdt", (zoned_local, "Europe/Stockholm"))
    .param("dur", BoltType::Duration(duration));
    let row = single(graph, q).await?;

    expect(
        "date",
        NaiveDate::try_from(value(&row, "date")?).context("date")?,
        &date,
    )?;
    let lt = <(NaiveTime, Option<FixedOffset>)>::try_from(value(&row, "lt")?).context("lt")?;
    expect("lt", lt, &(local_time, None))?;
    let t = <(NaiveTime, Option<FixedOffset>)>::try_from(value(&row, "t")?).context("t")?;
    expect("t", t, &(time.0, Some(time.1)))?;
    expect(
        "ldt",
        NaiveDateTime::try_from(value(&row, "ldt")?).context("ldt")?,
        &local,
    )?;
    let odt = DateTime::<FixedOffset>::try_from(value(&row, "odt")?).context("odt")?;
    expect(
        "odt",
        (odt, odt.offset().local_minus_utc()),
        &(offset, -5 * 3600),
    )?;
    let zdt = <(NaiveDateTime, String)>::try_from(value(&row, "zdt")?).context("zdt")?;
    expect("zdt", zdt, &(zoned_local, "Europe/Stockholm".to_string()))?;
    // neo4rs reads a Duration only as a std Duration, months counted as
    // 2,629,800 s and days as 86,400 s; the server's toString below shows
    // the four fields separately.
    let dur: std::time::Duration = row.get("dur").context("dur")?;
    let seconds = 14 * 2_629_800 + 3 * 86_400 + 14_706;
    expect("dur", dur, &std::time::Duration::new(seconds, 500_000_000))?;
    let next = NaiveDate::try_from(value(&row, "next")?).context("next")?;
    expect("next", next, &date.succ_opt().ok_or("succ")?)?;
    let server_time = <(NaiveTime, Option<FixedOffset>)>::try_from(value(&row, "serverTime")?)
        .context("serverTime")?;
    expect("serverTime", server_time, &(time.0, Some(time.1)))?;

    let texts: Vec<String> = row.get("texts").context("texts")?;
    let expected = [
        "2015-07-21",
        "21:40:32.142",
        "21:40:32+01:00",
        "2015-07-21T21:40:32.142",
        "2015-07-21T21:40:32-05:00",
        "2015-01-21T12:00:00+01:00[Europe/Stockholm]",
        "P1Y2M3DT4H5M6.5S",
    ];
    ensure(texts == expected, || {
        format!("the server read them as {texts:?}, expected {expected:?}")
    })?;
    Ok(Outcome::Passed(None))
}
