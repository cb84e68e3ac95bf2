//! CPU convolutions: the `f64` reference (the oracle for every check) and the timed `f32` paths.
//!
//! All compute the correlation `out(y,x) = Σ_{i,j} in(y+i-r+o, x+j-r+o) · f(i, j)` per channel,
//! where `o` is `r` for the valid border and 0 otherwise, pixels outside the image defined by the
//! border mode; RGBA's alpha is copied from the input pixel the output is centred on.

use crate::model::filter::Separable;
use crate::model::image::{Image, Samples};
use crate::{Border, Error, Filter, Result};
use rayon::prelude::*;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// The reference result: unrounded values (integers as value / max), interleaved like the image.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub values: Vec<f64>,
}

/// Whether sample `c` of a `channels`-channel image is RGBA's alpha, which is copied unfiltered.
pub fn is_alpha(channels: usize, c: usize) -> bool {
    channels == 4 && c == 3
}

/// One reference output row, accumulated in `f64` sample by sample with the direct textbook loops.
fn reference_row(image: &Image, values: &[f64], filter: &Filter, border: Border, y: usize, out: &mut [f64]) {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (k, r) = (filter.size(), filter.radius() as isize);
    let off = if border == Border::Valid { r } else { 0 };
    let taps = filter.taps();
    let cy = y as isize + off;
    for (n, o) in out.iter_mut().enumerate() {
        let (x, c) = (n / ch, n % ch);
        let cx = x as isize + off;
        if is_alpha(ch, c) {
            *o = values[(cy as usize * w + cx as usize) * ch + c];
            continue;
        }
        let mut acc = 0.0f64;
        for i in 0..k {
            let Some(yy) = border.source(cy + i as isize - r, h) else {
                continue;
            };
            for j in 0..k {
                if let Some(xx) = border.source(cx + j as isize - r, w) {
                    acc += values[(yy * w + xx) * ch + c] * f64::from(taps[i * k + j]);
                }
            }
        }
        *o = acc;
    }
}

fn reference_impl(image: &Image, filter: &Filter, border: Border, parallel: bool) -> Result<Reference> {
    let (ow, oh) = border.output_size(image.width(), image.height(), filter.radius())?;
    let ch = image.channels();
    let values: Vec<f64> = (0..image.samples().len())
        .map(|i| image.samples().value(i))
        .collect();
    let mut out = vec![0.0; ow * oh * ch];
    let row = |(y, o): (usize, &mut [f64])| reference_row(image, &values, filter, border, y, o);
    if parallel {
        out.par_chunks_mut(ow * ch).enumerate().for_each(row);
    } else {
        out.chunks_mut(ow * ch).enumerate().for_each(row);
    }
    Ok(Reference {
        width: ow,
        height: oh,
        channels: ch,
        values: out,
    })
}

/// The reference result in `f64`, computed sequentially. This is the oracle every variant is
/// checked against; it shares no code with the variants it checks.
pub fn reference(image: &Image, filter: &Filter, border: Border) -> Result<Reference> {
    reference_impl(image, filter, border, false)
}

/// [`reference`](fn@reference) with rows spread over threads: the same arithmetic per sample, only faster, for
/// verifying large images.
pub fn reference_parallel(image: &Image, filter: &Filter, border: Border) -> Result<Reference> {
    reference_impl(image, filter, border, true)
}

/// One channel of the image as seen through the border: rows of the padded plane (the output's
/// `(ow + 2r) × (oh + 2r)` window of the bordered image, so output pixel `(x, y)` reads padded
/// pixels `(x..x+k, y..y+k)` with no bounds tests), built on demand as `f32`.
struct Padding<'a> {
    image: &'a Image,
    channel: usize,
    border: Border,
    /// Source column of each padded column (`None`: outside the image, reads 0).
    columns: Vec<Option<usize>>,
    /// Padded row `py` is image row `border.source(py - shift)`.
    shift: isize,
    ow: usize,
    pw: usize,
}

