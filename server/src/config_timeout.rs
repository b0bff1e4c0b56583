//! `--transaction-timeout`: the server's default limit on how long a
//! transaction may run (Neo4j's `db.transaction.timeout`). A client's own
//! `tx_timeout` replaces it for its transaction, as with Neo4j
//! (docs/adr/0087-transaction-timeouts.md).
//!
//! Written as a duration with its unit (`500ms`, `30s`, `5m`, `1h`), so
//! that nobody has to guess whether a bare number means seconds, as
//! Neo4j's setting does, or milliseconds, as the other `_ms` settings here
//! do; only `0` (no limit) needs none.

use super::ConfigError;
use std::time::Duration;

/// The setting's name in errors and in the TOML file.
const NAME: &str = "transaction_timeout";

/// The server's default transaction timeout from the flag or environment
/// (`cli`) over the file; `None`: no limit (the default, and `0`).
pub fn resolve(cli: Option<&str>, file: Option<&str>) -> Result<Option<Duration>, ConfigError> {
    let Some(text) = cli.or(file) else {
        return Ok(None);
    };
    let limit = parse_duration(text).map_err(|message| ConfigError::Invalid {
        name: NAME,
        message,
    })?;
    Ok((!limit.is_zero()).then_some(limit))
}

/// `0`, or a whole number followed by `ms`, `s`, `m` or `h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let expected =
        || format!("expected 0 or a duration such as 500ms, 30s, 5m or 1h, got {text:?}");
    let number: u64 = number.parse().map_err(|_| expected())?;
    let millis_per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(expected()),
    };
    number
        .checked_mul(millis_per_unit)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("{text:?} is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit_except_zero() {
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration(" 5m "), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in [
            "",
            "30",
            "-1s",
            "1.5s",
            "s",
            "10 s",
            "10d",
            "99999999999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn the_flag_wins_over_the_file_and_zero_is_no_limit() {
        assert_eq!(resolve(None, None).unwrap(), None);
        assert_eq!(resolve(Some("0"), Some("10s")).unwrap(), None);
        assert_eq!(
            resolve(Some("2s"), Some("10s")).unwrap(),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            resolve(None, Some("10s")).unwrap(),
            Some(Duration::from_secs(10))
        );
        let error = resolve(Some("ten"), None).unwrap_err().to_string();
        assert!(error.contains("transaction_timeout"), "{error}");
    }
}
