//! The per-partition choice between an index scan and a relation scan.
//!
//! Cost model (in units of "one tuple read sequentially"): an index scan of
//! a grid cell costs `probes * (PROBE + degree)` where `probes` is the number
//! of frontier vertices that fall in the cell's row (or column) and
//! `degree` the cell's average adjacency-list length, each list entry being
//! a random access (`RANDOM` sequential reads); a relation scan costs the
//! cell's tuple count. The constants reflect the measured gap between
//! dependent random and sequential access on this class of machine (a
//! random access costs several sequential tuple reads). Ties go to the
//! index, which also serves LIMIT early stops better.

use crate::relation::Partition;

const PROBE: f64 = 4.0;
const RANDOM: f64 = 3.0;

/// How one partition was read.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AccessMode {
    /// Adjacency-list probes per bound vertex.
    IndexScan,
    /// A pass over every tuple of the partition with bound sides filtered.
    RelationScan,
}

/// Which modes the caller allows (tests force one to compare them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModeChoice {
    Auto,
    Force(AccessMode),
}

/// Which side of a cell the index scan probes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Subject,
    Object,
}

/// Picks the mode for one partition given the probes on the chosen side.
pub(crate) fn choose(
    part: &Partition,
    side: Side,
    probes: usize,
    choice: ModeChoice,
) -> AccessMode {
    if let ModeChoice::Force(mode) = choice {
        return mode;
    }
    let tuples = part.len() as f64;
    let keys = match side {
        Side::Subject => part.subjects(),
        Side::Object => part.objects(),
    }
    .max(1) as f64;
    let degree = tuples / keys;
    let index_cost = probes as f64 * (PROBE + degree * RANDOM);
    if index_cost <= tuples {
        AccessMode::IndexScan
    } else {
        AccessMode::RelationScan
    }
}
