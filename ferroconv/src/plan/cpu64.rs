//! [`CpuFloat64Plan`]: a filter of `f64` taps run on `f64` images in host memory, computed in
//! `f64` on the CPU, as scipy computes float64 arrays.
//!
//! Each output row is the sum over the filter's rows of its taps times a padded input row (the
//! image row the border gives, extended by it along the row); a `k × 1` filter (a column pass)
//! reads the image rows as they are. Rows are computed in tiles (16 to 256 samples, the `k` rows'
//! share of a tile at most [`TILE`] bytes), so that what a tile reads stays in the L1 cache while
//! a band of output rows moves down; each output sums its terms in the same order (the taps row by
//! row) wherever it lies, so bands and threads give the same bits. Bands of rows run on the
//! library's threads when the work is large enough to pay for waking them.

use crate::engine::cpu::pool;
use crate::{Border, Error, Result};
use rayon::prelude::*;
use std::cell::RefCell;

/// Bytes of the filter's rows a tile reads (half of a 32 KiB L1 data cache).
const TILE: usize = 16 << 10;
/// Outputs accumulated together in registers (4 AVX2 vectors).
const BLOCK: usize = 16;
/// Multiply-adds below which a call runs on the calling thread (waking the pool costs more).
const PARALLEL_MIN: usize = 1 << 20;

/// A `ky × kx` filter of `f64` taps with tap `(cy, cx)` over the output sample and a border, for
/// packed `f64` host images of interleaved channels (each filtered), in batches.
pub struct CpuFloat64Plan {
    /// Row-major taps.
    taps: Vec<f64>,
    ky: usize,
    kx: usize,
    cy: usize,
    cx: usize,
    border: Border,
    /// The value outside the image of a constant border (0 for [`Border::Zero`]).
    cval: f64,
}

/// Each thread's padded rows, reused band after band and call after call.
#[derive(Default)]
struct Scratch {
    padded: Vec<f64>,
    /// A column pass's tiles of its rows, packed (see [`Run::band`]).
    packed: Vec<f64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl CpuFloat64Plan {
    /// The plan of `taps` (`ky × kx`, row-major, each side at least 1) with the tap `(cy, cx)`
    /// over the output sample and `border` (not [`Border::Valid`]); `cval` is the constant
    /// border's value (the others ignore it).
    pub fn new(
        taps: &[f64],
        (ky, kx): (usize, usize),
        (cy, cx): (usize, usize),
        border: Border,
        cval: f64,
    ) -> Result<Self> {
        if ky == 0 || kx == 0 || ky.checked_mul(kx) != Some(taps.len()) {
            return Err(Error::Filter(format!(
                "a float64 filter of {} taps as {ky}x{kx}: each side at least 1",
                taps.len()
            )));
        }
        if cy >= ky || cx >= kx {
            return Err(Error::Filter(format!(
                "the centre ({cy}, {cx}) is outside the {ky}x{kx} filter"
            )));
        }
        if border == Border::Valid {
            return Err(Error::InvalidRequest(
                "the float64 plan keeps the image's size: no valid border".into(),
            ));
        }
        if !cval.is_finite() || !taps.iter().all(|t| t.is_finite()) {
            return Err(Error::Filter("float64 taps and cval must be finite".into()));
        }
        let cval = if matches!(border, Border::Constant(_)) {
            cval
        } else {
            0.0
        };
        Ok(Self {
            taps: taps.to_vec(),
            ky,
            kx,
            cy,
            cx,
            border,
            cval,
        })
    }

    /// Filters `images` packed `width × height × channels` images `src` into `dst` (the same
    /// shape, another array).
    pub fn run(
        &self,
        src: &[f64],
        dst: &mut [f64],
        (width, height, channels, images): (usize, usize, usize, usize),
    ) -> Result<()> {
        let row_len = width * channels;
        let len = images
            .checked_mul(height)
            .and_then(|r| r.checked_mul(row_len))
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "an empty or too large batch: {images} images of {width}x{height}x{channels}"
                ))
            })?;
        if src.len() != len || dst.len() != len {
            return Err(Error::Mismatch(format!(
                "{} input and {} output samples for {images} images of {width}x{height}x{channels}",
                src.len(),
                dst.len()
            )));
        }
        let run = Run::new(self, src, (width, height, channels));
        let rows = images * height;
        let work = len.saturating_mul(self.taps.len());
        if work < PARALLEL_MIN {
            SCRATCH.with_borrow_mut(|s| {
                for (i, image) in dst.chunks_exact_mut(height * row_len).enumerate() {
                    run.band(i, 0, image, s);
                }
            });
            return Ok(());
        }
        let threads = pool::threads();
        // Bands of rows within an image: several per thread, so that threads finish together.
        let band = height.min(rows.div_ceil(threads * 4)).clamp(1, 64);
        let mut tasks = Vec::with_capacity(rows.div_ceil(band) + images);
        for (i, image) in dst.chunks_exact_mut(height * row_len).enumerate() {
            for (b, out) in image.chunks_mut(band * row_len).enumerate() {
                tasks.push((i, b * band, out));
            }
        }
        pool::install(|| {
            tasks
                .into_par_iter()
                .for_each(|(i, y0, out)| SCRATCH.with_borrow_mut(|s| run.band(i, y0, out, s)));
        });
        Ok(())
    }
}

