//! Compares a result with the `f64` reference under a stated tolerance.

use ferroconv::engine::cpu::{Reference, is_alpha};
use ferroconv::model::image::{Image, Samples};
use ferroconv::{Filter, model::filter::Separable};
use std::fmt;

/// Unit roundoff of `f32` (2⁻²⁴).
const F32_UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;
/// The most products [`tolerance`] counts for a filter that is not rank-1: a 32 × 32 filter's.
pub const MOST_PRODUCTS: usize = 1024;

/// The largest error an `f32` result may have, in value units, for this image and filter.
///
/// Summing `n` products in `f32` (in any order, with or without fused multiply-add) errs by at
/// most about `n · u · Σ|f| · max|x|` with `u = 2⁻²⁴`; we allow twice that, plus `u` so a 1×1
/// filter on tiny values still has room for the one rounding of the product. `n` is the filter's
/// `kh · kw` taps (the zeros around a rectangle in its square add nothing), at least 9 past the
/// 1×1 square (the tensor-core split errs by about `2⁻²¹ · Σ|f| · max|x|` whatever the taps);
/// for a run in two passes (`separable`) it is `kh + kw`, the products each pass sums, and the
/// run also gets the factorization's own error, `kh · kw · max|f - column ⊗ row| · max|x|`.
/// `n` stops at [`MOST_PRODUCTS`] for filters that are not rank-1: past it the bound outgrows
/// the error a sum of random-signed products makes (about `√n · u`) so far that a block of taps
/// in the wrong place would pass.
pub fn tolerance(image: &Image, filter: &Filter, separable: Option<&Separable>) -> f64 {
    let max_in = image.max_abs();
    let (rows, cols) = filter.shape();
    let n = match separable {
        Some(_) => (rows + cols) as f64,
        None => filter
            .tap_count()
            .max(filter.taps().len().min(9))
            .min(MOST_PRODUCTS) as f64,
    };
    let rounding = 2.0 * n * F32_UNIT_ROUNDOFF * filter.abs_sum() * max_in + F32_UNIT_ROUNDOFF;
    rounding + separable.map_or(0.0, |s| filter.tap_count() as f64 * s.error * max_in)
}

/// The outcome of one comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Largest error in value units (integers as level / max; infinite for NaN or infinity).
    pub max_error: f64,
    /// The allowed error (value units).
    pub tolerance: f64,
    /// How many samples are out of tolerance.
    pub failures: usize,
    /// The first sample (row-major) that is.
    pub first_failure: Option<Mismatch>,
}

/// One sample that is out of tolerance.
#[derive(Clone, Copy, Debug)]
pub struct Mismatch {
    pub x: usize,
    pub y: usize,
    pub channel: usize,
    /// What the variant produced (raw sample: a level for integer types).
    pub got: f64,
    /// What the reference gives, on the same scale as `got`, before rounding.
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
                "{} samples out of tolerance {:.2e}; first at (x={}, y={}, c={}): got {}, expected {}",
                self.failures, self.tolerance, m.x, m.y, m.channel, m.got, m.expected
            ),
        }
    }
}

/// The most a result of magnitude at most `v` moves when stored in the half-float samples `s`:
/// half a unit in its last place (`2⁻¹¹` of it for `f16`, `2⁻⁸` for `bf16`; `f16`'s subnormal
/// spacing, `2⁻²⁴`, at least); 0 for other samples.
fn half_rounding(s: &Samples, v: f64) -> f64 {
    match s {
        Samples::F16(_) => (v * 2f64.powi(-11)).max(2f64.powi(-25)),
        Samples::BF16(_) => v * 2f64.powi(-8),
        _ => 0.0,
    }
}

/// Compares `got` with the reference. Float results must lie within `tolerance` of the
/// reference (clamped to [0, 1] first when `clamp`, except RGBA's alpha), half floats within
/// their store's rounding more. Integer results must equal the
/// reference clamped to [0, 1] and rounded, or differ by one level where the exact value lies
/// within `tolerance` of the rounding boundary between the two. NaN or infinity always fails, so
/// an output pixel left at its NaN poison is caught.
pub fn compare(got: &Image, expected: &Reference, tolerance: f64, clamp: bool) -> Comparison {
    let mut c = Comparison {
        max_error: 0.0,
        tolerance,
        failures: 0,
        first_failure: None,
    };
    let shape = (got.width(), got.height(), got.channels());
    let n = expected.values.len();
    if shape != (expected.width, expected.height, expected.channels) || got.samples().len() != n {
        c.max_error = f64::INFINITY;
        c.failures = n.max(1);
        return c;
    }
    let ch = expected.channels;
    let levels = got.dtype().levels();
    for (i, &e) in expected.values.iter().enumerate() {
        let alpha = is_alpha(ch, i % ch);
        let (ok, err, raw, scaled_expected) = match (levels, got.samples()) {
            (None, s) => {
                let want = if clamp && !alpha { e.clamp(0.0, 1.0) } else { e };
                let g = s.value(i);
                let err = if g.is_finite() {
                    (g - want).abs()
                } else {
                    f64::INFINITY
                };
                (
                    err <= tolerance + half_rounding(s, tolerance + want.abs()),
                    err,
                    g,
                    want,
                )
            }
            (Some(max), s) => {
                let ideal = e.clamp(0.0, 1.0) * max;
                let g = s.value(i) * max;
                let nearest = (ideal + 0.5).floor();
                let ok = g == nearest
                    || ((g - nearest).abs() == 1.0 && (g - ideal).abs() <= 0.5 + tolerance * max);
                (ok, (g - ideal).abs() / max, g, ideal)
            }
        };
        c.max_error = c.max_error.max(err);
        if !ok {
            c.failures += 1;
            c.first_failure.get_or_insert(Mismatch {
                x: (i / ch) % expected.width,
                y: i / ch / expected.width,
                channel: i % ch,
                got: raw,
                expected: scaled_expected,
            });
        }
    }
    c
}
