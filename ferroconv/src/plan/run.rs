//! Running a [`Filter2D`]: host memory in and out ([`run`](Filter2D::run), one image or a
//! batch, or owned [`Image`]s), or device memory on the caller's stream
//! ([`run_device`](Filter2D::run_device), [`run_raw`](Filter2D::run_raw)); on the CPU through
//! [`cpu_run`].

use super::device::{DeviceImage, Place, RawImage, StreamRef, copy_2d};
use super::host::{self, HostPath};
use super::view::{ImageView, ImageViewMut, Layout, Pixel};
use super::{Engine, Filter2D};
use crate::engine::cpu;
use crate::engine::gpu::{Problem, Variant};
use crate::model::image::{DType, Image, Samples, for_dtype};
use crate::{Error, Result};

/// The widest vector the kernels load or store (16 bytes), from an image's first sample on.
const VECTOR_BYTES: u64 = 16;

impl Filter2D {
    /// Filters `src` into `dst` (the result's size: see [`output_size`](Self::output_size)), both
    /// in host memory; returns when `dst` holds the result. On a GPU the rows travel through the
    /// plan's page-locked staging, the copies overlapping each other.
    pub fn run<T: Pixel>(&mut self, src: &ImageView<'_, T>, dst: &mut ImageViewMut<'_, T>) -> Result<()> {
        self.run_batch(1, src, dst)
    }

    /// Filters a batch of `images` images of one shape in host memory: `src` holds them one
    /// below the other (image `i` is rows `i·h .. (i+1)·h`), `dst` their results likewise. On a
    /// GPU the whole batch is copied in, filtered in one launch where the variant takes batches
    /// (see [`Variant`]), and copied out, as [`run`](Self::run) does
    /// for one image.
    pub fn run_batch<T: Pixel>(
        &mut self,
        images: usize,
        src: &ImageView<'_, T>,
        dst: &mut ImageViewMut<'_, T>,
    ) -> Result<()> {
        self.batch_heights(images, src.layout(), dst.layout())?;
        self.run_kept(images, src, dst, 0)
    }

    /// The input and output heights of one image of a batch of `images` images in views of
    /// layouts `s` and `d`, checked as [`run_batch`](Self::run_batch) takes them.
    pub(super) fn batch_heights(&self, images: usize, s: Layout, d: Layout) -> Result<(usize, usize)> {
        if images == 0 || !s.height.is_multiple_of(images) || !d.height.is_multiple_of(images) {
            return Err(Error::InvalidRequest(format!(
                "a batch of {images} images needs views whose heights are multiples of {images} \
                 (the input has {} rows, the output {})",
                s.height, d.height
            )));
        }
        let (sh, dh) = (s.height / images, d.height / images);
        let one = |l: Layout, height: usize| Layout { height, ..l };
        self.check_output(one(s, sh), one(d, dh))?;
        Ok((sh, dh))
    }

    /// Filters `src` as one image but keeps only rows `skip .. skip + h` of its result, written
    /// into `dst` (`h` rows of the result's width): a strip of a larger image whose halo rows
    /// `src` holds, read in place, with no copy of the strip or of its whole result in host
    /// memory (see [`strips`](crate::engine::strips)).
    pub(crate) fn run_rows<T: Pixel>(
        &mut self,
        src: &ImageView<'_, T>,
        dst: &mut ImageViewMut<'_, T>,
        skip: usize,
    ) -> Result<()> {
        let (s, d) = (src.layout(), dst.layout());
        let (ow, oh) = self.output_size(s.width, s.height)?;
        if (d.width, d.channels) != (ow, s.channels) || skip + d.height > oh {
            return Err(Error::Mismatch(format!(
                "rows {skip}..{} of a {ow}x{oh}x{} result do not fit an output band of {}x{}x{}",
                skip + d.height,
                s.channels,
                d.width,
                d.height,
                d.channels
            )));
        }
        self.run_kept(1, src, dst, skip)
    }

