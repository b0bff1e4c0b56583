//! The CSR construction of an algorithm view on its own (issue #27), apart
//! from reading the store: `Graph::from_pieces` over a Kronecker (R-MAT)
//! edge list of scale 18 and edge factor 16 (4.2M edges, vertex numbers
//! shuffled as GAPBS's generator does), cut into 64 pieces as a view's
//! grid cells cut it; unweighted and weighted (weights 1–255, which single
//! precision holds). Throughput is in edges; the view target is 64M edges
//! in at most 1 s, both directions, store read included (benches/algorithms).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nereid_algorithms::Graph;

/// The server's allocator, so fresh pages cost what they cost there.
#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

const SCALE: u32 = 18;
const EDGE_FACTOR: usize = 16;
const PIECES: usize = 64;

/// A 64-bit linear congruential step: deterministic, no dependency.
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 11
}

/// R-MAT edges with Graph500's probabilities (0.57, 0.19, 0.19, 0.05),
/// vertex numbers permuted.
fn kronecker() -> Vec<(u32, u32)> {
    let n = 1usize << SCALE;
    let mut state = 42u64;
    let mut permutation: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = (next(&mut state) % (i as u64 + 1)) as usize;
        permutation.swap(i, j);
    }
    (0..n * EDGE_FACTOR)
        .map(|_| {
            let (mut s, mut d) = (0usize, 0usize);
            for bit in 0..SCALE {
                let r = next(&mut state) % 100;
                let (a, b) = match r {
                    0..57 => (0, 0),
                    57..76 => (0, 1),
                    76..95 => (1, 0),
                    _ => (1, 1),
                };
                s |= a << bit;
                d |= b << bit;
            }
            (permutation[s], permutation[d])
        })
        .collect()
}

fn build(c: &mut Criterion) {
    let n = 1usize << SCALE;
    let edges = kronecker();
    let weights: Vec<f64> = (0..edges.len()).map(|i| (1 + i % 255) as f64).collect();
    let size = edges.len().div_ceil(PIECES);
    let pieces: Vec<&[(u32, u32)]> = edges.chunks(size).collect();
    let weight_pieces: Vec<&[f64]> = weights.chunks(size).collect();
    let mut group = c.benchmark_group("csr_build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(edges.len() as u64));
    group.bench_function("kronecker_18_unweighted", |b| {
        b.iter(|| Graph::from_pieces(n, &pieces, None))
    });
    group.bench_function("kronecker_18_weighted", |b| {
        b.iter(|| Graph::from_pieces(n, &pieces, Some(&weight_pieces)))
    });
    group.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);