/// One call: the plan, the images and the source of each padded column.
struct Run<'a> {
    plan: &'a CpuFloat64Plan,
    src: &'a [f64],
    width: usize,
    height: usize,
    channels: usize,
    /// Image column of each padded column (`None`: outside, reads `cval`); empty for `kx == 1`.
    columns: Vec<Option<usize>>,
    /// A row of `cval` (the rows outside the image of a `k × 1` filter).
    outside: Vec<f64>,
}

impl<'a> Run<'a> {
    fn new(
        plan: &'a CpuFloat64Plan,
        src: &'a [f64],
        (width, height, channels): (usize, usize, usize),
    ) -> Self {
        let columns = if plan.kx == 1 {
            Vec::new()
        } else {
            (0..width + plan.kx - 1)
                .map(|px| plan.border.source(px as isize - plan.cx as isize, width))
                .collect()
        };
        let outside = if plan.kx == 1 && matches!(plan.border, Border::Constant(_) | Border::Zero) {
            vec![plan.cval; width * channels]
        } else {
            Vec::new()
        };
        Self {
            plan,
            src,
            width,
            height,
            channels,
            columns,
            outside,
        }
    }

    /// Image row `y` of image `i`, or `None` outside.
    fn image_row(&self, i: usize, y: isize) -> Option<&'a [f64]> {
        let row_len = self.width * self.channels;
        let yy = self.plan.border.source(y, self.height)?;
        Some(&self.src[(i * self.height + yy) * row_len..][..row_len])
    }

    /// Padded row of image row `y` of image `i` into `dst` (`(width + kx - 1) · channels`).
    fn pad(&self, i: usize, y: isize, dst: &mut [f64]) {
        let Some(row) = self.image_row(i, y) else {
            dst.fill(self.plan.cval);
            return;
        };
        let (c, first) = (self.channels, self.plan.cx);
        // Padded columns `cx .. cx + width` are the image's own.
        dst[first * c..(first + self.width) * c].copy_from_slice(row);
        for px in (0..first).chain(first + self.width..self.columns.len()) {
            let to = &mut dst[px * c..(px + 1) * c];
            match self.columns[px] {
                Some(sx) => to.copy_from_slice(&row[sx * c..(sx + 1) * c]),
                None => to.fill(self.plan.cval),
            }
        }
    }

    /// Output rows `y0 ..` of image `i` into `out` (whole rows).
    fn band(&self, i: usize, y0: usize, out: &mut [f64], s: &mut Scratch) {
        let p = self.plan;
        let (c, row_len) = (self.channels, self.width * self.channels);
        let count = out.len() / row_len;
        // Padded rows `y0 - cy .. y0 + count + ky - 1 - cy`, in order.
        let first = y0 as isize - p.cy as isize;
        let needed = count + p.ky - 1;
        let rows: Vec<&[f64]> = if p.kx == 1 {
            (0..needed)
                .map(|r| {
                    self.image_row(i, first + r as isize)
                        .unwrap_or(self.outside.as_slice())
                })
                .collect()
        } else {
            let padded_len = self.columns.len() * c;
            s.padded.resize(needed * padded_len, 0.0);
            for (r, dst) in s.padded.chunks_exact_mut(padded_len).enumerate() {
                self.pad(i, first + r as isize, dst);
            }
            s.padded.chunks_exact(padded_len).collect()
        };
        let tile = (TILE / (p.ky * size_of::<f64>()) / BLOCK * BLOCK).clamp(BLOCK, 256);
        for x0 in (0..row_len).step_by(tile) {
            let n = tile.min(row_len - x0);
            if p.kx == 1 && p.ky > 1 {
                // A column pass: the rows' tiles packed (at a stride that is no multiple of 4 KiB,
                // where image rows often are: their lines would share a few L1 sets), then read.
                let stride = n + 8;
                s.packed.resize(needed * stride, 0.0);
                for (row, dst) in rows.iter().zip(s.packed.chunks_exact_mut(stride)) {
                    dst[..n].copy_from_slice(&row[x0..x0 + n]);
                }
                let packed: Vec<&[f64]> = s.packed.chunks_exact(stride).collect();
                for (r, row) in out.chunks_exact_mut(row_len).enumerate() {
                    tile_best(&packed[r..r + p.ky], &p.taps, 1, c, 0, &mut row[x0..x0 + n]);
                }
                continue;
            }
            for (r, row) in out.chunks_exact_mut(row_len).enumerate() {
                tile_best(&rows[r..r + p.ky], &p.taps, p.kx, c, x0, &mut row[x0..x0 + n]);
            }
        }
    }
}

