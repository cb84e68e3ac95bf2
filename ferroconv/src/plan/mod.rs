//! Plans: a filter and a border, built once for one device and run many times on the caller's
//! images: host memory in and out, or device memory on the caller's stream.
//!
//! A [`Filter2D`] resolves its kernels, chooses its variant and allocates its buffers on the
//! first run of each image shape (the choice `--variant auto` makes, from the autotune cache or
//! measured once; [`Filter2D::prepare`] does it ahead of time), and keeps them for the next run
//! of that shape. A run on another shape chooses and allocates again.
//!
//! ```
//! use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
//! use ferroconv::{Border, Filter};
//! use ferroconv::model::filter::FilterKind;
//!
//! let (w, h) = (640, 480);
//! let src = vec![0.5f32; w * h];
//! let mut dst = vec![0.0f32; w * h];
//! let blur = Filter::builtin(FilterKind::Gaussian, 5, None)?;
//! // The first GPU, or the CPU where there is none.
//! let mut plan = Filter2D::auto(&blur, Border::Reflect)?;
//! for _ in 0..3 {
//!     plan.run(&ImageView::new(&src, w, h, 1)?, &mut ImageViewMut::new(&mut dst, w, h, 1)?)?;
//! }
//! assert!((dst[w * h / 2] - 0.5).abs() < 1e-6);
//! # Ok::<(), ferroconv::Error>(())
//! ```
//!
//! # Threads and streams
//! A plan is `Send`: build it on one thread, run it on another. Its calls take `&mut self`, so
//! one thread runs it at a time. Each call makes the plan's GPU context current for its duration
//! and restores the caller's context before it returns. Device calls are queued on the stream
//! the caller passes and return without waiting; a plan's calls must stay ordered (one stream
//! per plan, or the caller orders the streams), because they share the plan's taps and scratch
//! buffers.

mod device;
mod float64;
mod host;
mod view;

pub use device::{DeviceImage, RawImage, StreamRef};
pub use float64::Float64Plan;
pub use view::{ImageView, ImageViewMut, Layout, Pixel};

use crate::engine::autotune::Tuner;
use crate::engine::cpu;
use crate::engine::gpu::variant::InputKind;
use crate::engine::gpu::{DeviceJob, Gpu, Kernel, Problem, Variant};
use crate::model::image::{DType, Image, Samples};
use crate::{Border, Error, Filter, Result};
use device::{Place, copy_2d};
use host::HostPath;
use std::time::Instant;

/// A 2D filter planned for one device (a GPU, or the CPU), run many times.
pub struct Filter2D<'g> {
    filter: Filter,
    border: Border,
    /// Clamp `f32` results to [0, 1].
    clamp: bool,
    /// Filter RGBA's alpha (else copy it).
    filter_alpha: bool,
    /// Truncate integer results (else round them).
    truncate: bool,
    engine: Engine<'g>,
}

/// Where the last host-memory run on a GPU spent its time (CUDA events, ms), when the plan is
/// [`timed`](Filter2D::timed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// From the first row staged to the last one on the device (the CPU's staging copies
    /// overlap the DMA, so this is the copy as the caller waits for it).
    pub upload_ms: f64,
    /// The kernel(s).
    pub kernel_ms: f64,
    /// From the kernel's end to the last row back in page-locked staging.
    pub download_ms: f64,
}

enum Engine<'g> {
    Cpu,
    Gpu(Box<GpuPlan<'g>>),
}

impl Drop for Filter2D<'_> {
    fn drop(&mut self) {
        if crate::fork::cuda_forked()
            && let Engine::Gpu(plan) = std::mem::replace(&mut self.engine, Engine::Cpu)
        {
            // The parent's buffers and staging: leaked, as freeing them would call the driver.
            std::mem::forget(plan);
        }
    }
}

/// How the GPU variant is chosen.
enum Choice {
    Fixed(Variant),
    /// The autotune cache, loaded on the first choice.
    Auto(Option<Tuner>),
}

/// What a plan keeps for the last image shape it ran.
struct Ready<'g> {
    /// Width, height, channels, sample type and images of a batch.
    shape: (usize, usize, usize, DType, usize),
    variant: Variant,
    kernel: Kernel<'g>,
    /// The taps (and the intermediate of two-pass variants); no input or output buffers.
    job: DeviceJob,
}