    /// [`run_batch`](Self::run_batch) with shapes checked, each result's first `skip` rows left
    /// out (and any past `dst`'s height: see [`run_rows`](Self::run_rows)).
    fn run_kept<T: Pixel>(
        &mut self,
        images: usize,
        src: &ImageView<'_, T>,
        dst: &mut ImageViewMut<'_, T>,
        skip: usize,
    ) -> Result<()> {
        let (s, d) = (src.layout(), dst.layout());
        let (sh, dh) = (s.height / images, d.height / images);
        let problem = self.problem((s.width, sh, s.channels, T::DTYPE))?;
        let plan = match &mut self.engine {
            Engine::Cpu => {
                for i in 0..images {
                    let (a, b) = (
                        src.band(i * sh..(i + 1) * sh),
                        &mut dst.band_mut(i * dh..(i + 1) * dh),
                    );
                    cpu_rows(&problem, &a, b, skip)?;
                }
                return Ok(());
            }
            Engine::Gpu(plan) => plan,
        };
        let _current = plan.gpu.enter()?;
        let size = size_of::<T>();
        let oh = problem.output_size()?.1;
        let (in_image, out_image) = (sh * s.row_len() * size, oh * d.row_len() * size);
        if plan.host.is_none() {
            plan.host = Some(HostPath::new()?);
        }
        plan.prepare(&problem, images)?;
        let Some(host) = plan.host.as_mut() else {
            return Err(Error::Mismatch("the plan lost its buffers".into()));
        };
        let (input, output) = host.reserve(
            images * in_image,
            images * out_image,
            s.row_len().max(d.row_len()) * size,
        )?;
        host.mark(plan.timed, 0)?;
        host.upload(src, input)?;
        host.mark(plan.timed, 1)?;
        let stream = host.stream().as_inner();
        plan.launch_batch(
            &problem,
            stream,
            (input, in_image),
            (output, out_image),
            images,
            None,
        )?;
        let host = plan.host.as_mut().expect("created above");
        host.mark(plan.timed, 2)?;
        let kept = output + (skip * d.row_len() * size) as u64;
        host.download(kept, dst, plan.timed)
    }

    /// Filters an owned image into a new one: [`run`](Self::run) on its samples.
    pub fn run_image(&mut self, image: &Image) -> Result<Image> {
        let (ow, oh) = self.output_size(image.width(), image.height())?;
        let ch = image.channels();
        let mut out = Image::new(ow, oh, ch, Samples::zeroed(image.dtype(), ow * oh * ch))?;
        self.run_image_into(image, &mut out)?;
        Ok(out)
    }

    /// Filters an owned image into `out`, an image of the result's shape and sample type that
    /// the caller keeps from call to call: [`run`](Self::run) on their samples.
    pub fn run_image_into(&mut self, image: &Image, out: &mut Image) -> Result<()> {
        for_dtype!(image.dtype(), T => self.run::<T>(&image.view()?, &mut out.view_mut()?))
    }

    /// Queues the filter of `src` into `dst`, both on the plan's GPU, on `stream`; returns
    /// without waiting (synchronize the stream, or queue more work after it).
    pub fn run_device(&mut self, src: &DeviceImage, dst: &mut DeviceImage, stream: StreamRef) -> Result<()> {
        let gpu = self
            .gpu()
            .ok_or_else(|| Error::InvalidRequest("a CPU plan cannot run on device images".into()))?;
        if src.gpu() != gpu || dst.gpu() != gpu {
            return Err(Error::InvalidRequest(
                "the device images belong to another GPU than the plan".into(),
            ));
        }
        // SAFETY: both images are live allocations of the plan's GPU of the shapes they describe;
        // the caller keeps them alive until the stream has run the work (as `DeviceImage`
        // documents) and the stream satisfies `StreamRef::from_raw`.
        unsafe { self.run_raw(src.raw(), dst.raw(), stream) }
    }

