//! CPU convolutions: the `f64` reference (the oracle for every check), the textbook four-loop
//! baseline and the timed fast paths (vectorized, in bands of rows, rank-1 filters in two passes).
//!
//! All compute the correlation `out(y,x) = Σ_{i,j} in(y+i-r+o, x+j-r+o) · f(i, j)` per channel,
//! where `o` is `r` for the valid border and 0 otherwise, pixels outside the image defined by the
//! border mode; RGBA's alpha is copied from the input pixel the output is centred on.
//!
//! The fast paths work on interleaved rows as they are: a padded row holds every channel, so the
//! horizontal taps are `channels` samples apart and gray, RGB and RGBA run the same vector loop.
//! Integer samples are widened to `f32` a row at a time (in levels, no scaling) and narrowed with
//! rounding a row at a time.

mod naive;
pub(crate) mod pool;
mod reference;
mod simd;

pub use naive::naive_sequential;
pub use reference::{Reference, reference, reference_parallel};

use crate::model::filter::Separable;
use crate::model::image::{Samples, for_dtype};
use crate::{Border, Error, Filter, Image, Result};
use rayon::prelude::*;
pub(crate) use simd::Sample;
use simd::{BLOCK, Vector, correlate, correlate_pair, store_fence};
use std::cell::RefCell;

/// Multiply-adds below which a call runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 20;

/// Whether sample `c` of a `channels`-channel image is RGBA's alpha, which is copied unfiltered.
pub fn is_alpha(channels: usize, c: usize) -> bool {
    channels == 4 && c == 3
}

/// The factors [`sequential`] and [`parallel`] convolve with in two passes: `Some` for a rank-1
/// filter larger than 1×1 (see [`Filter::rank1`]), `None` when they take the 2D path. Their
/// results are then checked with the factorization's error in the tolerance.
pub fn separable_form(filter: &Filter) -> Option<Separable> {
    (filter.size() > 1).then(|| filter.rank1()).flatten()
}

/// How the non-alpha channels are convolved: the 2D filter, or its two 1D passes.
enum Method<'a> {
    Direct(&'a Filter),
    Separable(&'a Separable),
}

impl Method<'_> {
    fn size(&self) -> usize {
        match self {
            Method::Direct(f) => f.size(),
            Method::Separable(s) => s.row.len(),
        }
    }
}

/// One convolution of samples of type `T`: the image, where each padded row comes from, and the
/// sizes of the working rows.
struct Plan<'a, T> {
    src: &'a [T],
    method: Method<'a>,
    border: Border,
    clamp: bool,
    /// RGBA's alpha is copied from the input (else filtered like the other channels).
    copy_alpha: bool,
    /// Integer results truncated with this widening ([`crate::Problem::widen`]), else rounded.
    widen: Option<f64>,
    /// Image width, height, channels.
    w: usize,
    h: usize,
    ch: usize,
    /// Output width; filter side.
    ow: usize,
    k: usize,
    /// Output pixel `(x, y)` is centred on image pixel `(x + off, y + off)`.
    off: usize,
    /// Padded row `py` (pixel `px`) is image row (pixel) `border.source(py - shift)`.
    shift: isize,
    /// Source pixel of each padded pixel (`None`: outside the image, reads `outside`).
    columns: Vec<Option<usize>>,
    /// The value of a pixel outside the image, in the samples' units (the constant border's).
    outside: f32,
    /// Output samples of a working row, rounded up to a whole number of [`BLOCK`]s.
    work: usize,
    /// `f32` samples of a padded row: `work` plus the `(k - 1)` pixels the taps reach past it.
    stride: usize,
}

