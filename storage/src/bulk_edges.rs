//! A bulk load's edges staged by grid cell: in ranges on several
//! threads (each checking ends with its own memo, the literal writer taken
//! only by a chunk with a string value), then each cell put together from
//! the ranges in input order and ordered by (type, source, target), the
//! cells shared among the threads (docs/adr/0206-a-graph-load-staged-and-appended-on-two-threads.md).

use crate::bulk::{spawn_named, Batch, BulkRel, NameCache, Names, StagedRels, BULK_CHUNK};
use crate::error::Result;
use crate::ids::edge_cell;
use crate::relation::Staged;
use crate::store::Store;
use crate::typed_value::{Encoded, TypedValue};

impl Store {
    /// Stages the `count` edges by grid cell, each cell ordered
    /// ([`order_cell`]), on `threads` threads: each
    /// stages a range of the edges (its own `rel`, from `rels()`), then
    /// each orders a share of the cells, their ranges' edges put together
    /// in input order. Fails (staging nothing) when a `rel` does. The
    /// edges are asked for a chunk at a time, outside the dictionary
    /// writer, so a caller whose rows name their ends otherwise (a graph
    /// load's positions) builds no second copy of them all, and checks the
    /// ends that need it there (with [`EndCheck`](crate::bulk::EndCheck):
    /// random reads of the vertex partitions under the writer would
    /// lengthen its hold). A graph load's edge staging and ordering were a
    /// tenth of its time on one thread with the other core idle
    /// (benches/RESULTS.md, session 37).
    pub(crate) fn stage_rels<'r, K, F>(
        &self,
        count: usize,
        threads: usize,
        rels: impl Fn() -> F + Sync,
    ) -> Result<StagedRels>
    where
        K: AsRef<str> + 'r,
        F: FnMut(usize) -> Result<BulkRel<'r, K>>,
    {
        let threads = threads.clamp(1, count.div_ceil(BULK_CHUNK).max(1));
        let per_thread = count.div_ceil(threads).next_multiple_of(BULK_CHUNK);
        let ranges: Vec<std::ops::Range<usize>> = (0..threads)
            .map(|t| (t * per_thread).min(count)..((t + 1) * per_thread).min(count))
            .collect();
        let stage = |range: std::ops::Range<usize>| self.stage_rel_range(range, rels());
        let stage = &stage;
        let parts: Vec<Result<StagedRels>> = std::thread::scope(|scope| {
            let others: Vec<_> = ranges[1..]
                .iter()
                .map(|range| spawn_named(scope, "bulk-stage-e", move || stage(range.clone())))
                .collect();
            let mut parts = vec![stage(ranges[0].clone())];
            parts.extend(others.into_iter().map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }));
            parts
        });
        let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
        Ok(StagedRels::merge_ordered(parts, count, threads))
    }

    /// Stages the edges `rel(range)` by grid cell, in input order.
    fn stage_rel_range<'r, K: AsRef<str> + 'r>(
        &self,
        range: std::ops::Range<usize>,
        mut rel: impl FnMut(usize) -> Result<BulkRel<'r, K>>,
    ) -> Result<StagedRels> {
        let mut names = NameCache::default();
        let cells = self.e.partitions();
        let count = range.len();
        // Edges spread uniformly over cells, as vertices over partitions.
        let share = count / cells + count / cells / 8 + 64;
        let first_props = if count > 0 {
            rel(range.start)?.properties.len()
        } else {
            0
        };
        let props_share = share * first_props;
        let mut edges: Vec<Batch> = (0..cells).map(|_| Vec::with_capacity(share)).collect();
        let mut edge_props: Vec<Vec<(usize, u32, Encoded)>> = (0..cells)
            .map(|_| Vec::with_capacity(props_share))
            .collect();
        let mut origin: Vec<Vec<usize>> = (0..cells).map(|_| Vec::with_capacity(share)).collect();
        let mut encoded: Vec<(u32, Encoded)> = Vec::new();
        // Edges come file by file, so a type repeats for long runs: as a
        // name at one position of a row, it is compared with the last one
        // and hashed only when it changes (hashing it per edge was ~1% of
        // a load's samples, benches/RESULTS.md, session 38).
        let mut types = Names::<u32>::default();
        let mut chunk = Vec::with_capacity(BULK_CHUNK.min(count));
        for first in range.clone().step_by(BULK_CHUNK) {
            chunk.clear();
            for i in first..(first + BULK_CHUNK).min(range.end) {
                chunk.push(rel(i)?);
            }
            // Taken at the chunk's first string value only: edges mostly
            // carry numbers and dates, and the staging threads share it.
            let mut literals = None;
            let mut intern = |form: &[u8]| {
                literals
                    .get_or_insert_with(|| self.literals.writer())
                    .intern(form)
            };
            for (n, rel) in (first..).zip(&chunk) {
                names.properties(self, &mut intern, rel.properties, &mut encoded)?;
                let type_id = types
                    .id(0, rel.rel_type, || {
                        Ok::<_, std::convert::Infallible>(self.types.intern(rel.rel_type))
                    })
                    .unwrap_or_else(|never| match never {});
                let cell = edge_cell(rel.src.0, rel.dst.0, self.partitions);
                let position = edges[cell].len();
                edges[cell].push(Staged::new(
                    rel.src.0,
                    type_id,
                    TypedValue::vertex(rel.dst.0),
                ));
                origin[cell].push(n);
                edge_props[cell].extend(encoded.iter().map(|&(p, o)| (position, p, o)));
            }
        }
        Ok(StagedRels {
            edges,
            edge_props,
            origin,
            count,
        })
    }
}

