//! Breadth-first search through the APL: each level is one frontier-bound
//! pattern, so small frontiers probe the adjacency index and large ones
//! scan whole cells (the "hybrid" BFS), and the report shows which.

use super::{AccessReport, Apl, EdgePattern, Endpoint, ModeChoice};
use nereid_values::{Direction, NodeId};

/// One BFS level: the frontier it started from and how it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsLevel {
    pub frontier: usize,
    pub discovered: usize,
    pub access: AccessReport,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BfsReport {
    pub levels: Vec<BfsLevel>,
    /// Vertices reached, the start included.
    pub reached: usize,
}

impl Apl<'_> {
    /// BFS from `start` along edges of `types` (any when empty) in `dir`,
    /// for at most `max_depth` levels.
    pub fn bfs(
        &self,
        start: NodeId,
        dir: Direction,
        types: &[String],
        max_depth: usize,
        choice: ModeChoice,
    ) -> BfsReport {
        let mut report = BfsReport::default();
        if !self.reader.node_exists(start.0) {
            return report;
        }
        let mut visited = self.vertex_set_of([start]);
        let mut frontier = self.vertex_set_of([start]);
        while !frontier.is_empty() && report.levels.len() < max_depth {
            let mut next = self.vertex_set();
            let mut access = AccessReport::default();
            let sides: &[bool] = match dir {
                Direction::Outgoing => &[true],
                Direction::Incoming => &[false],
                Direction::Both => &[true, false],
            };
            for &outgoing in sides {
                let (src, dst) = if outgoing {
                    (Endpoint::In(&frontier), Endpoint::Any)
                } else {
                    (Endpoint::Any, Endpoint::In(&frontier))
                };
                let pattern = EdgePattern { src, types, dst };
                let part = self.edges(&pattern, None, choice, |m| {
                    let other = if outgoing { m.dst } else { m.src };
                    if !visited.contains(other) {
                        visited.insert(other);
                        next.insert(other);
                    }
                });
                access.index_partitions += part.index_partitions;
                access.scan_partitions += part.scan_partitions;
                access.skipped_partitions += part.skipped_partitions;
                access.tuples_examined += part.tuples_examined;
                access.matches += part.matches;
            }
            report.levels.push(BfsLevel {
                frontier: frontier.len(),
                discovered: next.len(),
                access,
            });
            frontier = next;
        }
        report.reached = visited.len();
        report
    }
}