impl<T: Sample> Plan<'_, T> {
    /// Padded row `py` into `dst` (`stride` samples, every one written; past the padded width,
    /// zeros): the image columns widened in one vector loop, the border pixels one by one.
    #[inline(always)]
    fn fill(&self, py: usize, dst: &mut [f32]) {
        let (w, ch) = (self.w, self.ch);
        let pw = self.columns.len();
        let Some(yy) = self.border.source(py as isize - self.shift, self.h) else {
            dst.fill(self.outside);
            return;
        };
        let row = &self.src[yy * w * ch..(yy + 1) * w * ch];
        let first = self.shift.max(0) as usize;
        let n = w.min(pw - first);
        T::load_row(&row[..n * ch], &mut dst[first * ch..(first + n) * ch]);
        for px in (0..first).chain(first + n..pw) {
            let to = &mut dst[px * ch..(px + 1) * ch];
            match self.columns[px] {
                Some(sx) => {
                    for (d, s) in to.iter_mut().zip(&row[sx * ch..(sx + 1) * ch]) {
                        *d = s.load();
                    }
                }
                None => to.fill(self.outside),
            }
        }
        dst[pw * ch..].fill(0.0);
    }

    /// Output row `y` from its computed working row: RGBA's alpha copied from the input (unless
    /// it is filtered), then narrowed. Alpha goes into the working row first (exact for every
    /// sample type), so the output row is written once, which keeps `f32` rows on non-temporal
    /// stores; only clamped rows (whose alpha must escape the clamp) get it afterwards.
    #[inline(always)]
    fn store(&self, y: usize, acc: &mut [f32], out: &mut [T]) {
        let alpha = (self.ch == 4 && self.copy_alpha)
            .then(|| &self.src[((y + self.off) * self.w + self.off) * 4..][..out.len()]);
        if let Some(row) = alpha
            && !self.clamp
        {
            for (a, s) in acc.chunks_exact_mut(4).zip(row.chunks_exact(4)) {
                a[3] = s[3].load();
            }
        }
        T::store_row(&acc[..out.len()], out, self.clamp, self.widen);
        if let Some(row) = alpha
            && self.clamp
        {
            for (o, s) in out.chunks_exact_mut(4).zip(row.chunks_exact(4)) {
                o[3] = s[3];
            }
        }
    }
}

/// Each thread's working rows, reused band after band and call after call.
#[derive(Default)]
struct Scratch {
    /// The last `k` padded rows (2D path) or row-pass rows (separable path), slot `py % k`.
    ring: Vec<f32>,
    /// One padded row (separable path).
    line: Vec<f32>,
    /// The output row being computed.
    acc: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Output rows `y0 .. y0 + out.len() / (ow · ch)`: padded rows enter a ring of `k` as the band
/// moves down (the first `k - 1` before its first row), so each is widened (and, for the
/// separable path, row-filtered) once per band; every output row is computed in the same order
/// wherever the band starts, so bands, strips and threads give the same bits.
#[inline(always)]
fn band<T: Sample, V: Vector>(plan: &Plan<'_, T>, y0: usize, out: &mut [T], s: &mut Scratch) {
    let (k, ch, stride, work) = (plan.k, plan.ch, plan.stride, plan.work);
    let row_len = plan.ow * ch;
    s.acc.resize(2 * work, 0.0);
    match plan.method {
        Method::Direct(filter) => {
            // Output rows two at a time (the last one of an odd band alone), from a ring of
            // `k + 1` padded rows.
            let slots = k + 1;
            s.ring.resize(slots * stride, 0.0);
            for py in y0..y0 + k - 1 {
                plan.fill(py, ring_slot(&mut s.ring, py, slots, stride));
            }
            let y_last = y0 + out.len() / row_len - 1;
            let mut pairs = out.chunks_exact_mut(2 * row_len);
            for (y, pair) in (y0..).step_by(2).zip(&mut pairs) {
                for py in y + k - 1..y + k + 1 {
                    plan.fill(py, ring_slot(&mut s.ring, py, slots, stride));
                }
                let rows = ring_rows(&s.ring, y..y + k + 1, slots, stride);
                let (top, bottom) = s.acc.split_at_mut(work);
                correlate_pair::<V>(&rows, filter.taps(), k, ch, top, bottom);
                let (out_top, out_bottom) = pair.split_at_mut(row_len);
                plan.store(y, top, out_top);
                plan.store(y + 1, bottom, out_bottom);
            }
            let last = pairs.into_remainder();
            if !last.is_empty() {
                plan.fill(
                    y_last + k - 1,
                    ring_slot(&mut s.ring, y_last + k - 1, slots, stride),
                );
                let rows = ring_rows(&s.ring, y_last..y_last + k, slots, stride);
                correlate::<V>(&rows, filter.taps(), k, ch, &mut s.acc[..work]);
                plan.store(y_last, &mut s.acc, last);
            }
        }
        Method::Separable(sep) => {
            s.ring.resize(k * work, 0.0);
            s.line.resize(stride, 0.0);
            for py in y0..y0 + k - 1 {
                row_pass::<T, V>(plan, sep, py, s);
            }
            for (y, out) in (y0..).zip(out.chunks_exact_mut(row_len)) {
                row_pass::<T, V>(plan, sep, y + k - 1, s);
                let rows = ring_rows(&s.ring, y..y + k, k, work);
                correlate::<V>(&rows, &sep.column, 1, ch, &mut s.acc[..work]);
                plan.store(y, &mut s.acc, out);
            }
        }
    }
    store_fence();
}

/// Padded row `py` widened into the line, then filtered along the row into its ring slot.
#[inline(always)]
fn row_pass<T: Sample, V: Vector>(plan: &Plan<'_, T>, sep: &Separable, py: usize, s: &mut Scratch) {
    let (k, work) = (plan.k, plan.work);
    plan.fill(py, &mut s.line);
    correlate::<V>(
        &[&s.line],
        &sep.row,
        k,
        plan.ch,
        ring_slot(&mut s.ring, py, k, work),
    );
}

/// Slot of row `py` in a ring of `slots` rows of `len` samples.
#[inline(always)]
fn ring_slot(ring: &mut [f32], py: usize, slots: usize, len: usize) -> &mut [f32] {
    &mut ring[(py % slots) * len..][..len]
}

/// Rows `rows` of a ring of `slots` rows of `len` samples, in order.
#[inline(always)]
fn ring_rows(ring: &[f32], rows: std::ops::Range<usize>, slots: usize, len: usize) -> Vec<&[f32]> {
    rows.map(|py| &ring[(py % slots) * len..][..len]).collect()
}

/// [`band`] compiled for AVX2 + FMA, on their intrinsics.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn band_avx2<T: Sample>(plan: &Plan<'_, T>, y0: usize, out: &mut [T], s: &mut Scratch) {
    band::<T, simd::Avx2>(plan, y0, out, s)
}