/// Orders one cell's edges by (type, source, target), carrying their
/// properties and input positions along. Type first: a load's edges of one type fill
/// whole zones, whose P column is then uniform, so a relation scan for
/// another type drops them unread (module `relation::select`), as a store
/// with one relation per edge type would. Source second: a vertex's edges
/// of one type in a cell lie in consecutive slots, so an expansion through
/// the S index reads each column's run for the vertex with one or two
/// cache misses instead of one per edge (the adjacency a CSR layout gives,
/// without giving up the slots' stability). Target third: the run is then
/// sorted by (type, target), the order the S index keeps its lists' sorted
/// prefixes in, so every list of the load is sorted throughout at no cost
/// and a lookup of the edges between two vertices is a binary search. Equal
/// keys keep input order.
/// The properties come in position order (as staged), so each edge's are
/// one run, moved whole to the edge's new position.
fn order_cell(cell: &mut Batch, props: &mut Vec<(usize, u32, Encoded)>, origin: &mut Vec<usize>) {
    let order = cell_order(cell);
    *cell = order.iter().map(|&i| cell[i as usize]).collect();
    *origin = order.iter().map(|&i| origin[i as usize]).collect();
    if props.is_empty() {
        return;
    }
    // `first[i]..first[i + 1]`: the properties of the edge at position i.
    let mut first = vec![0usize; cell.len() + 1];
    for prop in props.iter() {
        first[prop.0 + 1] += 1;
    }
    for i in 1..first.len() {
        first[i] += first[i - 1];
    }
    let mut moved = Vec::with_capacity(props.len());
    for (new, &old) in order.iter().enumerate() {
        let old = old as usize;
        moved.extend(
            props[first[old]..first[old + 1]]
                .iter()
                .map(|&(_, p, o)| (new, p, o)),
        );
    }
    *props = moved;
}

/// The positions of `cell`'s edges in (type, source, target, position)
/// order. Sorted as one `u128` per edge, (type, source, position), which
/// compares in two words and moves 16 bytes; the runs of equal type and
/// source (a vertex's edges of one type: a handful) are then put in target
/// order, the position breaking ties. This sort was most of the edges'
/// ordering time when it compared (type, source, target, position)
/// tuples field by field (benches/RESULTS.md, session 38). A cell's
/// positions fit in `u32`: a partition holds no more tuples
/// (`Relation::has_room` refuses the append otherwise).
fn cell_order(cell: &Batch) -> Vec<u32> {
    let mut keys: Vec<u128> = cell
        .iter()
        .enumerate()
        .map(|(at, t)| (u128::from(t.p) << 96) | (u128::from(t.s) << 32) | at as u128)
        .collect();
    keys.sort_unstable();
    let mut order: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    let mut start = 0;
    while start < keys.len() {
        let run = keys[start] >> 32;
        let mut end = start + 1;
        while keys.get(end).is_some_and(|&k| k >> 32 == run) {
            end += 1;
        }
        if end - start > 1 {
            order[start..end].sort_unstable_by_key(|&at| (cell[at as usize].o().payload, at));
        }
        start = end;
    }
    order
}

/// One cell's staged edges, their properties (by position in the cell)
/// and their input positions.
type Cell = (Batch, Vec<(usize, u32, Encoded)>, Vec<usize>);

