//! [`CpuPlan`]: a filter of `f64` taps run on `f64` or `f32` images in host memory on the CPU,
//! computed in the images' own type (`f64` as scipy computes float64 arrays).
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
/// Outputs accumulated together in registers (8 AVX2 vectors of `f64`, 4 of `f32`: enough
/// independent multiply-adds in flight to hide their latency), then [`SHORT`] at a time.
const BLOCK: usize = 32;
/// Outputs accumulated together past the last whole [`BLOCK`].
const SHORT: usize = 8;
/// Rows past which a column pass packs the tiles it reads (fewer share an L1 set's 8 ways).
const PACK_ROWS: usize = 4;
/// Multiply-adds below which a call runs on the calling thread (waking the pool costs more).
const PARALLEL_MIN: usize = 1 << 20;

/// A `ky × kx` filter of `f64` taps with tap `(cy, cx)` over the output sample and a border, for
/// packed `f64` or `f32` host images of interleaved channels (each filtered), in batches.
pub struct CpuPlan {
    /// Row-major taps.
    taps: Vec<f64>,
    /// The taps rounded to `f32`, for `f32` images.
    taps32: Vec<f32>,
    ky: usize,
    kx: usize,
    cy: usize,
    cx: usize,
    border: Border,
    /// The value outside the image of a constant border (0 for [`Border::Zero`]).
    cval: f64,
}

/// Each thread's padded rows (as 8-byte words, viewed as the samples' type), reused band after
/// band and call after call.
#[derive(Default)]
struct Scratch {
    padded: Vec<u64>,
    /// A column pass's tiles of its rows, packed (see [`Run::band`]).
    packed: Vec<u64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `len` samples of `T` in `buf`, grown as needed (their values left as they were).
fn samples<T: Real>(buf: &mut Vec<u64>, len: usize) -> &mut [T] {
    let words = (len * size_of::<T>()).div_ceil(size_of::<u64>());
    if buf.len() < words {
        buf.resize(words, 0);
    }
    &mut bytemuck::cast_slice_mut::<u64, T>(&mut buf[..words])[..len]
}

/// The sample types a [`CpuPlan`] runs, each computed in itself: `f64` and `f32`.
pub trait Real:
    bytemuck::Pod + Send + Sync + Default + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self>
{
    /// The plan's taps in this type.
    fn taps(plan: &CpuPlan) -> &[Self];
    /// `v` rounded to this type.
    fn of(v: f64) -> Self;
    /// `a · b + c`, rounded once.
    fn mul_add(a: Self, b: Self, c: Self) -> Self;
}

impl Real for f64 {
    fn taps(plan: &CpuPlan) -> &[Self] {
        &plan.taps
    }
    fn of(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        a.mul_add(b, c)
    }
}

impl Real for f32 {
    fn taps(plan: &CpuPlan) -> &[Self] {
        &plan.taps32
    }
    fn of(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        a.mul_add(b, c)
    }
}

impl CpuPlan {
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
            taps32: taps.iter().map(|&t| t as f32).collect(),
            ky,
            kx,
            cy,
            cx,
            border,
            cval,
        })
    }

    /// Filters `images` packed `width × height × channels` images `src` into `dst` (the same
    /// shape, another array), computed in their type.
    pub fn run<T: Real>(
        &self,
        src: &[T],
        dst: &mut [T],
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
struct Run<'a, T> {
    plan: &'a CpuPlan,
    src: &'a [T],
    /// The constant border's value in `T`.
    cval: T,
    width: usize,
    height: usize,
    channels: usize,
    /// Image column of each padded column (`None`: outside, reads `cval`); empty for `kx == 1`.
    columns: Vec<Option<usize>>,
    /// A row of `cval` (the rows outside the image of a `k × 1` filter).
    outside: Vec<T>,
}

impl<'a, T: Real> Run<'a, T> {
    fn new(plan: &'a CpuPlan, src: &'a [T], (width, height, channels): (usize, usize, usize)) -> Self {
        let columns = if plan.kx == 1 {
            Vec::new()
        } else {
            (0..width + plan.kx - 1)
                .map(|px| plan.border.source(px as isize - plan.cx as isize, width))
                .collect()
        };
        let outside = if plan.kx == 1 && matches!(plan.border, Border::Constant(_) | Border::Zero) {
            vec![T::of(plan.cval); width * channels]
        } else {
            Vec::new()
        };
        Self {
            plan,
            src,
            cval: T::of(plan.cval),
            width,
            height,
            channels,
            columns,
            outside,
        }
    }

