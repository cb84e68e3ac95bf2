//! Reproducible random filters for tests and benchmarks (feature `testing`), of a side or a
//! `(rows, cols)` shape.

use super::{Filter, outer};
use crate::Result;
use rand::{Rng, SeedableRng, rngs::StdRng};

impl Filter {
    /// A reproducible filter of uniform random taps in `[-1, 1)`, for verification: `shape` is a
    /// side (a square) or `(rows, cols)`.
    pub fn random(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        Self::rect(
            rows,
            cols,
            (0..rows * cols).map(|_| rng.random_range(-1.0..1.0)).collect(),
        )
    }

    /// A reproducible random filter whose taps (mostly positive, some negative) sum to 1, so
    /// results of [0, 1] images mostly stay in [0, 1]: integer outputs then test rounding, not
    /// just clamping.
    pub fn random_normalized(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        let taps: Vec<f64> = (0..rows * cols).map(|_| rng.random_range(-0.3..1.0)).collect();
        let sum: f64 = taps.iter().sum::<f64>().max(0.5);
        Self::rect(rows, cols, taps.iter().map(|t| (t / sum) as f32).collect())
    }

    /// A reproducible random rank-1 filter (outer product of two random vectors).
    pub fn random_rank1(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        let mut v = |n| (0..n).map(|_| rng.random_range(0.05..1.0)).collect::<Vec<f64>>();
        let (a, b) = (v(rows), v(cols));
        let scale = a.iter().sum::<f64>() * b.iter().sum::<f64>();
        Self::rect(
            rows,
            cols,
            outer(&a, &b).iter().map(|t| (t / scale) as f32).collect(),
        )
    }
}

/// A filter's shape: a side (`usize`, a square) or `(rows, cols)`.
pub trait Shape: Copy {
    /// `(rows, cols)`.
    fn rows_cols(self) -> (usize, usize);
}

impl Shape for usize {
    fn rows_cols(self) -> (usize, usize) {
        (self, self)
    }
}

impl Shape for (usize, usize) {
    fn rows_cols(self) -> (usize, usize) {
        self
    }
}
