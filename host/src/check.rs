//! Compares a result with the `f64` reference under a stated tolerance.

use crate::{Filter, Plane};
use std::fmt;

/// Unit roundoff of `f32` (2⁻²⁴).
const F32_UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// The largest error an `f32` result may have for this image and filter.
///
/// Summing `n = k²` products in `f32` (in any order, with or without fused multiply-add) errs by
/// at most about `n · u · Σ|f|·max|x|` with `u = 2⁻²⁴`; we allow twice that, plus `u` so a 1×1
/// filter on tiny values still has room for the one rounding of the product.
pub fn tolerance(image: &Plane, filter: &Filter) -> f64 {
    let max_in = image
        .data()
        .iter()
        .fold(0.0f64, |m, &p| m.max(f64::from(p.abs())));
    let n = (filter.size() * filter.size()) as f64;
    2.0 * n * F32_UNIT_ROUNDOFF * filter.abs_sum() * max_in + F32_UNIT_ROUNDOFF
}

/// The outcome of one comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Largest `|got - expected|` (infinite if any value is NaN or infinite).
    pub max_error: f64,
    /// The allowed error.
    pub tolerance: f64,
    /// How many pixels exceed the tolerance.
    pub failures: usize,
    /// The first pixel (row-major) that exceeds it.
    pub first_failure: Option<Mismatch>,
}

/// One pixel that is out of tolerance.
#[derive(Clone, Copy, Debug)]
pub struct Mismatch {
    pub x: usize,
    pub y: usize,
    pub got: f32,
    pub expected: f64,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.failures == 0
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.first_failure {
            None => write!(
                f,
                "max error {:.2e} <= tolerance {:.2e}",
                self.max_error, self.tolerance
            ),
            Some(m) => write!(
                f,
                "{} pixels out of tolerance {:.2e}; first at (x={}, y={}): got {}, expected {}",
                self.failures, self.tolerance, m.x, m.y, m.got, m.expected
            ),
        }
    }
}

/// Compares `got` (row-major, `width` pixels per row) with `expected` under `tolerance`.
/// A NaN or infinite value (e.g. an output pixel left unwritten after NaN poisoning) always fails.
pub fn compare(got: &[f32], expected: &[f64], width: usize, tolerance: f64) -> Comparison {
    let mut c = Comparison {
        max_error: 0.0,
        tolerance,
        failures: 0,
        first_failure: None,
    };
    if got.len() != expected.len() {
        c.max_error = f64::INFINITY;
        c.failures = got.len().abs_diff(expected.len()).max(1);
        return c;
    }
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let err = if g.is_finite() {
            (f64::from(g) - e).abs()
        } else {
            f64::INFINITY
        };
        c.max_error = c.max_error.max(err);
        // `err` is never NaN (non-finite results map to infinity), so this comparison is total.
        if err > tolerance {
            c.failures += 1;
            c.first_failure.get_or_insert(Mismatch {
                x: i % width,
                y: i / width,
                got: g,
                expected: e,
            });
        }
    }
    c
}