    /// Queues the filter of the caller's device image `src` into `dst` on `stream`, returning
    /// without waiting: the entry for interop (DLPack, `__cuda_array_interface__`). Pitched
    /// images (rows longer than their pixels) and images that do not start on 16 bytes (a view
    /// a few samples into its allocation) are copied to packed scratch on the device first (and
    /// the result back), since the kernels read packed rows as 16-byte vectors from the image's
    /// start. A `dst` that overlaps `src` (the same array, or a view of it) gets the exact
    /// result: the kernels then write scratch on the device, copied into `dst` after them.
    ///
    /// # Safety
    /// `src` and `dst` must describe device memory of the plan's GPU (allocated in its primary
    /// context) that holds `images × height` rows at the given pitch, and both must stay
    /// allocated, and `src` unchanged but for this call's own writes, until the work queued here
    /// has run on `stream`. `stream` must be a stream of that context (see [`StreamRef::from_raw`]).
    pub unsafe fn run_raw(&mut self, src: RawImage, dst: RawImage, stream: StreamRef) -> Result<()> {
        let problem = self.raw_problem(&src, &dst)?;
        let Engine::Gpu(plan) = &mut self.engine else {
            return Err(Error::InvalidRequest(
                "a CPU plan cannot run on device images".into(),
            ));
        };
        let _current = plan.gpu.enter()?;
        plan.prepare(&problem, src.images)?;
        let s = stream.as_raw();
        let [scratch_in, scratch_out] = &mut plan.repack;
        let input = if direct(&src) {
            src.ptr
        } else {
            let packed = host::grow_device(scratch_in, src.row_bytes() * src.rows())?;
            // SAFETY: the caller's contract covers `src`; `packed` holds the packed image.
            unsafe {
                copy_2d(
                    Place::Device(src.ptr),
                    src.pitch,
                    Place::Device(packed),
                    src.row_bytes(),
                    src.row_bytes(),
                    src.rows(),
                    Some(s),
                )?
            };
            packed
        };
        // The kernels never write memory they read: an output over the input goes to scratch.
        let output = if direct(&dst) && !(input == src.ptr && dst.overlaps(&src)) {
            dst.ptr
        } else {
            host::grow_device(scratch_out, dst.row_bytes() * dst.rows())?
        };
        let (in_image, out_image) = (src.row_bytes() * src.height, dst.row_bytes() * dst.height);
        plan.launch_batch(
            &problem,
            s,
            (input, in_image),
            (output, out_image),
            src.images,
            None,
        )?;
        if output != dst.ptr {
            // SAFETY: as above, the other way.
            unsafe {
                copy_2d(
                    Place::Device(output),
                    dst.row_bytes(),
                    Place::Device(dst.ptr),
                    dst.pitch,
                    dst.row_bytes(),
                    dst.rows(),
                    Some(s),
                )?
            };
        }
        Ok(())
    }
}

impl Filter2D {
    /// Queues `√(c² + v²)` into `dst` on `stream`, `v` this filter's result of `src` and `c`
    /// the sample at the same place of `with`, the device address of a packed `f32` image of
    /// `dst`'s shape and batch (it may be `dst` itself); each step rounded to nearest, numpy's
    /// `np.sqrt(c * c + v * v)`: the last of `gaussian_gradient_magnitude`'s two terms in one
    /// pass, with no image of it in between. Returns `Ok(false)`, queuing nothing, where the
    /// plan cannot: unless the samples are `f32`, the variant chosen for the shape is `separable`
    /// or `separable-fused`, `src`, `dst` and `with` are packed and start on 16 bytes, `dst` does
    /// not overlap `src`, and RGBA's alpha is filtered, not copied.
    ///
    /// # Safety
    /// As for [`run_raw`](Self::run_raw); and `with` holds `dst.images` packed `f32` images of
    /// `dst`'s width, height and channels, unchanged until the work has run on `stream` but for
    /// this call's writes where it is `dst`.
    pub unsafe fn run_raw_hypot(
        &mut self,
        src: RawImage,
        with: u64,
        dst: RawImage,
        stream: StreamRef,
    ) -> Result<bool> {
        let problem = self.raw_problem(&src, &dst)?;
        let Engine::Gpu(plan) = &mut self.engine else {
            return Ok(false);
        };
        if src.dtype != DType::F32
            || !direct(&src)
            || !direct(&dst)
            || dst.overlaps(&src)
            || !with.is_multiple_of(VECTOR_BYTES)
            || (problem.channels == 4 && !problem.filter_alpha)
        {
            return Ok(false);
        }
        let _current = plan.gpu.enter()?;
        plan.prepare(&problem, src.images)?;
        if !plan
            .ready
            .as_ref()
            .is_some_and(|r| matches!(r.variant, Variant::Separable | Variant::SeparableFused))
        {
            return Ok(false);
        }
        let (in_image, out_image) = (src.row_bytes() * src.height, dst.row_bytes() * dst.height);
        let io = ((src.ptr, in_image), (dst.ptr, out_image));
        plan.launch_batch(&problem, stream.as_raw(), io.0, io.1, src.images, Some(with))?;
        Ok(true)
    }

