//! How a running kernel learns that its query was stopped (RESET, a
//! client gone, a transaction timeout): the caller passes a check, and the
//! kernel asks it between rounds (a BFS level, a PageRank iteration, a
//! delta-stepping bucket), never inside one, so a round's parallel work is
//! never torn and the cost is one call per round.

use crate::error::AlgorithmError;

/// A check asked between a kernel's rounds; `true` stops the kernel with
/// [`AlgorithmError::Stopped`].
#[derive(Clone, Copy)]
pub struct Stop<'a> {
    check: Option<&'a (dyn Fn() -> bool + Sync)>,
}

impl<'a> Stop<'a> {
    /// A kernel that runs to its end (tests, benches).
    pub const NEVER: Stop<'static> = Stop { check: None };

    pub fn new(check: &'a (dyn Fn() -> bool + Sync)) -> Stop<'a> {
        Stop { check: Some(check) }
    }

    /// Fails once the check says stop.
    pub fn check(&self) -> Result<(), AlgorithmError> {
        match self.check {
            Some(stopped) if stopped() => Err(AlgorithmError::Stopped),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Debug for Stop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.check.is_some() {
            "Stop(check)"
        } else {
            "Stop::NEVER"
        })
    }
}
