//! One image's strips on several workers at once (GPUs, each with its own plan), each strip read
//! in place and written straight into its rows of one output: the strips of
//! [`crate::engine::strips`], with the whole image's result bit for bit.

use crate::engine::strips::{Strip, strip_input};
use crate::model::image::{Image, Samples, for_dtype};
use crate::plan::{Filter2D, ImageViewMut, Pixel};
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
        let h = image.height() as isize;
        let wrapped;
        let (source, input, skip) =
            if self.border == Border::Wrap && (self.strip.input.start < 0 || self.strip.input.end > h) {
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
/// [`Band::run`]). The strips (`strips` as [`split`](crate::engine::strips::split) makes them) read the image in place (but
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
