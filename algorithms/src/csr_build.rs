//! Building one CSR direction from an edge source: the view's per-cell
//! vectors (without concatenating them and without a wide intermediate
//! bucket), or the other direction already built.
//!
//! Three parallel passes, no atomic read-modify-write:
//! 1. each task (a piece, a part of a long one, or a range of rows of the
//!    other direction) counts its edges per block of rows (see
//!    [`block_shift`]);
//! 2. a prefix sum over (block, task) gives every task one run per block
//!    in the *final* target array, and each task writes its edges' targets
//!    (and weights) there, with the row inside the block beside them in a
//!    2-byte array: a few hundred sequential output streams instead of a
//!    random write per edge, and 2 bytes per edge of transient memory;
//! 3. each block, in parallel, counts its rows' degrees from those 2-byte
//!    rows, moves its edges into row order through a cache-sized copy of
//!    the block and, when the source is not already in order, sorts each
//!    row by (target, weight) (an unweighted row of hundreds of targets
//!    by radix, see [`RADIX_ROW`]).
//!
//! Runs keep task order and tasks keep source order, and pass 3 moves
//! edges stably: so the direction built from the other one, read row by
//! row, comes out with every row already sorted (a counting sort), and
//! needs no sort at all. Pieces are sorted, which makes rows independent
//! of the input order altogether.

use crate::csr::{Csr, WeightColumn};
use rayon::prelude::*;

/// The fewest rows per block: a block's rows are filled while its targets
/// sit in a core's cache (4,096 rows of a Kronecker graph's average degree
/// 30 hold ~0.5 MB).
pub(crate) const MIN_BLOCK_ROWS: usize = 1 << 12;

/// The most blocks pass 2 writes to before blocks grow: each task keeps
/// one output stream per block, and past a few hundred streams (1,024 at
/// 4 M vertices in blocks of 4,096) the scatter spends its time in cache
/// and TLB misses rather than in writing.
const MAX_BLOCKS: usize = 256;

/// log2 of the rows per block for `n` rows: [`MIN_BLOCK_ROWS`], doubled
/// until at most [`MAX_BLOCKS`] blocks remain or a block reaches 65,536
/// rows (a row inside a block must fit in a `u16`).
pub(crate) fn block_shift(n: usize) -> u32 {
    let wanted = n.div_ceil(MAX_BLOCKS).next_power_of_two();
    wanted.clamp(MIN_BLOCK_ROWS, 1 << 16).trailing_zeros()
}

/// A weight as a direction stores it.
pub(crate) trait Weight: Copy + Default + Send + Sync + 'static {
    /// `w` in this width (exact: [`crate::Graph::from_pieces`] narrows only
    /// lists that single precision holds).
    fn narrow(w: f64) -> Self;
    fn widen(self) -> f64;
    fn column(values: Vec<Self>) -> WeightColumn;
    /// The weights of `column` when they are stored in this width.
    fn of(column: &WeightColumn) -> Option<&[Self]>;
}

impl Weight for f32 {
    fn narrow(w: f64) -> f32 {
        w as f32
    }
    fn widen(self) -> f64 {
        f64::from(self)
    }
    fn column(values: Vec<f32>) -> WeightColumn {
        WeightColumn::Single(values)
    }
    fn of(column: &WeightColumn) -> Option<&[f32]> {
        match column {
            WeightColumn::Single(w) => Some(w),
            _ => None,
        }
    }
}

impl Weight for f64 {
    fn narrow(w: f64) -> f64 {
        w
    }
    fn widen(self) -> f64 {
        self
    }
    fn column(values: Vec<f64>) -> WeightColumn {
        WeightColumn::Double(values)
    }
    fn of(column: &WeightColumn) -> Option<&[f64]> {
        match column {
            WeightColumn::Double(w) => Some(w),
            _ => None,
        }
    }
}

