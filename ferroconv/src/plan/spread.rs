//! One image's strips on several workers at once (GPUs, each with its own plan), each strip read
//! in place and written straight into its rows of one output: the strips of
//! [`crate::engine::strips`], with the whole image's result bit for bit.

use crate::engine::strips::{Strip, split, strip_input};
use crate::model::image::{Image, Samples, for_dtype};
use crate::plan::{Filter2D, ImageView, ImageViewMut, Pixel};
use crate::{Border, Error, Result};
use std::ops::Range;

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
    /// place (`Strip::clipped`: the border applies only at the image's own edges), except
    /// where a wrapped border reaches past an edge: that strip's rows are copied with the rows
    /// from the other edge ([`strip_input`]).
    pub fn run(self, image: &Image, plan: &mut Filter2D) -> Result<()> {
        let wrapped;
        let (source, input, skip) = if self.strip.wraps(self.border, image.height()) {
            wrapped = strip_input(image, self.border, &self.strip)?;
            (&wrapped, 0..wrapped.height(), self.strip.skip())
        } else {
            (
                image,
                self.strip.clipped(image.height()),
                self.strip.skip_clipped(),
            )
        };
        for_dtype!(source.dtype(), T => band_rows::<T>(plan, source, input, skip, self.output))
    }
}

/// `plan`'s result of `image`'s rows `input`, its rows from `skip` on written into `output`
/// (whole rows of the result's width).
fn band_rows<T: Pixel>(
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

/// Convolves `image` strip by strip on `workers`, each on its own thread: strip `i` goes to
/// worker `i mod n` (so a worker gets the same strips image after image) as a [`Band`], which
/// `convolve` must fill with that strip's rows of the whole image's result (see
/// [`Band::run`]). The strips (`strips` as [`split`] makes them) read the image in place (but
/// a wrapped border's edge strips) and write disjoint rows of one output, allocated once and
/// faulted in by the copies that fill it: no lock is taken. The result is the whole image's bit for bit when
/// every worker filters as one would. The first error (in strip order) is returned.
pub fn run<W: Send>(
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

/// Output rows below which an image is not cut into strips for more plans.
const STRIP_ROWS_MIN: usize = 64;

/// Filters a batch of `images` host images of one shape, as [`Filter2D::run_batch`] takes
/// them, on all of `plans` at once, one thread each. Every plan must filter as the first does
/// (the same filter, border and settings, on any devices); each GPU plan runs the variant the
/// first plan chooses for the whole images, so the result is one plan's bit for bit (for the
/// kernels whose outputs do not depend on where their tiles fall; see `tensor-f32`'s scaling).
///
/// With at least as many images as plans, each plan takes a run of whole images; with fewer,
/// every image is cut into one strip per plan (fewer where it has under 64 output rows a
/// strip), each read in place, but a wrapped border's edge strips, which are copied with the
/// rows from the other edge. The first error, in the order of the plans, is returned.
pub fn run_batch<T: Pixel>(
    plans: &mut [Filter2D],
    images: usize,
    src: &ImageView<'_, T>,
    dst: &mut ImageViewMut<'_, T>,
) -> Result<()> {
    let n = plans.len();
    let Some(first) = plans.first_mut() else {
        return Err(Error::InvalidRequest("no plans to spread the images over".into()));
    };
    let (s, d) = (src.layout(), dst.layout());
    let (sh, dh) = first.batch_heights(images, s, d)?;
    if n == 1 {
        return first.run_batch(images, src, dst);
    }
    // As `run_batch` chooses: for the batch as one image `images` times as tall.
    let variant = first.choose((s.width, s.height, s.channels, T::DTYPE))?;
    let border = first.border();
    let mut jobs: Vec<Vec<Job<'_, '_, T>>> = (0..n).map(|_| Vec::new()).collect();
    let mut rest = Some(dst.band_mut(0..d.height));
    let mut take = |rows: usize| {
        let band = rest.take().expect("the output holds every job's rows");
        if rows == band.layout().height {
            return band;
        }
        let (top, bottom) = band.split_rows(rows);
        rest = Some(bottom);
        top
    };
    if images >= n {
        let mut start = 0;
        for (i, plan_jobs) in jobs.iter_mut().enumerate() {
            let count = images / n + usize::from(i < images % n);
            plan_jobs.push(Job::Images {
                src: src.band(start * sh..(start + count) * sh),
                count,
                dst: take(count * dh),
            });
            start += count;
        }
    } else {
        let count = n.min((dh / STRIP_ROWS_MIN).max(1));
        for i in 0..images {
            let image = src.band(i * sh..(i + 1) * sh);
            for (j, strip) in split(dh, count, first.filter().radius(), border)
                .into_iter()
                .enumerate()
            {
                let dst = take(strip.rows.len());
                jobs[j].push(Job::Strip { image, strip, dst });
            }
        }
    }
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .iter_mut()
            .zip(jobs)
            .map(|(plan, jobs)| {
                scope.spawn(move || {
                    plan.fixed(variant, |plan| {
                        jobs.into_iter().try_for_each(|job| job.run(plan, border))
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    results.into_iter().collect()
}

/// One plan's share of [`run_batch`]: a run of whole images, or one strip of an image.
enum Job<'s, 'd, T: Pixel> {
    Images {
        src: ImageView<'s, T>,
        count: usize,
        dst: ImageViewMut<'d, T>,
    },
    Strip {
        image: ImageView<'s, T>,
        strip: Strip,
        dst: ImageViewMut<'d, T>,
    },
}

impl<T: Pixel> Job<'_, '_, T> {
    fn run(self, plan: &mut Filter2D, border: Border) -> Result<()> {
        match self {
            Job::Images { src, count, mut dst } => plan.run_batch(count, &src, &mut dst),
            Job::Strip {
                image,
                strip,
                mut dst,
            } => {
                let l = image.layout();
                if !strip.wraps(border, l.height) {
                    return plan.run_rows(
                        &image.band(strip.clipped(l.height)),
                        &mut dst,
                        strip.skip_clipped(),
                    );
                }
                // The strip's rows, those past an edge from the other edge.
                let mut rows = Vec::with_capacity(strip.input.len() * l.row_len());
                for y in strip.input.clone() {
                    rows.extend_from_slice(image.row(y.rem_euclid(l.height as isize) as usize));
                }
                let copy = ImageView::new(&rows, l.width, strip.input.len(), l.channels)?;
                plan.run_rows(&copy, &mut dst, strip.skip())
            }
        }
    }
}