    /// The problem of `src` filtered into `dst`, both checked.
    fn raw_problem(&self, src: &RawImage, dst: &RawImage) -> Result<Problem> {
        src.check()?;
        dst.check()?;
        if src.dtype != dst.dtype {
            return Err(Error::Mismatch(format!(
                "a {} input and a {} output",
                src.dtype.suffix(),
                dst.dtype.suffix()
            )));
        }
        if src.images != dst.images {
            return Err(Error::Mismatch(format!(
                "a batch of {} images into a batch of {}",
                src.images, dst.images
            )));
        }
        let layout = |r: &RawImage| Layout {
            width: r.width,
            height: r.height,
            channels: r.channels,
            stride: r.width * r.channels,
        };
        self.check_output(layout(src), layout(dst))?;
        self.problem((src.width, src.height, src.channels, src.dtype))
    }
}

/// Whether the kernels take `r` as it lies: packed rows, from a first sample on their 16-byte
/// vectors (their loads and stores start there).
fn direct(r: &RawImage) -> bool {
    r.is_packed() && r.ptr.is_multiple_of(VECTOR_BYTES)
}

/// The CPU engine on host views: packed views directly, others through packed copies.
fn cpu_run<T: Pixel>(problem: &Problem, src: &ImageView<'_, T>, dst: &mut ImageViewMut<'_, T>) -> Result<()> {
    let s = src.layout();
    let dims = (s.width, s.height, s.channels);
    let packed_src: std::borrow::Cow<'_, [T]> = match src.packed() {
        Some(samples) => samples.into(),
        None => (0..s.height)
            .flat_map(|y| src.row(y).iter().copied())
            .collect::<Vec<_>>()
            .into(),
    };
    if let Some(out) = dst.packed_mut() {
        return cpu::parallel_slices(&packed_src, dims, problem, out);
    }
    let d = dst.layout();
    let mut out = vec![T::default(); d.height * d.row_len()];
    cpu::parallel_slices(&packed_src, dims, problem, &mut out)?;
    for (y, row) in out.chunks_exact(d.row_len()).enumerate() {
        dst.row_mut(y).copy_from_slice(row);
    }
    Ok(())
}

/// [`cpu_run`] keeping rows `skip .. skip + dst.height` of the result (through a temporary
/// unless those are all of it).
fn cpu_rows<T: Pixel>(
    problem: &Problem,
    src: &ImageView<'_, T>,
    dst: &mut ImageViewMut<'_, T>,
    skip: usize,
) -> Result<()> {
    let (ow, oh) = problem.output_size()?;
    let d = dst.layout();
    if (skip, d.height) == (0, oh) {
        return cpu_run(problem, src, dst);
    }
    let mut whole = vec![T::default(); ow * oh * d.channels];
    cpu_run(
        problem,
        src,
        &mut ImageViewMut::new(&mut whole, ow, oh, d.channels)?,
    )?;
    for (y, row) in whole
        .chunks_exact(d.row_len())
        .skip(skip)
        .take(d.height)
        .enumerate()
    {
        dst.row_mut(y).copy_from_slice(row);
    }
    Ok(())
}