/// `out[l] = Σ_{i,j} rows[i][x0 + l + j·step] · taps[i·kx + j]` for every `l` of `out`, the terms
/// summed in the taps' order; [`BLOCK`] outputs at a time in registers, then one at a time.
#[inline(always)]
fn tile<const FMA: bool>(rows: &[&[f64]], taps: &[f64], kx: usize, step: usize, x0: usize, out: &mut [f64]) {
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
    let blocks = out.len() / BLOCK;
    for (b, block) in out[..blocks * BLOCK].chunks_exact_mut(BLOCK).enumerate() {
        let x = x0 + b * BLOCK;
        let mut acc = [0.0f64; BLOCK];
        for (row, row_taps) in rows.iter().zip(taps.chunks_exact(kx)) {
            for (j, &t) in row_taps.iter().enumerate() {
                let at = x + j * step;
                let src: &[f64; BLOCK] = row[at..at + BLOCK].try_into().expect("BLOCK samples");
                for (a, &v) in acc.iter_mut().zip(src) {
                    *a = madd(v, t, *a);
                }
            }
        }
        block.copy_from_slice(&acc);
    }
    for (l, o) in out.iter_mut().enumerate().skip(blocks * BLOCK) {
        let mut acc = 0.0;
        for (row, row_taps) in rows.iter().zip(taps.chunks_exact(kx)) {
            for (j, &t) in row_taps.iter().enumerate() {
                acc = madd(row[x0 + l + j * step], t, acc);
            }
        }
        *o = acc;
    }
}

/// [`tile`] compiled for AVX2 + FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2(rows: &[&[f64]], taps: &[f64], kx: usize, step: usize, x0: usize, out: &mut [f64]) {
    tile::<true>(rows, taps, kx, step, x0, out)
}

