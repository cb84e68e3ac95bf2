//! The `f64` reference: the oracle every CPU and GPU result is checked against, written with the
//! direct textbook loops and sharing no code with the paths it checks.

use super::is_alpha;
use crate::{Border, Filter, Image, Result};
use rayon::prelude::*;

/// The reference result: unrounded values (integers as value / max), interleaved like the image.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Interleaved samples per pixel.
    pub channels: usize,
    /// `width · height · channels` values, row after row.
    pub values: Vec<f64>,
}

/// One reference output row, accumulated in `f64` sample by sample with the direct textbook loops.
fn reference_row(image: &Image, values: &[f64], filter: &Filter, border: Border, y: usize, out: &mut [f64]) {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (k, r) = (filter.size(), filter.radius() as isize);
    let off = border.offset(filter.radius()) as isize;
    let taps = filter.taps();
    let cy = y as isize + off;
    let outside = border.outside(image.dtype());
    for (n, o) in out.iter_mut().enumerate() {
        let (x, c) = (n / ch, n % ch);
        let cx = x as isize + off;
        if is_alpha(ch, c) {
            *o = values[(cy as usize * w + cx as usize) * ch + c];
            continue;
        }
        let mut acc = 0.0f64;
        for i in 0..k {
            let yy = border.source(cy + i as isize - r, h);
            for j in 0..k {
                let xx = border.source(cx + j as isize - r, w);
                let v = match (yy, xx) {
                    (Some(yy), Some(xx)) => values[(yy * w + xx) * ch + c],
                    _ => outside,
                };
                acc += v * f64::from(taps[i * k + j]);
            }
        }
        *o = acc;
    }
}

/// The reference of a filter past 31 × 31, which is rank 1 (see [`Filter`]): its two factors in
/// `f64`, along the rows of every input row, then down the columns: `kw + kh` products per
/// sample instead of `kw · kh`, the same sum up to the factorization's error.
fn reference_rank1(
    image: &Image,
    values: &[f64],
    filter: &Filter,
    border: Border,
    parallel: bool,
) -> Result<Vec<f64>> {
    let sep = filter
        .rank1()
        .ok_or_else(|| crate::Error::Filter("the two-pass reference needs a rank-1 filter".into()))?;
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (ow, oh) = filter.output_size(border, w, h)?;
    let (r, off) = (filter.radius() as isize, border.offset(filter.radius()) as isize);
    let outside = border.outside(image.dtype());
    let row_sum: f64 = sep.row.iter().map(|&t| f64::from(t)).sum();
    // Σ taps[t] · at(p + t - r) along an axis of n pixels, `outside` beyond it.
    let line = |p: isize, n: usize, taps: &[f32], outside: f64, at: &dyn Fn(usize) -> f64| -> f64 {
        taps.iter()
            .enumerate()
            .map(|(t, &tap)| border.source(p + t as isize - r, n).map_or(outside, at) * f64::from(tap))
            .sum()
    };
    // Row pass: input row y, output column x.
    let mut rows = vec![0.0; ow * h * ch];
    for_each_row(&mut rows, ow * ch, parallel, |(y, o)| {
        for (n, o) in o.iter_mut().enumerate() {
            let (x, c) = ((n / ch) as isize + off, n % ch);
            *o = line(x, w, &sep.row, outside, &|xx| values[(y * w + xx) * ch + c]);
        }
    });
    let mut out = vec![0.0; ow * oh * ch];
    for_each_row(&mut out, ow * ch, parallel, |(y, o)| {
        for (n, o) in o.iter_mut().enumerate() {
            let (x, c, cy) = (n / ch, n % ch, y as isize + off);
            *o = if is_alpha(ch, c) {
                values[(cy as usize * w + x + off as usize) * ch + c]
            } else {
                line(cy, h, &sep.column, outside * row_sum, &|yy| {
                    rows[(yy * ow + x) * ch + c]
                })
            };
        }
    });
    Ok(out)
}

/// Calls `f` with each `len`-sample row of `out` and its index, on rayon's threads if `parallel`.
fn for_each_row(out: &mut [f64], len: usize, parallel: bool, f: impl Fn((usize, &mut [f64])) + Sync + Send) {
    if parallel {
        super::pool::install(|| out.par_chunks_mut(len).enumerate().for_each(f));
    } else {
        out.chunks_mut(len).enumerate().for_each(f);
    }
}

fn reference_impl(image: &Image, filter: &Filter, border: Border, parallel: bool) -> Result<Reference> {
    let (ow, oh) = filter.output_size(border, image.width(), image.height())?;
    let ch = image.channels();
    let values: Vec<f64> = (0..image.samples().len())
        .map(|i| image.samples().value(i))
        .collect();
    if filter.size() > gpu_kernels::launch::MAX_FILTER_SIZE as usize && filter.rank1().is_some() {
        let values = reference_rank1(image, &values, filter, border, parallel)?;
        return Ok(Reference {
            width: ow,
            height: oh,
            channels: ch,
            values,
        });
    }
    let mut out = vec![0.0; ow * oh * ch];
    for_each_row(&mut out, ow * ch, parallel, |(y, o)| {
        reference_row(image, &values, filter, border, y, o)
    });
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

/// [`reference`](fn@reference) with rows spread over threads: the same arithmetic per sample, only
/// faster, for verifying large images.
pub fn reference_parallel(image: &Image, filter: &Filter, border: Border) -> Result<Reference> {
    reference_impl(image, filter, border, true)
}
