//! Transaction timeouts: the deadline a transaction gets when it starts
//! (BEGIN, or RUN for auto-commit), from the client's `tx_timeout` or the
//! server's `--transaction-timeout`.
//!
//! As with Neo4j, a client's timeout *replaces* the server's default (it
//! may be longer or shorter, and `0` means no limit). The executor checks
//! the deadline where it checks the cancel flag, so a query past it stops
//! within a batch; between the statements of an explicit transaction the
//! session checks it itself at RUN and COMMIT
//! (docs/adr/0087-transaction-timeouts.md).

use super::{Handled, Session};
use crate::bolt::backend::Backend;
use crate::bolt::failure::Failure;
use nereid_dfe::{Deadline, TimeoutOrigin};
use nereid_packstream::{PackMap, PackValue};
use std::time::{Duration, Instant};

/// The deadline of a transaction starting at `start`: `extra`'s
/// `tx_timeout` (milliseconds; absent or null: the server's `default`).
/// Anything but a non-negative integer is `Request.Invalid`.
pub(super) fn deadline_at(
    extra: &PackMap,
    default: Option<Duration>,
    start: Instant,
) -> Result<Option<Deadline>, Failure> {
    match extra.get("tx_timeout") {
        None | Some(PackValue::Null) => {
            Ok(default.map(|limit| Deadline::after(start, limit, TimeoutOrigin::Server)))
        }
        Some(PackValue::Int(0)) => Ok(None),
        Some(PackValue::Int(ms)) if *ms > 0 => Ok(Some(Deadline::after(
            start,
            Duration::from_millis(ms.unsigned_abs()),
            TimeoutOrigin::Client,
        ))),
        Some(other) => Err(Failure::invalid_request(format!(
            "tx_timeout must be a non-negative integer of milliseconds, got {}",
            describe(other)
        ))),
    }
}

/// A rejected value in a message: a negative number itself, otherwise
/// its type (never the contents a client sent).
fn describe(value: &PackValue) -> String {
    match value {
        PackValue::Int(n) => n.to_string(),
        other => format!("a {}", other.type_name()),
    }
}

impl<B: Backend> Session<B> {
    /// Fails with the timeout status once the open transaction's deadline
    /// has passed (checked between its statements and at COMMIT).
    pub(super) fn check_tx_deadline(&self) -> Handled {
        if let Some(deadline) = &self.tx_deadline {
            deadline
                .check()
                .map_err(|e| Failure::from(nereid_engine::from_exec(e)))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_errors::Status;

    fn with_timeout(value: PackValue) -> PackMap {
        PackMap::new().with("tx_timeout", value)
    }

    #[test]
    fn the_clients_timeout_replaces_the_servers_default() {
        let start = Instant::now();
        let server = Some(Duration::from_secs(10));
        let none = deadline_at(&PackMap::new(), server, start)
            .unwrap()
            .unwrap();
        assert_eq!(none.origin(), TimeoutOrigin::Server);
        assert_eq!(none.limit(), Duration::from_secs(10));
        let null = deadline_at(&with_timeout(PackValue::Null), server, start).unwrap();
        assert_eq!(null, Some(none));
        // Longer than the server's default: still the client's.
        let longer = deadline_at(&with_timeout(PackValue::Int(60_000)), server, start)
            .unwrap()
            .unwrap();
        assert_eq!(longer.origin(), TimeoutOrigin::Client);
        assert_eq!(longer.limit(), Duration::from_secs(60));
        // 0 from the client: no limit at all.
        assert_eq!(
            deadline_at(&with_timeout(PackValue::Int(0)), server, start).unwrap(),
            None
        );
        assert_eq!(deadline_at(&PackMap::new(), None, start).unwrap(), None);
    }

    #[test]
    fn a_timeout_that_is_not_a_non_negative_integer_is_an_invalid_request() {
        for bad in [
            PackValue::Int(-1),
            PackValue::Float(1.5),
            PackValue::String("1000".into()),
            PackValue::Bool(true),
            PackValue::List(vec![]),
        ] {
            let failure =
                deadline_at(&with_timeout(bad.clone()), None, Instant::now()).expect_err("refused");
            assert_eq!(failure.status, Status::RequestInvalid, "{bad:?}");
        }
    }
}