/// Where one direction's edges come from: tasks visited in parallel,
/// each in its own order, the tasks' order being the source's.
pub(crate) trait EdgeSource<W>: Sync {
    fn edge_count(&self) -> usize;
    fn weighted(&self) -> bool;
    fn tasks(&self) -> usize;
    /// Calls `visit(row, target, weight)` for each edge of task `task`
    /// (weight `W::default()` when unweighted), in order.
    fn each(&self, task: usize, visit: impl FnMut(u32, u32, W));
    /// Whether the build leaves each row in the order its edges come:
    /// they come sorted, or the caller sorts the rows in another order.
    fn rows_in_order(&self) -> bool;
}

/// A stretch of one piece that one task of passes 1 and 2 handles.
struct Task {
    piece: usize,
    start: usize,
    end: usize,
}

/// How the build leaves the rows of edges in pieces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// Sorted by (target, weight).
    ByTarget,
    /// As the edges come: the caller sorts them in another order.
    LeftForLater,
}

/// Edges in pieces, by source (or by target when `flip`).
pub(crate) struct Pieces<'a> {
    pieces: &'a [&'a [(u32, u32)]],
    weights: Option<&'a [&'a [f64]]>,
    flip: bool,
    rows: Rows,
    tasks: Vec<Task>,
    total: usize,
}

impl<'a> Pieces<'a> {
    pub(crate) fn new(
        pieces: &'a [&'a [(u32, u32)]],
        weights: Option<&'a [&'a [f64]]>,
        flip: bool,
        rows: Rows,
    ) -> Self {
        let total = pieces.iter().map(|p| p.len()).sum();
        let tasks = tasks(pieces, total);
        Pieces {
            pieces,
            weights,
            flip,
            rows,
            tasks,
            total,
        }
    }
}

impl<W: Weight> EdgeSource<W> for Pieces<'_> {
    fn edge_count(&self) -> usize {
        self.total
    }
    fn weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn tasks(&self) -> usize {
        self.tasks.len()
    }
    fn each(&self, task: usize, mut visit: impl FnMut(u32, u32, W)) {
        let t = &self.tasks[task];
        let edges = &self.pieces[t.piece][t.start..t.end];
        let flip = self.flip;
        let key = move |&(s, d): &(u32, u32)| if flip { (d, s) } else { (s, d) };
        match self.weights {
            Some(w) => {
                for (e, &w) in edges.iter().zip(&w[t.piece][t.start..t.end]) {
                    let (row, target) = key(e);
                    visit(row, target, W::narrow(w));
                }
            }
            None => {
                for e in edges {
                    let (row, target) = key(e);
                    visit(row, target, W::default());
                }
            }
        }
    }
    fn rows_in_order(&self) -> bool {
        self.rows == Rows::LeftForLater
    }
}

/// The edges of a built direction the other way round, read row by row.
pub(crate) struct Reversed<'a, W> {
    csr: &'a Csr,
    weights: Option<&'a [W]>,
    /// Task `i` reads rows `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
}

impl<'a, W: Weight> Reversed<'a, W> {
    /// Panics if `csr` has weights of another width than `W`.
    pub(crate) fn new(csr: &'a Csr) -> Self {
        let weights = match csr.weights {
            WeightColumn::None => None,
            ref column => Some(W::of(column).expect("weights of the built width")),
        };
        let n = csr.offsets.len() - 1;
        let total = csr.targets.len();
        let most = most_per_task(total);
        // Rows cut where the edges before them pass a multiple of `most`.
        let mut bounds = vec![0];
        for k in 1..total.div_ceil(most) {
            let row = csr.offsets.partition_point(|&o| o < k * most).min(n);
            if row > *bounds.last().unwrap_or(&0) {
                bounds.push(row);
            }
        }
        if *bounds.last().unwrap_or(&0) < n {
            bounds.push(n);
        }
        Reversed {
            csr,
            weights,
            bounds,
        }
    }
}

