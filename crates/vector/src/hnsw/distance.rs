//! The two distances the graph ranks by, on the widest vector unit the CPU
//! has: chosen once per graph (runtime detection), so a search pays no
//! feature test per distance. A dot product of normalised vectors stands
//! for the cosine (same order, no norms per distance); squared L2 for the
//! euclidean score (same order as the distance).

/// A distance between two vectors of equal length: smaller is nearer.
pub(super) type Kernel = fn(&[f32], &[f32]) -> f32;

/// What the graph ranks by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Metric {
    /// `1 - a·b` over normalised vectors.
    Dot,
    /// `|a - b|²`.
    SquaredL2,
}

impl Metric {
    /// The fastest kernel this CPU runs for the metric.
    pub(super) fn kernel(self) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return match self {
                Metric::Dot => |a, b| 1.0 - x86::dot(a, b),
                Metric::SquaredL2 => x86::squared_l2,
            };
        }
        match self {
            Metric::Dot => |a, b| 1.0 - portable_dot(a, b),
            Metric::SquaredL2 => portable_squared_l2,
        }
    }
}

fn portable_dot(a: &[f32], b: &[f32]) -> f32 {
    portable_sum(a, b, |x, y| x * y)
}

fn portable_squared_l2(a: &[f32], b: &[f32]) -> f32 {
    portable_sum(a, b, |x, y| (x - y) * (x - y))
}

/// The sum of `term` over paired elements, in eight independent sums so
/// the compiler keeps them in vector registers on any target.
#[inline(always)]
fn portable_sum(a: &[f32], b: &[f32], term: impl Fn(f32, f32) -> f32) -> f32 {
    let mut sums = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| term(*x, *y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            sums[i] += term(x[i], y[i]);
        }
    }
    sums.iter().sum::<f32>() + tail
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Only installed by [`super::Metric::kernel`] after detecting AVX2
    /// and FMA, which is what makes the call below sound.
    pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
        // SAFETY: the CPU has AVX2 and FMA (checked before this function
        // is handed out); the kernel reads only within both slices.
        unsafe { dot_avx2(a, b) }
    }

    pub(super) fn squared_l2(a: &[f32], b: &[f32]) -> f32 {
        // SAFETY: as for `dot`.
        unsafe { squared_l2_avx2(a, b) }
    }

    /// One AVX2 kernel: `$lane(x, y, sum)` folds 8 floats of each vector
    /// into a sum register (four sums, 32 floats a step), `$tail(x, y)`
    /// one float of the remainder.
    macro_rules! avx2_kernel {
        ($name:ident, $lane:expr, $tail:expr) => {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn $name(a: &[f32], b: &[f32]) -> f32 {
                let n = a.len().min(b.len());
                let (pa, pb) = (a.as_ptr(), b.as_ptr());
                let mut acc = [_mm256_setzero_ps(); 4];
                let mut i = 0;
                while i + 32 <= n {
                    for (k, sum) in acc.iter_mut().enumerate() {
                        let x = _mm256_loadu_ps(pa.add(i + 8 * k));
                        let y = _mm256_loadu_ps(pb.add(i + 8 * k));
                        *sum = $lane(x, y, *sum);
                    }
                    i += 32;
                }
                while i + 8 <= n {
                    let x = _mm256_loadu_ps(pa.add(i));
                    let y = _mm256_loadu_ps(pb.add(i));
                    acc[0] = $lane(x, y, acc[0]);
                    i += 8;
                }
                let mut total = horizontal(_mm256_add_ps(
                    _mm256_add_ps(acc[0], acc[1]),
                    _mm256_add_ps(acc[2], acc[3]),
                ));
                while i < n {
                    total += $tail(*pa.add(i), *pb.add(i));
                    i += 1;
                }
                total
            }
        };
    }

    avx2_kernel!(
        dot_avx2,
        |x, y, sum| _mm256_fmadd_ps(x, y, sum),
        |x: f32, y: f32| x * y
    );
    avx2_kernel!(
        squared_l2_avx2,
        |x, y, sum| {
            let d = _mm256_sub_ps(x, y);
            _mm256_fmadd_ps(d, d, sum)
        },
        |x: f32, y: f32| (x - y) * (x - y)
    );

    #[target_feature(enable = "avx2,fma")]
    unsafe fn horizontal(v: __m256) -> f32 {
        let halves = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let pairs = _mm_add_ps(halves, _mm_movehl_ps(halves, halves));
        let one = _mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1));
        _mm_cvtss_f32(one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_agrees_with_the_plain_sums() {
        for len in [1usize, 7, 8, 31, 32, 33, 128, 129] {
            let a: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..len).map(|i| (i as f32 * 0.11).cos()).collect();
            let dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let l2: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
            let close = |x: f32, y: f32| (x - y).abs() <= 1e-4 * (1.0 + y.abs());
            assert!(close(Metric::Dot.kernel()(&a, &b), 1.0 - dot), "{len}");
            assert!(close(Metric::SquaredL2.kernel()(&a, &b), l2), "{len}");
            assert!(close(portable_dot(&a, &b), dot), "{len}");
            assert!(close(portable_squared_l2(&a, &b), l2), "{len}");
        }
    }
}
