//! Neighbourhood similarity of two vertices: how many neighbours they share
//! and how many they have together (the Jaccard index is their quotient),
//! each neighbourhood the distinct vertices adjacent along a direction.

use crate::csr::{Direction, Graph};

/// The distinct neighbours of `v` along `dir`, sorted.
fn neighbourhood(graph: &Graph, v: u32, dir: Direction) -> Vec<u32> {
    let mut set: Vec<u32> = graph.neighbours(v, dir).collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// The sizes of two neighbourhoods and of their intersection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    pub shared: usize,
    pub first: usize,
    pub second: usize,
}

impl Overlap {
    /// The size of the union.
    pub fn total(self) -> usize {
        self.first + self.second - self.shared
    }
}

/// How the neighbourhoods of `a` and `b` overlap.
pub fn neighbourhood_overlap(graph: &Graph, a: u32, b: u32, dir: Direction) -> Overlap {
    let (x, y) = (neighbourhood(graph, a, dir), neighbourhood(graph, b, dir));
    let shared = x.iter().filter(|v| y.binary_search(v).is_ok()).count();
    Overlap {
        shared,
        first: x.len(),
        second: y.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_neighbours_along_the_direction() {
        // 0 -> {2, 3, 3}, 1 -> {3, 4}, 4 -> 0.
        let g = Graph::from_edges(5, &[(0, 2), (0, 3), (0, 3), (1, 3), (1, 4), (4, 0)], None);
        let sizes = |a, b, dir| {
            let o = neighbourhood_overlap(&g, a, b, dir);
            (o.shared, o.total(), o.first, o.second)
        };
        assert_eq!(sizes(0, 1, Direction::Out), (1, 3, 2, 2));
        assert_eq!(sizes(0, 1, Direction::Both), (2, 3, 3, 2));
        assert_eq!(sizes(2, 2, Direction::Out), (0, 0, 0, 0));
    }
}
