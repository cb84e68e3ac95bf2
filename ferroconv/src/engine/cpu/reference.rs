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

fn reference_impl(image: &Image, filter: &Filter, border: Border, parallel: bool) -> Result<Reference> {
    let (ow, oh) = filter.output_size(border, image.width(), image.height())?;
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

/// [`reference`](fn@reference) with rows spread over threads: the same arithmetic per sample, only
/// faster, for verifying large images.
pub fn reference_parallel(image: &Image, filter: &Filter, border: Border) -> Result<Reference> {
    reference_impl(image, filter, border, true)
}