struct GpuPlan<'g> {
    gpu: &'g Gpu,
    choice: Choice,
    ready: Option<Ready<'g>>,
    /// Created by the first host call.
    host: Option<HostPath>,
    /// Packed copies of pitched device images, grown on demand.
    repack: [cust::memory::DeviceBuffer<u8>; 2],
    /// Time the last [`Filter2D::prepare`] that chose a variant spent choosing, in ms.
    choose_ms: f64,
    /// Host runs record [`StageTimes`].
    timed: bool,
}

impl<'g> Filter2D<'g> {
    /// A plan on `gpu` that runs the variant `--variant auto` picks for each image shape.
    pub fn new(gpu: &'g Gpu, filter: &Filter, border: Border) -> Result<Self> {
        Ok(Self {
            filter: filter.clone(),
            border,
            clamp: false,
            filter_alpha: false,
            truncate: false,
            engine: Engine::Gpu(Box::new(GpuPlan {
                gpu,
                choice: Choice::Auto(None),
                ready: None,
                host: None,
                repack: [host::empty(), host::empty()],
                choose_ms: 0.0,
                timed: false,
            })),
        })
    }

    /// A plan on the CPU (all cores), with the same results as on a GPU.
    pub fn cpu(filter: &Filter, border: Border) -> Self {
        Self {
            filter: filter.clone(),
            border,
            clamp: false,
            filter_alpha: false,
            truncate: false,
            engine: Engine::Cpu,
        }
    }

