//! The textbook convolution: four nested loops (output row, output column, filter row, filter
//! column) per channel, one `f32` multiply-add at a time, the border looked up sample by sample.
//! It is the baseline the reports quote their speed-ups against, not a fast path.

use super::is_alpha;
use crate::model::image::Samples;
use crate::{Border, Filter, Image, Result};

/// The plain sequential four-loop convolution in `f32`, with no blocking, padding or
/// vectorization: the reports' baseline. Same results as the other paths, within the tolerance.
pub fn naive_sequential(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Result<Image> {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (k, r) = (filter.size(), filter.radius());
    let (ow, oh) = filter.output_size(border, w, h)?;
    let off = border.offset(r);
    let (taps, samples) = (filter.taps(), image.samples());
    let outside = border.outside(image.dtype()) as f32;
    let mut values = vec![0.0f32; ow * oh * ch];
    for y in 0..oh {
        for x in 0..ow {
            for c in 0..ch {
                let (cy, cx) = (y + off, x + off);
                let out = &mut values[(y * ow + x) * ch + c];
                if is_alpha(ch, c) {
                    *out = samples.value_f32((cy * w + cx) * ch + c);
                    continue;
                }
                let mut acc = 0.0f32;
                for i in 0..k {
                    for j in 0..k {
                        let yy = border.source((cy + i) as isize - r as isize, h);
                        let xx = border.source((cx + j) as isize - r as isize, w);
                        let v = match (yy, xx) {
                            (Some(yy), Some(xx)) => samples.value_f32((yy * w + xx) * ch + c),
                            _ => outside,
                        };
                        acc += v * taps[i * k + j];
                    }
                }
                *out = acc;
            }
        }
    }
    let samples = Samples::from_values(image.dtype(), &values, ch, clamp);
    Image::new(ow, oh, ch, samples)
}