/// [`tile`] with the best instructions the CPU has (AVX2 + FMA where detected on x86-64).
fn tile_best(rows: &[&[f64]], taps: &[f64], kx: usize, step: usize, x0: usize, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { tile_avx2(rows, taps, kx, step, x0, out) };
    }
    tile::<{ cfg!(target_arch = "aarch64") }>(rows, taps, kx, step, x0, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// The textbook sum over every tap, each sample read through [`Border::source`].
    fn naive(src: &[f64], (w, h, c, n): (usize, usize, usize, usize), p: &CpuFloat64Plan) -> Vec<f64> {
        let mut out = vec![0.0; src.len()];
        for i in 0..n {
            for y in 0..h {
                for x in 0..w {
                    for ch in 0..c {
                        let mut acc = 0.0;
                        for a in 0..p.ky {
                            for b in 0..p.kx {
                                let sy = p.border.source(y as isize + a as isize - p.cy as isize, h);
                                let sx = p.border.source(x as isize + b as isize - p.cx as isize, w);
                                let v = match (sy, sx) {
                                    (Some(sy), Some(sx)) => src[((i * h + sy) * w + sx) * c + ch],
                                    _ => p.cval,
                                };
                                acc += v * p.taps[a * p.kx + b];
                            }
                        }
                        out[((i * h + y) * w + x) * c + ch] = acc;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn matches_the_textbook_sum_on_every_border_and_shape() {
        let mut rng = StdRng::seed_from_u64(7);
        let borders = [
            Border::Zero,
            Border::Replicate,
            Border::Reflect,
            Border::Symmetric,
            Border::Wrap,
            Border::Constant(0.75),
        ];
        // (width, height, channels, images, ky, kx): tiny, odd, longer than the image, and large
        // enough to run on the pool (more than a tile per row).
        let cases = [
            (1, 1, 1, 1, 1, 1),
            (1, 1, 1, 2, 3, 3),
            (5, 3, 1, 1, 7, 1),
            (3, 5, 3, 2, 1, 7),
            (17, 9, 4, 1, 5, 5),
            (37, 11, 1, 3, 1, 31),
            (300, 400, 1, 1, 9, 1),
            (40, 30, 2, 1, 61, 1),
            (290, 60, 3, 2, 3, 5),
        ];
        for &(w, h, c, n, ky, kx) in &cases {
            for border in borders {
                let taps: Vec<f64> = (0..ky * kx).map(|_| rng.random_range(-1.0..1.0)).collect();
                let centre = (rng.random_range(0..ky), rng.random_range(0..kx));
                let plan = CpuFloat64Plan::new(&taps, (ky, kx), centre, border, 0.75).unwrap();
                let src: Vec<f64> = (0..w * h * c * n).map(|_| rng.random_range(-2.0..2.0)).collect();
                let mut dst = vec![f64::NAN; src.len()];
                plan.run(&src, &mut dst, (w, h, c, n)).unwrap();
                let want = naive(&src, (w, h, c, n), &plan);
                let bound =
                    2.0 * (ky * kx) as f64 * f64::EPSILON * taps.iter().map(|t| t.abs()).sum::<f64>() * 2.0;
                for (k, (a, b)) in dst.iter().zip(&want).enumerate() {
                    assert!(
                        (a - b).abs() <= bound,
                        "{border:?} {w}x{h}x{c}x{n} {ky}x{kx} at {k}: {a} vs {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        let plan =
            |taps: &[f64], shape, centre, border| CpuFloat64Plan::new(taps, shape, centre, border, 0.0);
        assert!(plan(&[1.0; 4], (2, 3), (0, 0), Border::Wrap).is_err());
        assert!(plan(&[1.0; 3], (1, 3), (0, 3), Border::Wrap).is_err());
        assert!(plan(&[1.0; 3], (1, 3), (0, 1), Border::Valid).is_err());
        assert!(plan(&[f64::NAN; 3], (1, 3), (0, 1), Border::Wrap).is_err());
        let p = plan(&[1.0; 3], (1, 3), (0, 1), Border::Wrap).unwrap();
        let mut dst = vec![0.0; 5];
        assert!(p.run(&[1.0; 6], &mut dst, (3, 2, 1, 1)).is_err());
        assert!(p.run(&[], &mut [], (0, 2, 1, 1)).is_err());
    }
}