    /// A plan on the first GPU, opened once per process and shared, or on the CPU where the
    /// machine has no usable GPU (no driver, no device, or a child forked after its parent started
    /// CUDA: [`crate::fork`]); any other GPU failure is an error.
    pub fn auto(filter: &Filter, border: Border) -> Result<Filter2D<'static>> {
        if crate::fork::cuda_forked() {
            return Ok(Filter2D::cpu(filter, border));
        }
        static FIRST: std::sync::OnceLock<std::result::Result<Gpu, String>> = std::sync::OnceLock::new();
        match FIRST.get_or_init(|| Gpu::open(0).map_err(|e| e.to_string())) {
            Ok(gpu) => Filter2D::new(gpu, filter, border),
            Err(_) => Ok(Filter2D::cpu(filter, border)),
        }
    }

    /// Runs `variant` on the GPU instead of the automatic choice (no effect on the CPU). The
    /// `texture` variant reads a texture of its own and cannot run on the caller's buffers.
    pub fn with_variant(mut self, variant: Variant) -> Result<Self> {
        self.set_variant(variant)?;
        Ok(self)
    }

    /// [`with_variant`](Self::with_variant) on a plan in use: the next run uses `variant` (its
    /// kernels and buffers are kept when it is the variant already prepared).
    pub fn set_variant(&mut self, variant: Variant) -> Result<()> {
        if variant.spec().input == InputKind::Texture {
            return Err(Error::InvalidRequest(format!(
                "the {} variant cannot run in a plan (it copies the image into a texture)",
                variant.name()
            )));
        }
        if let Engine::Gpu(plan) = &mut self.engine {
            plan.choice = Choice::Fixed(variant);
            if plan.ready.as_ref().is_some_and(|r| r.variant != variant) {
                plan.unprepare();
            }
        }
        Ok(())
    }

    /// Clamps `f32` results to [0, 1] (integer results are always rounded and clamped to their
    /// type's range).
    pub fn with_clamp(mut self, clamp: bool) -> Self {
        if self.clamp != clamp {
            self.clamp = clamp;
            if let Engine::Gpu(plan) = &mut self.engine {
                plan.unprepare();
            }
        }
        self
    }

    /// Filters the 4th channel of 4-channel images like the others, as scipy and PyTorch do,
    /// instead of copying it from the input as RGBA's alpha (the default, the rule for image
    /// files). `--variant auto` then leaves out the kernels that stage only the colour channels
    /// (`tensor-u8`, and `tensor-f32` up to 25x25); asked for by name, they are refused.
    pub fn with_filter_alpha(mut self, on: bool) -> Self {
        if self.filter_alpha != on {
            self.filter_alpha = on;
            if let Engine::Gpu(plan) = &mut self.engine {
                plan.unprepare();
            }
        }
        self
    }

    /// Truncates integer (`u8`, `u16`) results toward zero, as scipy.ndimage casts a float result
    /// into an integer array, instead of rounding them to the nearest level (the default);
    /// `f32` results are unaffected. The level is `v · widen` toward zero, wrapped modulo the
    /// type's range as scipy's C cast (through `i32`) wraps it, `v` the result in levels and
    /// `widen` slightly above 1 ([`Problem::widen`]), so that a
    /// result that is exactly a whole level (a flat region under weights summing to 1) gives
    /// that level despite the `f32` rounding below it. Every GPU variant and the CPU store so,
    /// for results of magnitude below 2^22 levels (the level of any other, or of NaN, is
    /// unspecified).
    pub fn with_truncate(mut self, on: bool) -> Self {
        if self.truncate != on {
            self.truncate = on;
            if let Engine::Gpu(plan) = &mut self.engine {
                plan.unprepare();
            }
        }
        self
    }

    /// Whether integer results are truncated ([`with_truncate`](Self::with_truncate)).
    pub fn truncates(&self) -> bool {
        self.truncate
    }

    /// Records where each host-memory run on a GPU spends its time ([`stage_times`](Self::stage_times)),
    /// with four CUDA events a run.
    pub fn timed(mut self, on: bool) -> Self {
        if let Engine::Gpu(plan) = &mut self.engine {
            plan.timed = on;
        }
        self
    }

    /// The times of the last host-memory run of a [`timed`](Self::timed) GPU plan.
    pub fn stage_times(&self) -> Option<StageTimes> {
        match &self.engine {
            Engine::Gpu(plan) if plan.timed => plan.host.as_ref().and_then(|h| h.times()),
            _ => None,
        }
    }

    /// The filter the plan applies.
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    /// What the plan does beyond the image's edges.
    pub fn border(&self) -> Border {
        self.border
    }

    /// Whether `f32` results are clamped to [0, 1] ([`with_clamp`](Self::with_clamp)).
    pub fn clamps(&self) -> bool {
        self.clamp
    }

    /// The GPU the plan runs on (`None`: the CPU).
    pub fn gpu(&self) -> Option<&'g Gpu> {
        match &self.engine {
            Engine::Gpu(plan) => Some(plan.gpu),
            Engine::Cpu => None,
        }
    }

    /// The variant chosen for the last shape prepared (`None` on the CPU or before any run).
    pub fn variant(&self) -> Option<Variant> {
        match &self.engine {
            Engine::Gpu(plan) => plan.ready.as_ref().map(|r| r.variant),
            Engine::Cpu => None,
        }
    }

    /// Time the last change of shape spent choosing the variant, in ms: reading the autotune
    /// cache, or timing the candidates on a cold cache.
    pub fn choose_ms(&self) -> f64 {
        match &self.engine {
            Engine::Gpu(plan) => plan.choose_ms,
            Engine::Cpu => 0.0,
        }
    }

    /// The size of the result for a `width × height` input: the input's, or smaller by the
    /// filter's radius on each side for [`Border::Valid`].
    pub fn output_size(&self, width: usize, height: usize) -> Result<(usize, usize)> {
        self.filter.output_size(self.border, width, height)
    }

    /// Chooses the variant and allocates the buffers for images of this shape now, instead of
    /// in the first run; returns the variant (`None` on the CPU).
    pub fn prepare(
        &mut self,
        width: usize,
        height: usize,
        channels: usize,
        dtype: DType,
    ) -> Result<Option<Variant>> {
        let problem = self.problem((width, height, channels, dtype))?;
        match &mut self.engine {
            Engine::Cpu => Ok(None),
            Engine::Gpu(plan) => {
                let _current = plan.gpu.enter()?;
                plan.prepare(&problem, 1)?;
                Ok(plan.ready.as_ref().map(|r| r.variant))
            }
        }
    }

    fn problem(&self, (width, height, channels, dtype): (usize, usize, usize, DType)) -> Result<Problem> {
        crate::model::image::check_dims(width, height)?;
        crate::model::image::check_channels(channels)?;
        // A constant border is in the image's levels: one its type cannot hold is refused.
        self.border.check(dtype)?;
        Ok(Problem {
            width,
            height,
            channels,
            dtype,
            filter: self.filter.clone(),
            border: self.border,
            clamp: self.clamp,
            filter_alpha: self.filter_alpha,
            truncate: self.truncate,
        })
    }

    /// Checks that `dst` has the shape of `src`'s result.
    fn check_output(&self, src: Layout, dst: Layout) -> Result<()> {
        let (ow, oh) = self.output_size(src.width, src.height)?;
        let found = (dst.width, dst.height, dst.channels);
        if found != (ow, oh, src.channels) {
            return Err(mismatch("output", found, (ow, oh, src.channels)));
        }
        Ok(())
    }

    /// Filters `src` into `dst` (the result's size: see [`output_size`](Self::output_size)), both
    /// in host memory; returns when `dst` holds the result. On a GPU the rows travel through the
    /// plan's page-locked staging, the copies overlapping each other.
    pub fn run<T: Pixel>(&mut self, src: &ImageView<'_, T>, dst: &mut ImageViewMut<'_, T>) -> Result<()> {
        self.run_batch(1, src, dst)
    }

    /// Filters a batch of `images` images of one shape in host memory: `src` holds them one
    /// below the other (image `i` is rows `i·h .. (i+1)·h`), `dst` their results likewise. On a
    /// GPU the whole batch is copied in, filtered in one launch where the variant takes batches
    /// (see [`Variant`]), and copied out, as [`run`](Self::run) does for one image.
    pub fn run_batch<T: Pixel>(
        &mut self,
        images: usize,
        src: &ImageView<'_, T>,
        dst: &mut ImageViewMut<'_, T>,
    ) -> Result<()> {
        let (s, d) = (src.layout(), dst.layout());
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
        let problem = self.problem((s.width, sh, s.channels, T::DTYPE))?;
        let plan = match &mut self.engine {
            Engine::Cpu => {
                for i in 0..images {
                    let (a, b) = (
                        src.band(i * sh..(i + 1) * sh),
                        &mut dst.band_mut(i * dh..(i + 1) * dh),
                    );
                    cpu_run(&problem, &a, b)?;
                }
                return Ok(());
            }
            Engine::Gpu(plan) => plan,
        };
        let _current = plan.gpu.enter()?;
        let size = size_of::<T>();
        let (in_image, out_image) = (sh * s.row_len() * size, dh * d.row_len() * size);
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
        plan.launch_batch(&problem, stream, (input, in_image), (output, out_image), images)?;
        let host = plan.host.as_mut().expect("created above");
        host.mark(plan.timed, 2)?;
        host.download(output, dst, plan.timed)
    }

    /// Filters an owned image into a new one: [`run`](Self::run) on its samples.
    pub fn run_image(&mut self, image: &Image) -> Result<Image> {
        let (ow, oh) = self.output_size(image.width(), image.height())?;
        let ch = image.channels();
        let mut out = Image::new(ow, oh, ch, Samples::filled(image.dtype(), ow * oh * ch))?;
        self.run_image_into(image, &mut out)?;
        Ok(out)
    }

    /// Filters an owned image into `out`, an image of the result's shape and sample type that
    /// the caller keeps from call to call: [`run`](Self::run) on their samples.
    pub fn run_image_into(&mut self, image: &Image, out: &mut Image) -> Result<()> {
        match image.dtype() {
            DType::U8 => self.run::<u8>(&image.view()?, &mut out.view_mut()?),
            DType::U16 => self.run::<u16>(&image.view()?, &mut out.view_mut()?),
            DType::F32 => self.run::<f32>(&image.view()?, &mut out.view_mut()?),
        }
    }

    /// Queues the filter of `src` into `dst`, both on the plan's GPU, on `stream`; returns
    /// without waiting (synchronize the stream, or queue more work after it).
    pub fn run_device(
        &mut self,
        src: &DeviceImage<'_>,
        dst: &mut DeviceImage<'_>,
        stream: StreamRef,
    ) -> Result<()> {
        let gpu = self
            .gpu()
            .ok_or_else(|| Error::InvalidRequest("a CPU plan cannot run on device images".into()))?;
        if !std::ptr::eq(src.gpu(), gpu) || !std::ptr::eq(dst.gpu(), gpu) {
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
    /// images (rows longer than their pixels) are copied to packed scratch on the device first
    /// (and the result back), since the kernels read packed rows. A `dst` that overlaps `src`
    /// (the same array, or a view of it) gets the exact result: the kernels then write scratch
    /// on the device, copied into `dst` after them.
    ///
    /// # Safety
    /// `src` and `dst` must describe device memory of the plan's GPU (allocated in its primary
    /// context) that holds `images × height` rows at the given pitch, and both must stay
    /// allocated, and `src` unchanged but for this call's own writes, until the work queued here
    /// has run on `stream`. `stream` must be a stream of that context (see [`StreamRef::from_raw`]).
    pub unsafe fn run_raw(&mut self, src: RawImage, dst: RawImage, stream: StreamRef) -> Result<()> {
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
        self.check_output(layout(&src), layout(&dst))?;
        let problem = self.problem((src.width, src.height, src.channels, src.dtype))?;
        let Engine::Gpu(plan) = &mut self.engine else {
            return Err(Error::InvalidRequest(
                "a CPU plan cannot run on device images".into(),
            ));
        };
        let _current = plan.gpu.enter()?;
        plan.prepare(&problem, src.images)?;
        let s = stream.as_raw();
        let [scratch_in, scratch_out] = &mut plan.repack;
        let input = if src.is_packed() {
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
        let output = if dst.is_packed() && !(input == src.ptr && dst.overlaps(&src)) {
            dst.ptr
        } else {
            host::grow_device(scratch_out, dst.row_bytes() * dst.rows())?
        };
        let (in_image, out_image) = (src.row_bytes() * src.height, dst.row_bytes() * dst.height);
        plan.launch_batch(&problem, s, (input, in_image), (output, out_image), src.images)?;
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

impl<'g> GpuPlan<'g> {
    /// Queues the prepared kernel on `images` packed images of `problem`'s shape, image `i` at
    /// `input.0 + i·input.1` and its result at `output.0 + i·output.1` (addresses, bytes): one
    /// launch for the variants that take batches (up to the grid's limit), else one an image.
    fn launch_batch(
        &self,
        problem: &Problem,
        stream: cust::sys::CUstream,
        input: (u64, usize),
        output: (u64, usize),
        images: usize,
    ) -> Result<()> {
        let Some(ready) = &self.ready else {
            return Err(Error::Mismatch("the plan lost its kernels".into()));
        };
        let mut g = problem.geometry()?;
        g.trunc_scale = problem.trunc_scale(ready.variant.needs_rank1());
        let per_launch = per_launch(ready.variant);
        for first in (0..images).step_by(per_launch) {
            let n = per_launch.min(images - first);
            let io = (
                input.0 + (first * input.1) as u64,
                output.0 + (first * output.1) as u64,
            );
            self.gpu
                .launch_on(&ready.kernel, &ready.job, g, stream, Some(io), n as u32)?;
        }
        Ok(())
    }

    /// Forgets the kernels and buffers of the last shape (leaked in a forked child, where freeing
    /// them would call the driver: [`crate::fork`]).
    fn unprepare(&mut self) {
        if let Some(ready) = self.ready.take()
            && crate::fork::cuda_forked()
        {
            std::mem::forget(ready);
        }
    }

    /// The kernels, variant and taps for `problem`'s shape in batches of `images`: kept from the
    /// last call when they are the same, else chosen and allocated now. A batch is tuned as one
    /// image `images` times as tall (the work of one launch). The context must be current.
    fn prepare(&mut self, problem: &Problem, images: usize) -> Result<()> {
        let shape = (
            problem.width,
            problem.height,
            problem.channels,
            problem.dtype,
            images,
        );
        if self.ready.as_ref().is_none_or(|r| r.shape != shape) {
            self.unprepare();
            let started = Instant::now();
            let variant = match &mut self.choice {
                Choice::Fixed(v) => *v,
                Choice::Auto(tuner) => {
                    let tuned = Problem {
                        height: problem.height.saturating_mul(images),
                        ..problem.clone()
                    };
                    tuner.get_or_insert_with(Tuner::load).choose(self.gpu, &tuned)?.0
                }
            };
            self.choose_ms = started.elapsed().as_secs_f64() * 1e3;
            self.ready = Some(Ready {
                shape,
                variant,
                kernel: self.gpu.kernel(variant, problem.dtype)?,
                job: self
                    .gpu
                    .alloc_job(variant, problem, false, images.min(per_launch(variant)))?,
            });
        }
        Ok(())
    }
}

/// Images a launch of `variant` takes: up to 65535 grid planes of at most 4 channels where the
/// variant takes batches, else one.
fn per_launch(variant: Variant) -> usize {
    if variant.spec().batched { 65_535 / 4 } else { 1 }
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

/// An error for an image whose shape the plan's output does not match.
fn mismatch(what: &str, found: (usize, usize, usize), want: (usize, usize, usize)) -> Error {
    Error::Mismatch(format!(
        "the {what} is {}x{}x{}, the plan needs {}x{}x{}",
        found.0, found.1, found.2, want.0, want.1, want.2
    ))
}
