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
//! [`run`] makes those strip images; [`run_spread`] (strips over several GPUs or workers) reads
//! each strip's rows and halo where they lie in the image instead (only a wrapped border's edge
//! strips are made as images) and writes each strip's kept rows straight into the output.

use crate::Problem;
use crate::model::image::{DType, Image, Samples, for_dtype};
use crate::plan::{Filter2D, ImageViewMut, Pixel};
use crate::{Border, Error, Result};
use std::ops::Range;

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
    pub rows: Range<usize>,
    pub input: Range<isize>,
}

impl Strip {
    /// The strip for output rows `rows`: those rows shifted by the border's offset, plus `radius`
    /// halo rows above and below (for `valid`, input rows `y0 .. y1 + 2r`).
    pub fn new(rows: Range<usize>, radius: usize, border: Border) -> Strip {
        let (off, r) = (border.offset(radius) as isize, radius as isize);
        let input = rows.start as isize + off - r..rows.end as isize + off + r;
        Strip { rows, input }
    }

    /// The input rows clipped to an image of `height` rows. Convolving those rows as an image
    /// applies the border only at the image's own top and bottom, so the strip's output rows come
    /// out as on the whole image, starting [`skip_clipped`](Strip::skip_clipped) rows in.
    pub fn clipped(&self, height: usize) -> Range<usize> {
        self.input.start.max(0) as usize..(self.input.end.max(0) as usize).min(height)
    }

    /// Leading rows of the strip image's result to skip: the halo rows above `rows`.
    pub fn skip(&self) -> usize {
        (self.rows.start as isize - self.input.start) as usize
    }

    /// As [`skip`](Strip::skip), for the strip image of [`clipped`](Strip::clipped) rows.
    pub fn skip_clipped(&self) -> usize {
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
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let row_bytes = w * ch * image.dtype().size();
    let wanted = strip.input.clone();
    let height = wanted.len();
    let dtype = image.dtype();
    let mut samples = Samples::filled(dtype, w * ch * height);
    let src = image.samples().as_bytes();
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
    for (dst, y) in samples.as_bytes_mut().chunks_mut(row_bytes).zip(wanted) {
        match border.source(y, h) {
            Some(y) => dst.copy_from_slice(&src[y * row_bytes..(y + 1) * row_bytes]),
            None => {
                for d in dst.chunks_exact_mut(outside.len()) {
                    d.copy_from_slice(&outside);
                }
            }
        }
    }
    Image::new(w, height, ch, samples)
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

/// One strip's work, done in place: the strip's rows of the whole output (`output`, bytes)
/// filled from the image's rows under it, read where they lie.
pub struct Band<'a> {
    strip: Strip,
    border: Border,
    output: &'a mut [u8],
}

impl Band<'_> {
    /// The output rows this band fills.
    pub fn rows(&self) -> Range<usize> {
        self.strip.rows.clone()
    }

    /// Filters the band of `image` with `plan` (which filters with the band's border), writing
    /// the kept rows straight into the output. The image's rows under the strip are read in
    /// place ([`Strip::clipped`]: the border applies only at the image's own edges), except
    /// where a wrapped border reaches past an edge: that strip's rows are copied with the rows
    /// from the other edge ([`strip_input`]).
    pub fn run(self, image: &Image, plan: &mut Filter2D) -> Result<()> {
        let h = image.height() as isize;
        if self.border == Border::Wrap && (self.strip.input.start < 0 || self.strip.input.end > h) {
            let strip = strip_input(image, self.border, &self.strip)?;
            let all = 0..strip.height();
            return band_rows(plan, &strip, all, self.strip.skip(), self.output);
        }
        let input = self.strip.clipped(image.height());
        band_rows(plan, image, input, self.strip.skip_clipped(), self.output)
    }
}

/// `plan`'s result of `image`'s rows `input`, its rows from `skip` on written into `output`
/// (whole rows of the result's width).
fn band_rows(
    plan: &mut Filter2D,
    image: &Image,
    input: Range<usize>,
    skip: usize,
    output: &mut [u8],
) -> Result<()> {
    fn typed<T: Pixel>(
        plan: &mut Filter2D,
        image: &Image,
        input: Range<usize>,
        skip: usize,
        output: &mut [u8],
    ) -> Result<()> {
        let ch = image.channels();
        let (ow, _) = plan.output_size(image.width(), input.len())?;
        let rows = output.len() / (ow * ch * size_of::<T>()).max(1);
        let out = bytemuck::try_cast_slice_mut(output)
            .map_err(|e| Error::Mismatch(format!("an output band is not aligned to its samples: {e}")))?;
        let mut dst = ImageViewMut::new(out, ow, rows, ch)?;
        plan.run_rows(&image.view::<T>()?.band(input), &mut dst, skip)
    }
    for_dtype!(image.dtype(), T => typed::<T>(plan, image, input, skip, output))
}

/// Convolves `image` strip by strip on `workers`, each on its own thread: strip `i` goes to
/// worker `i mod n` (so a worker gets the same strips image after image) as a [`Band`], which
/// `convolve` must fill with that strip's rows of the whole image's result (see
/// [`Band::run`]). The strips (`strips` as [`split`] makes them) read the image in place (but
/// a wrapped border's edge strips) and write disjoint rows of one output, allocated once and
/// faulted in by the copies that fill it: no lock is taken. The result is the whole image's bit for bit when
/// every worker filters as one would. The first error (in strip order) is returned.
pub fn run_spread<W: Send>(
    image: &Image,
    radius: usize,
    border: Border,
    strips: &[Strip],
    workers: &mut [W],
    convolve: impl Fn(&mut W, Band<'_>) -> Result<()> + Sync,
) -> Result<Image> {
    let n = workers.len().max(1);
    let (ow, oh) = border.output_size(image.width(), image.height(), radius)?;
    let ch = image.channels();
    let row_bytes = ow * ch * image.dtype().size();
    let mut samples = Samples::zeroed(image.dtype(), ow * oh * ch);
    let mut dealt: Vec<Vec<(usize, Band<'_>)>> = (0..n).map(|_| Vec::new()).collect();
    let mut rest = samples.as_bytes_mut();
    for (i, strip) in strips.iter().enumerate() {
        if strip.rows.start != oh - rest.len() / row_bytes.max(1) {
            return Err(Error::InvalidRequest(format!(
                "strip {i} starts at output row {}, not where the strip before it ended",
                strip.rows.start
            )));
        }
        let (output, tail) = std::mem::take(&mut rest).split_at_mut(strip.rows.len() * row_bytes);
        rest = tail;
        let strip = strip.clone();
        dealt[i % n].push((
            i,
            Band {
                strip,
                border,
                output,
            },
        ));
    }
    let errors: Vec<(usize, Error)> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(dealt)
            .map(|(worker, bands)| {
                let convolve = &convolve;
                scope.spawn(move || {
                    for (i, band) in bands {
                        // This worker's later strips would be wasted: the image fails.
                        convolve(worker, band).map_err(|e| (i, e))?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    .err()
            })
            .collect()
    });
    if let Some((_, e)) = errors.into_iter().min_by_key(|(i, _)| *i) {
        return Err(e);
    }
    Image::new(ow, oh, ch, samples)
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