impl StagedRels {
    /// Puts ranges of edges staged apart (each in input order, `parts` in
    /// the ranges' order) together cell by cell, and orders every cell,
    /// the cells shared among `threads` threads.
    fn merge_ordered(parts: Vec<StagedRels>, count: usize, threads: usize) -> StagedRels {
        let cells = parts.first().map_or(0, |p| p.edges.len());
        let mut pieces: Vec<Vec<Cell>> = (0..cells)
            .map(|_| Vec::with_capacity(parts.len()))
            .collect();
        for part in parts {
            let cells = part.edges.into_iter().zip(part.edge_props).zip(part.origin);
            for (at, ((edges, props), origin)) in cells.enumerate() {
                pieces[at].push((edges, props, origin));
            }
        }
        // Cells taken one at a time, the largest first (cells differ in
        // size: halves of them per thread left one thread ordering alone
        // at the end, with the free core idle).
        let merged = nereid_fan_out::fan_out(
            pieces,
            threads,
            |pieces| pieces.iter().map(|p| p.0.len() as u64).sum(),
            || |pieces| Some(merge_cell(pieces)),
        );
        let mut staged = StagedRels {
            edges: Vec::with_capacity(cells),
            edge_props: Vec::with_capacity(cells),
            origin: Vec::with_capacity(cells),
            count,
        };
        for (edges, props, origin) in merged {
            staged.edges.push(edges);
            staged.edge_props.push(props);
            staged.origin.push(origin);
        }
        staged
    }
}

/// One cell's pieces (from consecutive ranges of edges) as one ordered cell.
fn merge_cell(pieces: Vec<Cell>) -> Cell {
    let mut pieces = pieces.into_iter();
    let (mut edges, mut props, mut origin) = pieces.next().unwrap_or_default();
    for (more_edges, more_props, more_origin) in pieces {
        let offset = edges.len();
        props.extend(more_props.into_iter().map(|(at, p, o)| (at + offset, p, o)));
        edges.extend_from_slice(&more_edges);
        origin.extend_from_slice(&more_origin);
    }
    order_cell(&mut edges, &mut props, &mut origin);
    (edges, props, origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A cell of edges `(type, source, target)` and, per edge, how many
    /// properties it carries: few distinct values, so that runs of equal
    /// type and source, and equal whole keys, are common.
    fn cells() -> impl Strategy<Value = Vec<(u32, u64, u64, usize)>> {
        prop::collection::vec((0u32..3, 0u64..6, 0u64..4, 0usize..3), 0..200)
    }

    proptest! {
        /// The cell comes out as a stable sort by (type, source, target)
        /// puts it, each edge with its input position and its properties
        /// (in their order) at its new position.
        #[test]
        fn a_cell_is_ordered_as_a_stable_sort_by_type_source_and_target(edges in cells()) {
            let mut cell: Batch = edges
                .iter()
                .map(|&(p, s, o, _)| Staged::new(s, p, TypedValue::vertex(o)))
                .collect();
            let mut origin: Vec<usize> = (0..edges.len()).map(|i| 1000 + i).collect();
            let mut props: Vec<(usize, u32, Encoded)> = Vec::new();
            for (at, &(_, _, _, n)) in edges.iter().enumerate() {
                for k in 0..n {
                    props.push((at, k as u32, TypedValue::vertex((at * 10 + k) as u64).into()));
                }
            }
            let mut expected: Vec<usize> = (0..edges.len()).collect();
            expected.sort_by_key(|&i| (edges[i].0, edges[i].1, edges[i].2));

            order_cell(&mut cell, &mut props, &mut origin);

            let keys: Vec<(u32, u64, u64)> =
                cell.iter().map(|t| (t.p, t.s, t.o().payload)).collect();
            let want: Vec<(u32, u64, u64)> =
                expected.iter().map(|&i| (edges[i].0, edges[i].1, edges[i].2)).collect();
            prop_assert_eq!(keys, want);
            prop_assert_eq!(origin, expected.iter().map(|&i| 1000 + i).collect::<Vec<_>>());
            let mut want_props = Vec::new();
            for (new, &old) in expected.iter().enumerate() {
                for k in 0..edges[old].3 {
                    want_props.push((new, k as u32, (old * 10 + k) as u64));
                }
            }
            let got_props: Vec<(usize, u32, u64)> =
                props.iter().map(|&(at, p, o)| (at, p, o.o.payload)).collect();
            prop_assert_eq!(got_props, want_props);
        }
    }
}