impl<'a> Padding<'a> {
    fn new(image: &'a Image, channel: usize, border: Border, ow: usize, r: usize) -> Self {
        let pw = ow + 2 * r;
        // The valid border's output is centred r pixels in, so its padded plane is the image itself.
        let shift = if border == Border::Valid { 0 } else { r as isize };
        let columns = (0..pw)
            .map(|px| border.source(px as isize - shift, image.width()))
            .collect();
        Self {
            image,
            channel,
            border,
            columns,
            shift,
            ow,
            pw,
        }
    }

    /// Fills `band` with padded rows `y0 .. y0 + rows + 2r` (`r` = (pw - ow) / 2), overwriting
    /// every value (no zeroing pass: the buffer is reused band after band).
    fn fill(&self, y0: usize, rows: usize, band: &mut Vec<f32>) {
        let height = rows + self.pw - self.ow;
        band.resize(height * self.pw, 0.0);
        for (n, row) in band.chunks_exact_mut(self.pw).enumerate() {
            self.fill_row(y0 + n, row);
        }
    }

    /// Padded row `py` into `row` (every value written).
    fn fill_row(&self, py: usize, row: &mut [f32]) {
        let (w, h, ch) = (self.image.width(), self.image.height(), self.image.channels());
        let Some(yy) = self.border.source(py as isize - self.shift, h) else {
            row.fill(0.0);
            return;
        };
        let base = yy * w * ch + self.channel;
        // One match per row, not per sample: the loops below are specialized per sample type.
        match self.image.samples() {
            Samples::F32(v) if ch == 1 => {
                // Gray f32: the image columns are one copy; only the border columns are mapped.
                let first = self.shift.max(0) as usize;
                let n = w.min(self.pw - first);
                let (left, rest) = row.split_at_mut(first);
                let (middle, right) = rest.split_at_mut(n);
                middle.copy_from_slice(&v[base..base + n]);
                fill_row(left, &self.columns, |x| v[base + x]);
                fill_row(right, &self.columns[first + n..], |x| v[base + x]);
            }
            Samples::F32(v) => fill_row(row, &self.columns, |x| v[base + x * ch]),
            Samples::U8(v) => fill_row(row, &self.columns, |x| {
                f32::from(v[base + x * ch]) * (1.0 / 255.0)
            }),
            Samples::U16(v) => fill_row(row, &self.columns, |x| {
                f32::from(v[base + x * ch]) * (1.0 / 65535.0)
            }),
        }
    }
}

/// Fills one padded row: column `n` reads source column `columns[n]` through `value`, or is 0.
#[inline(always)]
fn fill_row(row: &mut [f32], columns: &[Option<usize>], value: impl Fn(usize) -> f32) {
    for (v, col) in row.iter_mut().zip(columns) {
        *v = col.map_or(0.0, &value);
    }
}

/// Output rows one band task computes (parallel work item of the direct `f32` paths).
const BAND: usize = 16;
/// Output pixels of a row computed together, each in its own accumulator (8 AVX registers):
/// enough independent fused multiply-adds in flight to hide their latency.
const BLOCK: usize = 64;

/// An output sample the direct paths write: an `f32`, or memory not yet initialized.
trait Store: Send {
    fn put(&mut self, v: f32);
}

impl Store for f32 {
    #[inline(always)]
    fn put(&mut self, v: f32) {
        *self = v;
    }
}

impl Store for MaybeUninit<f32> {
    #[inline(always)]
    fn put(&mut self, v: f32) {
        self.write(v);
    }
}