impl<W: Weight> EdgeSource<W> for Reversed<'_, W> {
    fn edge_count(&self) -> usize {
        self.csr.targets.len()
    }
    fn weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn tasks(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }
    fn each(&self, task: usize, mut visit: impl FnMut(u32, u32, W)) {
        let offsets = &self.csr.offsets;
        for row in self.bounds[task]..self.bounds[task + 1] {
            let edges = offsets[row]..offsets[row + 1];
            let targets = &self.csr.targets[edges.clone()];
            match self.weights {
                Some(w) => {
                    for (&t, &w) in targets.iter().zip(&w[edges]) {
                        visit(t, row as u32, w);
                    }
                }
                None => {
                    for &t in targets {
                        visit(t, row as u32, W::default());
                    }
                }
            }
        }
    }
    fn rows_in_order(&self) -> bool {
        true
    }
}

/// One task's runs, one per block, in the final arrays.
struct Runs<'a, W> {
    targets: Vec<&'a mut [u32]>,
    rows: Vec<&'a mut [u16]>,
    weights: Option<Vec<&'a mut [W]>>,
}

/// One direction over vertices `0..n` of the edges `source` gives.
///
/// Panics if an endpoint is `>= n`.
pub(crate) fn build_direction<W: Weight>(n: usize, source: &impl EdgeSource<W>) -> Csr {
    build_in_blocks(n, source, block_shift(n))
}

/// [`build_direction`] in blocks of `1 << shift` rows.
fn build_in_blocks<W: Weight>(n: usize, source: &impl EdgeSource<W>, shift: u32) -> Csr {
    let total = source.edge_count();
    let block_rows = 1usize << shift;
    let blocks = n.div_ceil(block_rows);
    let tasks = source.tasks();
    let counts: Vec<Vec<u32>> = (0..tasks)
        .into_par_iter()
        .map(|t| {
            let mut count = vec![0u32; blocks];
            source.each(t, |row, _, _| count[(row >> shift) as usize] += 1);
            count
        })
        .collect();
    let weighted = source.weighted();
    let mut targets = vec![0u32; total];
    let mut rows = vec![0u16; total];
    let mut row_weights = weighted.then(|| vec![W::default(); total]);
    let mut block_bounds = Vec::with_capacity(blocks + 1);
    {
        let mut runs: Vec<Runs<'_, W>> = (0..tasks)
            .map(|_| Runs {
                targets: Vec::with_capacity(blocks),
                rows: Vec::with_capacity(blocks),
                weights: weighted.then(|| Vec::with_capacity(blocks)),
            })
            .collect();
        // Runs in block order, tasks in order within a block.
        let (mut rest_t, mut rest_r) = (&mut targets[..], &mut rows[..]);
        let mut rest_w = row_weights.as_deref_mut();
        let mut at = 0usize;
        for b in 0..blocks {
            block_bounds.push(at);
            for (count, run) in counts.iter().zip(&mut runs) {
                let len = count[b] as usize;
                at += len;
                let (t, tail) = std::mem::take(&mut rest_t).split_at_mut(len);
                run.targets.push(t);
                rest_t = tail;
                let (r, tail) = std::mem::take(&mut rest_r).split_at_mut(len);
                run.rows.push(r);
                rest_r = tail;
                if let (Some(w), Some(runs)) = (rest_w.take(), &mut run.weights) {
                    let (w, tail) = w.split_at_mut(len);
                    runs.push(w);
                    rest_w = Some(tail);
                }
            }
        }
        block_bounds.push(at);
        runs.into_par_iter()
            .enumerate()
            .for_each(|(t, mut run)| scatter(source, t, shift, &mut run));
    }
    let mut offsets = vec![0usize; n + 1];
    offsets[n] = total;
    let weight_blocks: Vec<Option<&mut [W]>> = match &mut row_weights {
        Some(w) => split_rows(w, &block_bounds).into_iter().map(Some).collect(),
        None => (0..blocks).map(|_| None).collect(),
    };
    // Rows are sorted unless they come in order; a sort is told the bits
    // a target needs (targets are below `n`).
    let sort =
        (!source.rows_in_order()).then_some(usize::BITS - n.saturating_sub(1).leading_zeros());
    offsets[..n]
        .par_chunks_mut(block_rows)
        .zip(split_rows(&mut targets, &block_bounds))
        .zip(split_rows(&mut rows, &block_bounds))
        .zip(weight_blocks)
        .enumerate()
        .for_each_init(
            Scratch::default,
            |scratch, (b, (((offsets, targets), rows), weights))| {
                scratch.fill(block_bounds[b], offsets, targets, rows, weights, sort);
            },
        );
    drop(rows);
    Csr {
        offsets,
        targets,
        weights: row_weights.map_or(WeightColumn::None, W::column),
    }
}