    /// Image row `y` of image `i`, or `None` outside.
    fn image_row(&self, i: usize, y: isize) -> Option<&'a [T]> {
        let row_len = self.width * self.channels;
        let yy = self.plan.border.source(y, self.height)?;
        Some(&self.src[(i * self.height + yy) * row_len..][..row_len])
    }

    /// Padded row of image row `y` of image `i` into `dst` (`(width + kx - 1) · channels`).
    fn pad(&self, i: usize, y: isize, dst: &mut [T]) {
        let Some(row) = self.image_row(i, y) else {
            dst.fill(self.cval);
            return;
        };
        let (c, first) = (self.channels, self.plan.cx);
        // Padded columns `cx .. cx + width` are the image's own.
        dst[first * c..(first + self.width) * c].copy_from_slice(row);
        for px in (0..first).chain(first + self.width..self.columns.len()) {
            let to = &mut dst[px * c..(px + 1) * c];
            match self.columns[px] {
                Some(sx) => to.copy_from_slice(&row[sx * c..(sx + 1) * c]),
                None => to.fill(self.cval),
            }
        }
    }

    /// Output rows `y0 ..` of image `i` into `out` (whole rows).
    fn band(&self, i: usize, y0: usize, out: &mut [T], s: &mut Scratch) {
        let p = self.plan;
        let (c, row_len) = (self.channels, self.width * self.channels);
        let count = out.len() / row_len;
        // Padded rows `y0 - cy .. y0 + count + ky - 1 - cy`, in order.
        let first = y0 as isize - p.cy as isize;
        let needed = count + p.ky - 1;
        let taps = T::taps(p);
        let rows: Vec<&[T]> = if p.kx == 1 {
            (0..needed)
                .map(|r| {
                    self.image_row(i, first + r as isize)
                        .unwrap_or(self.outside.as_slice())
                })
                .collect()
        } else {
            let padded_len = self.columns.len() * c;
            let padded = samples::<T>(&mut s.padded, needed * padded_len);
            for (r, dst) in padded.chunks_exact_mut(padded_len).enumerate() {
                self.pad(i, first + r as isize, dst);
            }
            let padded: &[T] = padded;
            padded.chunks_exact(padded_len).collect()
        };
        let tile = (TILE / (p.ky * size_of::<T>()) / BLOCK * BLOCK).clamp(BLOCK, 256);
        for x0 in (0..row_len).step_by(tile) {
            let n = tile.min(row_len - x0);
            if p.kx == 1 && p.ky > PACK_ROWS {
                // A column pass of many rows: their tiles packed (at a stride that is no multiple
                // of 4 KiB, where image rows often are: their lines would share a few L1 sets),
                // then read.
                let stride = n + 8;
                let packed = samples::<T>(&mut s.packed, needed * stride);
                for (row, dst) in rows.iter().zip(packed.chunks_exact_mut(stride)) {
                    dst[..n].copy_from_slice(&row[x0..x0 + n]);
                }
                let packed: &[T] = packed;
                let packed: Vec<&[T]> = packed.chunks_exact(stride).collect();
                for (r, row) in out.chunks_exact_mut(row_len).enumerate() {
                    tile_best(&packed[r..r + p.ky], taps, 1, c, 0, &mut row[x0..x0 + n]);
                }
                continue;
            }
            for (r, row) in out.chunks_exact_mut(row_len).enumerate() {
                tile_best(&rows[r..r + p.ky], taps, p.kx, c, x0, &mut row[x0..x0 + n]);
            }
        }
    }
}

/// `out[l] = Σ_{i,j} rows[i][x0 + l + j·step] · taps[i·kx + j]` for every `l` of `out`, the terms
/// summed in the taps' order: [`BLOCK`] outputs at a time in registers, then [`SHORT`], then one.
#[inline(always)]
fn tile<T: Real, const FMA: bool>(
    rows: &[&[T]],
    taps: &[T],
    kx: usize,
    step: usize,
    x0: usize,
    out: &mut [T],
) {
    let done = blocks::<T, BLOCK, FMA>(rows, taps, kx, step, x0, out);
    let done = done + blocks::<T, SHORT, FMA>(rows, taps, kx, step, x0 + done, &mut out[done..]);
    let madd = |a: T, b: T, c: T| if FMA { T::mul_add(a, b, c) } else { a * b + c };
    for (l, o) in out.iter_mut().enumerate().skip(done) {
        let mut acc = T::default();
        for (row, row_taps) in rows.iter().zip(taps.chunks_exact(kx)) {
            for (j, &t) in row_taps.iter().enumerate() {
                acc = madd(row[x0 + l + j * step], t, acc);
            }
        }
        *o = acc;
    }
}

/// [`tile`]'s whole blocks of `B` outputs; returns how many outputs they hold.
#[inline(always)]
fn blocks<T: Real, const B: usize, const FMA: bool>(
    rows: &[&[T]],
    taps: &[T],
    kx: usize,
    step: usize,
    x0: usize,
    out: &mut [T],
) -> usize {
    let madd = |a: T, b: T, c: T| if FMA { T::mul_add(a, b, c) } else { a * b + c };
    let (blocks, _) = out.as_chunks_mut::<B>();
    for (b, block) in blocks.iter_mut().enumerate() {
        let x = x0 + b * B;
        let mut acc = [T::default(); B];
        for (row, row_taps) in rows.iter().zip(taps.chunks_exact(kx)) {
            for (j, &t) in row_taps.iter().enumerate() {
                let at = x + j * step;
                let src: &[T; B] = row[at..at + B].try_into().expect("B samples");
                for (a, &v) in acc.iter_mut().zip(src) {
                    *a = madd(v, t, *a);
                }
            }
        }
        *block = acc;
    }
    blocks.len() * B
}

/// [`tile`] compiled for AVX2 + FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2<T: Real>(rows: &[&[T]], taps: &[T], kx: usize, step: usize, x0: usize, out: &mut [T]) {
    tile::<T, true>(rows, taps, kx, step, x0, out)
}

/// [`tile`] with the best instructions the CPU has (AVX2 + FMA where detected on x86-64).
fn tile_best<T: Real>(rows: &[&[T]], taps: &[T], kx: usize, step: usize, x0: usize, out: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { tile_avx2(rows, taps, kx, step, x0, out) };
    }
    tile::<T, { cfg!(target_arch = "aarch64") }>(rows, taps, kx, step, x0, out)
}

#[cfg(test)]
mod tests;
