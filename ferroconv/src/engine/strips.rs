//! Big images in horizontal strips: plans strips of output rows whose inputs (their rows plus the
//! filter's halo rows) fit a memory budget, and runs any whole-image convolution strip by strip
//! with exactly the result it gives on the whole image.
//!
//! A strip of output rows `y0..y1` is convolved from a strip image of input rows
//! `y0 - r .. y1 + r`, where rows outside the image are made by the border mode (rows of the
//! constant for `zero` and `constant`), so the border is applied only at the real image edges; only the strip's own output
//! rows are kept. For the `valid` border the strip image is input rows `y0 .. y1 + 2r`, whose
//! valid output is exactly rows `y0..y1`. Every kept output sample reads the same input values in
//! the same order as on the whole image, so the CPU result is bit for bit the same.
//!
//! [`run`] makes those strip images; [`crate::plan::spread`] (strips over several GPUs or
//! workers) reads each strip's rows and halo where they lie in the image instead (only a wrapped
//! border's edge strips are made as images) and writes each strip's kept rows straight into the
//! output.

use crate::Problem;
use crate::model::image::{DType, Image, Samples};
use crate::{Border, Error, Result};
use std::ops::Range;

/// The device memory a convolution on `gpu` may use by default: 90% of what is free.
pub fn budget(gpu: &crate::Gpu) -> Result<usize> {
    Ok(gpu.memory()?.0 / 10 * 9)
}

/// Device bytes one convolution of `problem` needs: input, output and, for a variant with two
/// passes (`intermediate`), its `f32` intermediate (width of the output, height of the input).
pub fn device_bytes(problem: &Problem, intermediate: bool) -> Result<usize> {
    let (ow, oh) = problem.output_size()?;
    let (ch, size) = (problem.channels, problem.dtype.size());
    let input = problem.width * problem.height * ch * size;
    let output = ow * oh * ch * size;
    let tmp = if intermediate {
        ow * problem.height * ch * 4
    } else {
        0
    };
    Ok(input + output + tmp)
}

/// One strip: the output rows it produces and the input rows its strip image holds, before any
/// clipping to the image (rows outside it are border rows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strip {
    /// The output rows it produces.
    pub rows: Range<usize>,
    pub(crate) input: Range<isize>,
}

impl Strip {
    /// The strip for output rows `rows`: those rows shifted by the border's offset, plus `radius`
    /// halo rows above and below (for `valid`, input rows `y0 .. y1 + 2r`).
    pub(crate) fn new(rows: Range<usize>, radius: usize, border: Border) -> Strip {
        let (off, r) = (border.offset(radius) as isize, radius as isize);
        let input = rows.start as isize + off - r..rows.end as isize + off + r;
        Strip { rows, input }
    }

    /// Whether the strip reads rows past an edge of an image of `height` rows that `border` takes
    /// from the other edge (a wrapped border): such a strip reads a copy of its rows, the others
    /// read the image in place ([`Strip::clipped`]).
    pub(crate) fn wraps(&self, border: Border, height: usize) -> bool {
        border == Border::Wrap && (self.input.start < 0 || self.input.end > height as isize)
    }

    /// The input rows clipped to an image of `height` rows. Convolving those rows as an image
    /// applies the border only at the image's own top and bottom, so the strip's output rows come
    /// out as on the whole image, starting [`skip_clipped`](Strip::skip_clipped) rows in.
    pub(crate) fn clipped(&self, height: usize) -> Range<usize> {
        self.input.start.max(0) as usize..(self.input.end.max(0) as usize).min(height)
    }

    /// Leading rows of the strip image's result to skip: the halo rows above `rows`.
    pub fn skip(&self) -> usize {
        (self.rows.start as isize - self.input.start) as usize
    }

    /// As [`skip`](Strip::skip), for the strip image of [`clipped`](Strip::clipped) rows.
    pub(crate) fn skip_clipped(&self) -> usize {
        self.rows.start - self.input.start.max(0) as usize
    }
}

/// The problem of convolving the strip image for `rows` output rows.
fn strip_problem(problem: &Problem, rows: Range<usize>) -> Problem {
    let strip = Strip::new(rows, problem.filter.radius(), problem.border);
    Problem {
        height: strip.input.len(),
        ..problem.clone()
    }
}

/// Splits the output rows of `problem` into as few strips of equal height as fit in `budget`
/// bytes of device memory each (see [`device_bytes`]); one strip when the whole image fits.
pub fn plan(problem: &Problem, intermediate: bool, budget: usize) -> Result<Vec<Strip>> {
    let (_, oh) = problem.output_size()?;
    let (radius, border) = (problem.filter.radius(), problem.border);
    if device_bytes(problem, intermediate)? <= budget {
        return Ok(split(oh, 1, radius, border));
    }
    let cost = |n: usize| device_bytes(&strip_problem(problem, 0..n), intermediate);
    let one = cost(1)?;
    if one > budget {
        return Err(Error::InvalidRequest(format!(
            "a strip of one output row needs {} of memory, more than the budget of {} (--max-gpu-mem)",
            human(one),
            human(budget)
        )));
    }
    // The cost is linear in the number of rows: one row's cost plus `per_row` for each more.
    let per_row = cost(2)? - one;
    let rows = 1 + (budget - one) / per_row.max(1);
    Ok(split(oh, oh.div_ceil(rows), radius, border))
}