/// [`band`] with the best instructions the CPU has: AVX2 + FMA where detected on x86-64, the
/// target's baseline elsewhere (NEON with fused multiply-adds on aarch64).
fn band_best<T: Sample>(plan: &Plan<'_, T>, y0: usize, out: &mut [T], s: &mut Scratch) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { band_avx2(plan, y0, out, s) };
    }
    band::<T, simd::Portable<{ cfg!(target_arch = "aarch64") }>>(plan, y0, out, s)
}

/// Convolves samples of type `T` into `out` (`ow × oh × ch` samples), in bands of rows (spread
/// over threads when `parallel`); `(clamp, copy_alpha, widen)` as in [`Plan`].
#[allow(clippy::too_many_arguments)]
fn convolve<T: Sample>(
    src: &[T],
    (w, h, ch): (usize, usize, usize),
    method: Method<'_>,
    border: Border,
    (clamp, copy_alpha, widen): (bool, bool, Option<f64>),
    (ow, oh): (usize, usize),
    parallel: bool,
    out: &mut [T],
) {
    let k = method.size();
    let r = k / 2;
    let shift = (r - border.offset(r)) as isize;
    let pw = ow + 2 * r;
    let work = (ow * ch).div_ceil(BLOCK) * BLOCK;
    let plan = Plan {
        src,
        method,
        border,
        clamp,
        copy_alpha,
        widen,
        w,
        h,
        ch,
        ow,
        k,
        off: border.offset(r),
        shift,
        columns: (0..pw).map(|px| border.source(px as isize - shift, w)).collect(),
        outside: border.outside_sample(T::DTYPE) as f32,
        work,
        stride: work + (k - 1) * ch,
    };
    // Small images run on the calling thread: waking the pool costs more than their work.
    let taps = match plan.method {
        Method::Direct(_) => k * k,
        Method::Separable(_) => 2 * k,
    };
    let parallel = parallel && ow * oh * ch * taps >= PARALLEL_MIN;
    let rows = if parallel {
        oh.div_ceil(pool::threads() * 8).clamp(16, 256)
    } else {
        oh
    };
    let task = |(n, out): (usize, &mut [T])| {
        SCRATCH.with_borrow_mut(|s| band_best(&plan, n * rows, out, s));
    };
    let chunk = (rows * ow * ch).max(1);
    if parallel {
        pool::install(|| out.par_chunks_mut(chunk).enumerate().for_each(task));
    } else {
        out.chunks_mut(chunk).enumerate().for_each(task);
    }
}