/// Edges per task at most: a quarter of a thread's share (and at least
/// 64 Ki edges), so a long piece does not keep one thread busy alone.
fn most_per_task(total: usize) -> usize {
    total
        .div_ceil(4 * rayon::current_num_threads())
        .max(1 << 16)
}

/// Pieces cut into tasks of at most [`most_per_task`] edges.
fn tasks(pieces: &[&[(u32, u32)]], total: usize) -> Vec<Task> {
    let most = most_per_task(total);
    let mut tasks = Vec::new();
    for (piece, edges) in pieces.iter().enumerate() {
        let mut start = 0;
        while start < edges.len() {
            let end = edges.len().min(start + most);
            tasks.push(Task { piece, start, end });
            start = end;
        }
    }
    tasks
}

/// Pass 2 for one task: each edge's target (and weight) into the next
/// slot of its block's run, its row inside the block beside it.
fn scatter<W: Weight>(source: &impl EdgeSource<W>, task: usize, shift: u32, run: &mut Runs<'_, W>) {
    let mut next = vec![0usize; run.targets.len()];
    let mask = (1u32 << shift) - 1;
    source.each(task, |row, target, weight| {
        let b = (row >> shift) as usize;
        let at = next[b];
        run.targets[b][at] = target;
        run.rows[b][at] = (row & mask) as u16;
        if let Some(runs) = &mut run.weights {
            runs[b][at] = weight;
        }
        next[b] = at + 1;
    });
}

/// A worker's buffers for pass 3, reused from block to block.
#[derive(Default)]
struct Scratch<W> {
    starts: Vec<usize>,
    cursor: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<W>,
    pairs: Vec<(u32, W)>,
    /// The radix sort's other buffer and digit counts.
    radix: Vec<u32>,
    counts: Vec<u32>,
}

impl<W: Weight> Scratch<W> {
    /// Pass 3 for one block whose first edge is edge `base` of the
    /// direction: its row offsets, its edges moved into row order, each
    /// row sorted by (target, weight) when `sort` gives the bits a target
    /// needs.
    fn fill(
        &mut self,
        base: usize,
        offsets: &mut [usize],
        targets: &mut [u32],
        rows: &[u16],
        weights: Option<&mut [W]>,
        sort: Option<u32>,
    ) {
        let row_count = offsets.len();
        self.starts.clear();
        self.starts.resize(row_count + 1, 0);
        for &r in rows {
            self.starts[r as usize + 1] += 1;
        }
        for r in 0..row_count {
            self.starts[r + 1] += self.starts[r];
        }
        for (offset, &start) in offsets.iter_mut().zip(&self.starts) {
            *offset = base + start;
        }
        self.targets.clear();
        self.targets.extend_from_slice(targets);
        self.cursor.clone_from(&self.starts);
        match weights {
            Some(weights) => {
                self.weights.clear();
                self.weights.extend_from_slice(weights);
                for ((&r, &t), &w) in rows.iter().zip(&self.targets).zip(&self.weights) {
                    let at = &mut self.cursor[r as usize];
                    targets[*at] = t;
                    weights[*at] = w;
                    *at += 1;
                }
                for r in (0..row_count).filter(|_| sort.is_some()) {
                    let row = self.starts[r]..self.starts[r + 1];
                    sort_weighted_row(
                        &mut targets[row.clone()],
                        &mut weights[row],
                        &mut self.pairs,
                    );
                }
            }
            None => {
                for (&r, &t) in rows.iter().zip(&self.targets) {
                    let at = &mut self.cursor[r as usize];
                    targets[*at] = t;
                    *at += 1;
                }
                if let Some(bits) = sort {
                    for r in 0..row_count {
                        let row = &mut targets[self.starts[r]..self.starts[r + 1]];
                        if row.len() < RADIX_ROW {
                            row.sort_unstable();
                        } else {
                            radix_sort(row, bits, &mut self.radix, &mut self.counts);
                        }
                    }
                }
            }
        }
    }
}

