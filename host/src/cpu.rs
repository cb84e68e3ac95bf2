//! CPU convolutions: the `f64` reference (the oracle for every check) and the timed `f32` paths.
//!
//! All compute the zero-border correlation `out(y,x) = Σ_{i,j} in(y+i-r, x+j-r) · f(i, j)` with
//! the output the size of the input.

use crate::{Filter, Plane};
use rayon::prelude::*;

/// One reference output row, accumulated in `f64` pixel by pixel, the direct textbook loops.
fn reference_row(image: &Plane, filter: &Filter, y: usize, out: &mut [f64]) {
    let (k, r) = (filter.size(), filter.radius() as isize);
    let taps = filter.taps();
    for (x, o) in out.iter_mut().enumerate() {
        let mut acc = 0.0f64;
        for i in 0..k {
            for j in 0..k {
                let px = image.get_or_zero(x as isize + j as isize - r, y as isize + i as isize - r);
                acc += f64::from(px) * f64::from(taps[i * k + j]);
            }
        }
        *o = acc;
    }
}

/// The reference result in `f64`, computed sequentially. This is the oracle every variant is
/// checked against; it shares no code with the variants it checks.
pub fn reference(image: &Plane, filter: &Filter) -> Vec<f64> {
    let mut out = vec![0.0; image.width() * image.height()];
    for (y, row) in out.chunks_mut(image.width()).enumerate() {
        reference_row(image, filter, y, row);
    }
    out
}

/// [`reference`] with rows spread over threads: the same arithmetic per pixel, only faster, for
/// verifying large images.
pub fn reference_parallel(image: &Plane, filter: &Filter) -> Vec<f64> {
    let mut out = vec![0.0; image.width() * image.height()];
    out.par_chunks_mut(image.width())
        .enumerate()
        .for_each(|(y, row)| reference_row(image, filter, y, row));
    out
}

/// One `f32` output row. For each tap, a contiguous slice of an input row is scaled and added to
/// the output row, so the inner loop has no branches and vectorizes; the border is handled by
/// clipping each slice to the image instead of testing every pixel.
fn f32_row(image: &Plane, filter: &Filter, y: usize, out: &mut [f32]) {
    let (w, h, k, r) = (image.width(), image.height(), filter.size(), filter.radius());
    out.fill(0.0);
    for i in 0..k {
        let Some(yy) = (y + i).checked_sub(r).filter(|&yy| yy < h) else {
            continue;
        };
        let src = &image.data()[yy * w..(yy + 1) * w];
        for j in 0..k {
            let tap = filter.taps()[i * k + j];
            // Output x reads input x + j - r: keep the x where that lies inside the row.
            let x0 = r.saturating_sub(j);
            let x1 = (w + r).saturating_sub(j).min(w);
            if x0 >= x1 {
                continue;
            }
            let shifted = &src[x0 + j - r..x1 + j - r];
            for (o, &p) in out[x0..x1].iter_mut().zip(shifted) {
                *o += p * tap;
            }
        }
    }
}

/// The sequential `f32` CPU convolution (one core): the baseline the GPU speed-ups are against.
pub fn sequential(image: &Plane, filter: &Filter) -> Vec<f32> {
    let mut out = vec![0.0; image.width() * image.height()];
    for (y, row) in out.chunks_mut(image.width()).enumerate() {
        f32_row(image, filter, y, row);
    }
    out
}

/// The multi-threaded `f32` CPU convolution (rayon over rows; the reports' OpenMP version).
pub fn parallel(image: &Plane, filter: &Filter) -> Vec<f32> {
    let mut out = vec![0.0; image.width() * image.height()];
    out.par_chunks_mut(image.width())
        .enumerate()
        .for_each(|(y, row)| f32_row(image, filter, y, row));
    out
}