/// Asks Linux to back a large fresh output with transparent huge pages: its first touch (during
/// the convolution) then faults 2 MB at a time instead of 4 KB, which for a 64 MB `f32` result
/// is most of the system time of a call. Only advice: the contents are not changed, and where
/// the kernel declines (or on other systems) nothing happens.
fn advise_huge_pages<T>(out: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (start, len) = (out.as_mut_ptr() as usize, std::mem::size_of_val(out));
        let first = start.next_multiple_of(HUGE);
        let end = (start + len) / HUGE * HUGE;
        if end > first {
            // SAFETY: `first .. end` lies inside `out`'s allocation and is page-aligned;
            // MADV_HUGEPAGE only changes how its pages are backed, never what they hold.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
}

/// Convolves `image` into `out`, which must have the output's size, channels and sample type.
fn fast_into(
    image: &Image,
    method: Method<'_>,
    border: Border,
    clamp: bool,
    parallel: bool,
    out: &mut Image,
) -> Result<()> {
    let dims = (image.width(), image.height(), image.channels());
    let size = border.output_size(dims.0, dims.1, method.size() / 2)?;
    if (out.width(), out.height(), out.channels(), out.dtype()) != (size.0, size.1, dims.2, image.dtype()) {
        return Err(Error::Mismatch(format!(
            "the output is {}x{}x{} {}, the result is {}x{}x{} {}",
            out.width(),
            out.height(),
            out.channels(),
            out.dtype().suffix(),
            size.0,
            size.1,
            dims.2,
            image.dtype().suffix()
        )));
    }
    for_dtype!(image.dtype(), T => {
        let v: &[T] = bytemuck::cast_slice(image.samples().as_bytes());
        let o: &mut [T] = bytemuck::cast_slice_mut(out.samples_mut().as_bytes_mut());
        convolve(v, dims, method, border, (clamp, true, None), size, parallel, o)
    });
    Ok(())
}

/// A fresh output for `image` convolved with `filter`, backed by huge pages where the system
/// allows.
fn output_for(image: &Image, filter: &Filter, border: Border) -> Result<Image> {
    let (ow, oh) = filter.output_size(border, image.width(), image.height())?;
    let mut samples = Samples::filled(image.dtype(), ow * oh * image.channels());
    advise_huge_pages(samples.as_bytes_mut());
    Image::new(ow, oh, image.channels(), samples)
}

/// The 2D path, or the two passes for a rank-1 filter (see [`separable_form`]), into `out`.
fn auto_into(
    image: &Image,
    filter: &Filter,
    border: Border,
    clamp: bool,
    parallel: bool,
    out: &mut Image,
) -> Result<()> {
    filter.output_size(border, image.width(), image.height())?;
    match separable_form(filter) {
        Some(sep) => fast_into(image, Method::Separable(&sep), border, clamp, parallel, out),
        None => fast_into(image, Method::Direct(filter), border, clamp, parallel, out),
    }
}

fn auto(image: &Image, filter: &Filter, border: Border, clamp: bool, parallel: bool) -> Result<Image> {
    let mut out = output_for(image, filter, border)?;
    auto_into(image, filter, border, clamp, parallel, &mut out)?;
    Ok(out)
}

/// The vectorized single-core CPU convolution (rank-1 filters in two passes).
pub fn sequential(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    auto(image, filter, border, clamp, false)
}

/// The vectorized multi-threaded CPU convolution (rayon over bands of rows; the reports' OpenMP
/// version); the same bits as [`sequential`].
pub fn parallel(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    auto(image, filter, border, clamp, true)
}

/// [`parallel`] into an output the caller allocated once (for example with a previous result of
/// the same shape): no allocation and no page faults per call. `out` must have the output's size,
/// channels and sample type.
pub fn parallel_into(
    image: &Image,
    filter: &Filter,
    border: Border,
    clamp: bool,
    out: &mut Image,
) -> Result<()> {
    auto_into(image, filter, border, clamp, true, out)
}

/// [`parallel`] on the caller's packed samples: `src` holds a `w × h` image of `ch` interleaved
/// samples, `out` its result (checked); `problem` gives the filter, border, clamping, whether
/// RGBA's alpha is filtered and whether integer results are truncated.
/// Allocates nothing.
pub(crate) fn parallel_slices<T: Sample>(
    src: &[T],
    (w, h, ch): (usize, usize, usize),
    problem: &crate::Problem,
    out: &mut [T],
) -> Result<()> {
    let (filter, border, clamp) = (&problem.filter, problem.border, problem.clamp);
    let (ow, oh) = filter.output_size(border, w, h)?;
    if src.len() != w * h * ch || out.len() != ow * oh * ch {
        return Err(Error::Mismatch(format!(
            "{} input and {} output samples for a {w}x{h}x{ch} image and its {ow}x{oh} result",
            src.len(),
            out.len()
        )));
    }
    let dims = (w, h, ch);
    let separable = separable_form(filter);
    // Truncation widened for the path taken: two 1D passes, or one 2D sum.
    let store = (clamp, !problem.filter_alpha, problem.widen(separable.is_some()));
    match separable {
        Some(sep) => convolve(
            src,
            dims,
            Method::Separable(&sep),
            border,
            store,
            (ow, oh),
            true,
            out,
        ),
        None => convolve(
            src,
            dims,
            Method::Direct(filter),
            border,
            store,
            (ow, oh),
            true,
            out,
        ),
    }
    Ok(())
}