/// Rows at least this long are sorted by radix: a comparison sort's
/// cost grows with the row's logarithm, a radix sort's does not, and a
/// Kronecker graph's hubs hold most of its edges in rows of thousands.
const RADIX_ROW: usize = 512;

/// Bits per radix digit: 2,048 counts per digit, in the core's L1 cache.
const DIGIT_BITS: u32 = 11;

/// Sorts `row`, whose values need at most `bits` bits, least significant
/// digit first, through `other` (a buffer of the row's length) and
/// `counts` (every digit's counts, taken in one read of the row).
fn radix_sort(row: &mut [u32], bits: u32, other: &mut Vec<u32>, counts: &mut Vec<u32>) {
    const BUCKETS: usize = 1 << DIGIT_BITS;
    let digits = bits.div_ceil(DIGIT_BITS).max(1) as usize;
    let digit = |v: u32, d: usize| ((v >> (d as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1);
    counts.clear();
    counts.resize(digits * BUCKETS, 0);
    for &v in row.iter() {
        for d in 0..digits {
            counts[d * BUCKETS + digit(v, d)] += 1;
        }
    }
    other.clear();
    other.resize(row.len(), 0);
    let mut in_row = true;
    for d in 0..digits {
        let count = &mut counts[d * BUCKETS..(d + 1) * BUCKETS];
        // A digit every value shares moves nothing.
        if count.iter().any(|&c| c as usize == row.len()) {
            continue;
        }
        let mut at = 0u32;
        for c in count.iter_mut() {
            let here = *c;
            *c = at;
            at += here;
        }
        let (from, to): (&[u32], &mut [u32]) = if in_row {
            (&*row, &mut other[..])
        } else {
            (&other[..], &mut *row)
        };
        for &v in from {
            let slot = &mut count[digit(v, d)];
            to[*slot as usize] = v;
            *slot += 1;
        }
        in_row = !in_row;
    }
    if !in_row {
        row.copy_from_slice(other);
    }
}

/// `values` cut into the runs `bounds` delimits (`bounds[i]..bounds[i + 1]`).
fn split_rows<'a, T>(values: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut rows = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut rest = values;
    for pair in bounds.windows(2) {
        let (row, tail) = rest.split_at_mut(pair[1] - pair[0]);
        rows.push(row);
        rest = tail;
    }
    rows
}

/// Sorts one row's targets and weights together by (target, weight),
/// through `pairs` (a buffer reused across rows).
fn sort_weighted_row<W: Weight>(targets: &mut [u32], weights: &mut [W], pairs: &mut Vec<(u32, W)>) {
    let in_order =
        |a: &(u32, W), b: &(u32, W)| a.0.cmp(&b.0).then(a.1.widen().total_cmp(&b.1.widen()));
    let sorted = targets
        .windows(2)
        .zip(weights.windows(2))
        .all(|(t, w)| in_order(&(t[0], w[0]), &(t[1], w[1])).is_le());
    if !sorted {
        sort_row_pairs(targets, weights, pairs, in_order);
    }
}

/// Sorts one row's targets and weights together by `compare` over
/// `(target, weight)` pairs, through `pairs` (a buffer reused across rows).
pub(crate) fn sort_row_pairs<W: Weight>(
    targets: &mut [u32],
    weights: &mut [W],
    pairs: &mut Vec<(u32, W)>,
    compare: impl Fn(&(u32, W), &(u32, W)) -> std::cmp::Ordering,
) {
    pairs.clear();
    pairs.extend(targets.iter().copied().zip(weights.iter().copied()));
    pairs.sort_unstable_by(compare);
    for ((t, w), &(target, weight)) in targets.iter_mut().zip(weights.iter_mut()).zip(&*pairs) {
        *t = target;
        *w = weight;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sorted_rows_match_a_comparison_sort() {
        let (mut other, mut counts) = (Vec::new(), Vec::new());
        let mut seeded = crate::seeded_below(7);
        // 31 random bits and a random top bit.
        let mut next = move || seeded(u32::MAX) | (seeded(2) << 31);
        for (len, bits) in [
            (0, 1),
            (1, 1),
            (600, 1),
            (600, 5),
            (5_000, 11),
            (5_000, 12),
            (3_000, 22),
            (2_000, 32),
        ] {
            let mask = if bits == 32 {
                u32::MAX
            } else {
                (1u32 << bits) - 1
            };
            // Some rows share their high digits (a narrow range of targets).
            for high in [0, mask & !0x7ff] {
                let mut row: Vec<u32> = (0..len).map(|_| (next() & mask) | high).collect();
                let mut expected = row.clone();
                expected.sort_unstable();
                radix_sort(&mut row, bits, &mut other, &mut counts);
                assert_eq!(row, expected, "{len} values of {bits} bits");
            }
        }
    }

    #[test]
    fn blocks_grow_past_a_few_hundred() {
        assert_eq!(block_shift(0), 12);
        assert_eq!(block_shift(1 << 20), 12);
        assert_eq!(block_shift((1 << 20) + 1), 13);
        assert_eq!(block_shift(4_194_302), 14);
        assert_eq!(block_shift(1 << 30), 16);
    }

    /// The same direction, row for row, whatever the block size: rows at
    /// block edges, a hub, empty blocks, weights, both ways round.
    #[test]
    fn every_block_size_builds_the_same_direction() {
        let n = 70_000u32;
        let mut next = crate::seeded_below(3);
        let edges: Vec<(u32, u32)> = (0..200_000)
            .map(|i| match i % 5 {
                0 => (4095, next(n)),
                1 => (next(n), 65_535),
                2 => (next(1000) + 20_000, next(n)),
                _ => (next(n), next(n)),
            })
            .collect();
        let weights: Vec<f64> = (0..edges.len()).map(|_| f64::from(next(50))).collect();
        let pieces = [&edges[..70_000], &edges[70_000..]];
        let weight_pieces = [&weights[..70_000], &weights[70_000..]];
        let same = |a: &Csr, b: &Csr| {
            assert_eq!(a.offsets, b.offsets);
            assert_eq!(a.targets, b.targets);
            assert_eq!(f32::of(&a.weights), f32::of(&b.weights));
        };
        for flip in [false, true] {
            let source = Pieces::new(&pieces, Some(&weight_pieces), flip, Rows::ByTarget);
            let other_way = Pieces::new(&pieces, Some(&weight_pieces), !flip, Rows::ByTarget);
            let first = build_in_blocks::<f32>(n as usize, &source, 12);
            let transposed = build_in_blocks::<f32>(n as usize, &other_way, 12);
            for shift in [13, 14, 16] {
                same(&build_in_blocks::<f32>(n as usize, &source, shift), &first);
                let reversed = Reversed::<f32>::new(&first);
                same(
                    &build_in_blocks::<f32>(n as usize, &reversed, shift),
                    &transposed,
                );
            }
        }
    }
}