thread_local! {
    /// Each thread's padded band, reused band after band and call after call (no allocation, no
    /// page faults once warm).
    static BAND_BUFFER: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// One channel's direct convolution into `plane_out` (`ow × oh`, row-major), in bands of [`BAND`]
/// rows, spread over threads when `parallel`. Writes every sample of `plane_out`.
fn direct_plane<O: Store>(padding: &Padding<'_>, filter: &Filter, plane_out: &mut [O], parallel: bool) {
    let run = |(n, out): (usize, &mut [O])| {
        BAND_BUFFER.with_borrow_mut(|band| direct_band(padding, filter, n * BAND, out, band))
    };
    let chunk = padding.ow * BAND;
    if parallel {
        plane_out.par_chunks_mut(chunk).enumerate().for_each(run);
    } else {
        plane_out.chunks_mut(chunk).enumerate().for_each(run);
    }
}

/// Convolves output rows `y0 .. y0 + out.len() / ow` of one channel: builds their padded band
/// (the rows plus the halo, border applied) in `band`, then computes each row from it. Uses AVX2
/// and FMA when the CPU has them (detected at run time), else the baseline instruction set.
fn direct_band<O: Store>(
    source: &Padding<'_>,
    filter: &Filter,
    y0: usize,
    out: &mut [O],
    band: &mut Vec<f32>,
) {
    let rows = out.len() / source.ow;
    source.fill(y0, rows, band);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { direct_rows_avx2(band, source.pw, filter, out) };
    }
    direct_rows::<false, O>(band, source.pw, filter, out)
}

/// [`direct_rows`] compiled for AVX2 + FMA (8-wide fused multiply-adds).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn direct_rows_avx2<O: Store>(band: &[f32], pw: usize, filter: &Filter, out: &mut [O]) {
    direct_rows::<true, O>(band, pw, filter, out)
}

/// Every output row of `out` (rows of `pw - 2r` pixels) from the padded `band` (rows `pw`
/// apart): [`BLOCK`] pixels at a time with all `k²` taps accumulated in registers, then the
/// row's tail pixel by pixel; every sample of `out` is written. `FMA`: fused multiply-adds (only
/// where the CPU has them).
#[inline(always)]
fn direct_rows<const FMA: bool, O: Store>(band: &[f32], pw: usize, filter: &Filter, out: &mut [O]) {
    let (k, taps) = (filter.size(), filter.taps());
    let ow = pw + 1 - k;
    let madd = |a: f32, b: f32, c: f32| if FMA { a.mul_add(b, c) } else { a * b + c };
    for (y, row) in out.chunks_mut(ow).enumerate() {
        let mut blocks = row.chunks_exact_mut(BLOCK);
        let mut x = 0;
        for block in &mut blocks {
            let mut acc = [0.0f32; BLOCK];
            for i in 0..k {
                let src = &band[(y + i) * pw + x..];
                for (j, &tap) in taps[i * k..(i + 1) * k].iter().enumerate() {
                    let src = &src[j..j + BLOCK];
                    for (a, &p) in acc.iter_mut().zip(src) {
                        *a = madd(p, tap, *a);
                    }
                }
            }
            for (o, a) in block.iter_mut().zip(acc) {
                o.put(a);
            }
            x += BLOCK;
        }
        for (o, x) in blocks.into_remainder().iter_mut().zip(x..) {
            let mut acc = 0.0f32;
            for i in 0..k {
                let src = &band[(y + i) * pw + x..];
                for (&p, &tap) in src.iter().zip(&taps[i * k..(i + 1) * k]) {
                    acc = madd(p, tap, acc);
                }
            }
            o.put(acc);
        }
    }
}

/// One output row of a 1D pass: `out[x] = Σ_t src[x + t·stride] · taps[t]` (stride 1 for the row
/// pass along a padded row, the row width for the column pass down the row pass's output).
fn taps_1d(src: &[f32], stride: usize, taps: &[f32], out: &mut [f32]) {
    out.fill(0.0);
    for (t, &tap) in taps.iter().enumerate() {
        for (o, &p) in out.iter_mut().zip(&src[t * stride..]) {
            *o += p * tap;
        }
    }
}