/// `rows` output rows in `count` strips of equal height (the last may be shorter; fewer strips
/// when there are fewer rows), for a filter of radius `radius`.
pub fn split(rows: usize, count: usize, radius: usize, border: Border) -> Vec<Strip> {
    let height = rows.div_ceil(count.max(1)).max(1);
    (0..rows)
        .step_by(height)
        .map(|y| Strip::new(y..(y + height).min(rows), radius, border))
        .collect()
}

fn human(bytes: usize) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// The strip image of `strip`: its input rows, those outside the image made by `border`.
pub fn strip_input(image: &Image, border: Border, strip: &Strip) -> Result<Image> {
    let layout = (image.width(), image.height(), image.channels(), image.dtype());
    let row_bytes = image.width() * image.channels() * image.dtype().size();
    let src = image.samples().as_bytes();
    strip_of_rows(layout, border, strip, None, |rows, dst| {
        dst.copy_from_slice(&src[rows.start * row_bytes..rows.end * row_bytes]);
        Ok::<(), Error>(())
    })
}

/// The strip image of `strip` of an image of `(width, height, channels, dtype)` whose rows
/// `read(rows, dst)` copies into `dst` (as many bytes as those rows hold): the rows inside the
/// image in one read, those outside made by `border` (copied where they repeat rows already read,
/// else read one by one). Every sample is written: into `reuse` where it has the strip's type
/// and length (an earlier strip's samples), else into new, untouched memory.
pub fn strip_of_rows<E>(
    (w, h, ch, dtype): (usize, usize, usize, DType),
    border: Border,
    strip: &Strip,
    reuse: Option<Samples>,
    mut read: impl FnMut(Range<usize>, &mut [u8]) -> std::result::Result<(), E>,
) -> std::result::Result<Image, E> {
    let row_bytes = w * ch * dtype.size();
    let wanted = strip.input.clone();
    let len = w * ch * wanted.len();
    let mut samples = reuse
        .filter(|s| s.dtype() == dtype && s.len() == len)
        .unwrap_or_else(|| Samples::zeroed(dtype, len));
    let bytes = samples.as_bytes_mut();
    let first = wanted.start;
    let at = |y: usize| (y as isize - first) as usize * row_bytes;
    let inside = strip.clipped(h);
    if !inside.is_empty() {
        read(inside.clone(), &mut bytes[at(inside.start)..at(inside.end)])?;
    }
    // One sample of the constant border's value, as the image stores it (half floats rounded
    // to the nearest).
    let v = border.outside_sample(dtype);
    let outside = match dtype {
        DType::U8 => vec![v as u8],
        DType::U16 => (v as u16).to_ne_bytes().to_vec(),
        DType::F32 => (v as f32).to_ne_bytes().to_vec(),
        DType::F16 => half::f16::from_f64(v).to_ne_bytes().to_vec(),
        DType::BF16 => half::bf16::from_f64(v).to_ne_bytes().to_vec(),
    };
    for (i, y) in wanted.enumerate().filter(|&(_, y)| !(0..h as isize).contains(&y)) {
        let dst = i * row_bytes;
        match border.source(y, h) {
            Some(s) if inside.contains(&s) => bytes.copy_within(at(s)..at(s) + row_bytes, dst),
            Some(s) => read(s..s + 1, &mut bytes[dst..dst + row_bytes])?,
            None => {
                for d in bytes[dst..dst + row_bytes].chunks_exact_mut(outside.len()) {
                    d.copy_from_slice(&outside);
                }
            }
        }
    }
    Ok(Image::new(w, strip.input.len(), ch, samples).expect("a strip of the image's width and layout"))
}

/// Convolves `image` strip by strip: `convolve` gets each strip image and must return its
/// convolution with `border` (the same call that would convolve the whole image). With a single
/// strip covering the image, `convolve` gets the image itself.
pub fn run(
    image: &Image,
    radius: usize,
    border: Border,
    strips: &[Strip],
    mut convolve: impl FnMut(&Image) -> Result<Image>,
) -> Result<Image> {
    let (_, oh) = border.output_size(image.width(), image.height(), radius)?;
    if let [only] = strips
        && only.rows == (0..oh)
    {
        return convolve(image);
    }
    let mut out = Output::new(image, radius, border)?;
    for strip in strips {
        out.place(strip, &convolve(&strip_input(image, border, strip)?)?);
    }
    out.image()
}

/// The output image being assembled from its strips' results.
struct Output {
    samples: Samples,
    /// Output width and height, channels, bytes per output row.
    size: (usize, usize),
    channels: usize,
    row_bytes: usize,
}

impl Output {
    fn new(image: &Image, radius: usize, border: Border) -> Result<Output> {
        let (ow, oh) = border.output_size(image.width(), image.height(), radius)?;
        let ch = image.channels();
        Ok(Output {
            samples: Samples::zeroed(image.dtype(), ow * oh * ch),
            size: (ow, oh),
            channels: ch,
            row_bytes: ow * ch * image.dtype().size(),
        })
    }

    /// Keeps the rows of `strip` from `result`, the convolution of its strip image.
    fn place(&mut self, strip: &Strip, result: &Image) {
        let (rows, skip, row_bytes) = (&strip.rows, strip.skip(), self.row_bytes);
        let kept = &result.samples().as_bytes()[skip * row_bytes..(skip + rows.len()) * row_bytes];
        self.samples.as_bytes_mut()[rows.start * row_bytes..rows.end * row_bytes].copy_from_slice(kept);
    }

    fn image(self) -> Result<Image> {
        Image::new(self.size.0, self.size.1, self.channels, self.samples)
    }
}
