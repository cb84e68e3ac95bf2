//! The `f64` reference: the oracle every CPU and GPU result is checked against, written with the
//! direct textbook loops and sharing no code with the paths it checks.

use super::is_alpha;
use crate::{Border, Filter, Image, Result};
use rayon::prelude::*;

/// The reference result: unrounded values (integers as value / max), interleaved like the image.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
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
        .ok_or_else(|| crate::Error::Filter("a filter past 31x31 must be rank 1".into()))?;
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (ow, oh) = filter.output_size(border, w, h)?;
    let (r, off) = (filter.radius() as isize, border.offset(filter.radius()) as isize);
    let outside = border.outside(image.dtype());
    let row_sum: f64 = sep.row.iter().map(|&t| f64::from(t)).sum();
    // Row pass: input row y, output column x.
    let mut rows = vec![0.0; ow * h * ch];
    let row_pass = |(y, o): (usize, &mut [f64])| {
        for (n, o) in o.iter_mut().enumerate() {
            let (x, c) = ((n / ch) as isize + off, n % ch);
            *o = sep
                .row
                .iter()
                .enumerate()
                .map(|(j, &t)| {
                    let v = border
                        .source(x + j as isize - r, w)
                        .map_or(outside, |xx| values[(y * w + xx) * ch + c]);
                    v * f64::from(t)
                })
                .sum();
        }
    };
    if parallel {
        rows.par_chunks_mut(ow * ch).enumerate().for_each(row_pass);
    } else {
        rows.chunks_mut(ow * ch).enumerate().for_each(row_pass);
    }
    let mut out = vec![0.0; ow * oh * ch];
    let col_pass = |(y, o): (usize, &mut [f64])| {
        for (n, o) in o.iter_mut().enumerate() {
            let (x, c) = (n / ch, n % ch);
            let cy = y as isize + off;
            if is_alpha(ch, c) {
                *o = values[(cy as usize * w + x + off as usize) * ch + c];
                continue;
            }
            *o = sep
                .column
                .iter()
                .enumerate()
                .map(|(i, &t)| {
                    let v = border
                        .source(cy + i as isize - r, h)
                        .map_or(outside * row_sum, |yy| rows[(yy * ow + x) * ch + c]);
                    v * f64::from(t)
                })
                .sum();
        }
    };
    if parallel {
        out.par_chunks_mut(ow * ch).enumerate().for_each(col_pass);
    } else {
        out.chunks_mut(ow * ch).enumerate().for_each(col_pass);
    }
    Ok(out)
}

fn reference_impl(image: &Image, filter: &Filter, border: Border, parallel: bool) -> Result<Reference> {
    let (ow, oh) = filter.output_size(border, image.width(), image.height())?;
    let ch = image.channels();
    let values: Vec<f64> = (0..image.samples().len())
        .map(|i| image.samples().value(i))
        .collect();
    if filter.size() > gpu_kernels::launch::MAX_FILTER_SIZE as usize {
        let values = reference_rank1(image, &values, filter, border, parallel)?;
        return Ok(Reference {
            width: ow,
            height: oh,
            channels: ch,
            values,
        });
    }
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

/// [`reference`](fn@reference) with rows spread over threads: the same arithmetic per sample, only
/// faster, for verifying large images.
pub fn reference_parallel(image: &Image, filter: &Filter, border: Border) -> Result<Reference> {
    reference_impl(image, filter, border, true)
}