/// How the non-alpha channels are convolved: the 2D filter, or its two 1D passes.
enum Method<'a> {
    Direct(&'a Filter),
    Separable(&'a Separable),
}

fn f32_impl(image: &Image, method: Method<'_>, border: Border, clamp: bool, parallel: bool) -> Result<Image> {
    let r = match &method {
        Method::Direct(f) => f.radius(),
        Method::Separable(s) => s.row.len() / 2,
    };
    let (ow, oh) = border.output_size(image.width(), image.height(), r)?;
    let ch = image.channels();
    let off = if border == Border::Valid { r } else { 0 };
    let pw = ow + 2 * r;
    // Computes one channel into `plane_out` (ow × oh, row-major).
    let channel_into = |c: usize, plane_out: &mut [f32]| {
        if is_alpha(ch, c) {
            for (n, v) in plane_out.iter_mut().enumerate() {
                let (x, y) = (n % ow + off, n / ow + off);
                *v = image.samples().value_f32((y * image.width() + x) * ch + c);
            }
            return;
        }
        let padding = Padding::new(image, c, border, ow, r);
        match &method {
            Method::Direct(filter) => direct_plane(&padding, filter, plane_out, parallel),
            Method::Separable(sep) => {
                // Row pass over every padded row, then the column pass over its output.
                let mut plane = Vec::new();
                padding.fill(0, oh, &mut plane);
                let mut tmp = vec![0.0f32; ow * (oh + 2 * r)];
                for (py, o) in tmp.chunks_mut(ow).enumerate() {
                    taps_1d(&plane[py * pw..(py + 1) * pw], 1, &sep.row, o);
                }
                for (y, o) in plane_out.chunks_mut(ow).enumerate() {
                    taps_1d(&tmp[y * ow..], ow, &sep.column, o);
                }
            }
        }
    };
    let values = if let (1, Method::Direct(filter)) = (ch, &method) {
        // Gray, direct: the planar result is the image, written straight into fresh memory with no
        // zeroing pass first.
        let mut values = Vec::with_capacity(ow * oh);
        let padding = Padding::new(image, 0, border, ow, r);
        direct_plane(
            &padding,
            filter,
            &mut values.spare_capacity_mut()[..ow * oh],
            parallel,
        );
        // SAFETY: `direct_plane` wrote all `ow · oh` samples (every row of every band: its blocks
        // and its tail).
        unsafe { values.set_len(ow * oh) };
        values
    } else {
        let mut values = vec![0.0f32; ow * oh * ch];
        let mut channel = vec![0.0f32; ow * oh];
        for c in 0..ch {
            channel_into(c, &mut channel);
            for (n, &v) in channel.iter().enumerate() {
                values[n * ch + c] = v;
            }
        }
        values
    };
    let samples = match image.dtype() {
        // f32 without clamping keeps the buffer as it is.
        crate::DType::F32 if !clamp => Samples::F32(values),
        dtype => Samples::from_values(dtype, &values, ch, clamp),
    };
    Image::new(ow, oh, ch, samples)
}

/// The sequential `f32` CPU convolution (one core): the baseline the GPU speed-ups are against.
pub fn sequential(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    f32_impl(image, Method::Direct(filter), border, clamp, false)
}

/// The multi-threaded `f32` CPU convolution (rayon over rows; the reports' OpenMP version).
pub fn parallel(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    f32_impl(image, Method::Direct(filter), border, clamp, true)
}

/// The sequential two-pass `f32` CPU convolution of a rank-1 filter: a row pass with
/// [`Separable::row`] over the bordered image, then a column pass with [`Separable::column`], the
/// same border rules as the 2D paths. Fails if the filter is not rank-1 (see [`Filter::rank1`]).
pub fn separable(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    let sep = filter.rank1().ok_or_else(|| {
        Error::Filter(format!(
            "the {0}x{0} filter is not rank-1, so it has no separable form",
            filter.size()
        ))
    })?;
    f32_impl(image, Method::Separable(&sep), border, clamp, false)
}
