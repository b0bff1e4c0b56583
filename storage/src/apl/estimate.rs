//! Cardinality estimates by sampling, without executing the pattern (the
//! optimizer's instance-level statistics).
//!
//! - A bound side: up to [`SAMPLE`] members are probed through the index
//!   (their matching edges counted exactly), and the average is scaled to
//!   the whole set. The side with fewer members is sampled.
//! - Both sides unbound: every `stride`-th tuple of each cell is checked
//!   (at most about [`SAMPLE`] per cell) and the matching fraction is
//!   scaled to the cell's size.
//!
//! Estimates never read more than `SAMPLE` vertices or about `SAMPLE`
//! tuples per cell, whatever the graph's size.

use super::{matches_endpoint, Apl, EdgePattern, Endpoint};
use crate::relation::Tuple;

const SAMPLE: usize = 64;

pub(super) fn edges(apl: &Apl<'_>, pattern: &EdgePattern<'_>, types: Option<&[u32]>) -> f64 {
    if types.is_some_and(<[u32]>::is_empty) {
        return 0.0;
    }
    let type_ok = |t: &Tuple| types.is_none_or(|list| list.contains(&t.p));
    let matches = |t: &Tuple| {
        type_ok(t)
            && matches_endpoint(pattern.src, t.s)
            && matches_endpoint(pattern.dst, t.o.payload)
            && apl.visible(t)
    };
    let store = apl.reader.store;
    let p = store.partitions;
    let sampled_side = match (pattern.src, pattern.dst) {
        (Endpoint::In(s), Endpoint::In(d)) if d.len() < s.len() => Some((d, false)),
        (Endpoint::In(s), _) => Some((s, true)),
        (Endpoint::Any, Endpoint::In(d)) => Some((d, false)),
        (Endpoint::Any, Endpoint::Any) => None,
    };
    match sampled_side {
        Some((set, outgoing)) => {
            if set.is_empty() {
                return 0.0;
            }
            let stride = set.len().div_ceil(SAMPLE).max(1);
            let mut sampled = 0usize;
            let mut found = 0usize;
            for node in set.iter().step_by(stride) {
                sampled += 1;
                let home = crate::ids::vertex_partition(node.0, p);
                for other in 0..p {
                    let cell = if outgoing {
                        home * p + other
                    } else {
                        other * p + home
                    };
                    let Some(part) = store.e.read(cell) else {
                        continue;
                    };
                    found += if outgoing {
                        part.by_subject(node.0).filter(|(_, t)| matches(t)).count()
                    } else {
                        part.by_object(node.0).filter(|(_, t)| matches(t)).count()
                    };
                }
            }
            found as f64 / sampled as f64 * set.len() as f64
        }
        None => {
            let mut total = 0.0;
            for cell in 0..p * p {
                let Some(part) = store.e.read(cell) else {
                    continue;
                };
                let len = part.len();
                if len == 0 {
                    continue;
                }
                let stride = len.div_ceil(SAMPLE).max(1);
                let (mut sampled, mut found) = (0usize, 0usize);
                for (_, t) in part.scan().step_by(stride) {
                    sampled += 1;
                    found += usize::from(matches(&t));
                }
                total += found as f64 / sampled as f64 * len as f64;
            }
            total
        }
    }
}
