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

mod cpu;
mod device;
mod float64;
mod gpu_plan;
mod host;
mod magnitude;
mod run;
pub mod spread;
mod view;

pub use cpu::{CpuPlan, Real};
pub use device::{DeviceImage, RawImage, StreamRef};
pub use float64::Float64Plan;
pub use magnitude::Magnitude;
pub use view::{ImageView, ImageViewMut, Layout, Pixel};

use crate::engine::autotune::Choice;
use crate::engine::gpu::variant::InputKind;
use crate::engine::gpu::{Gpu, Problem, Variant};
use crate::model::image::DType;
use crate::{Border, Error, Filter, Result};
use gpu_plan::GpuPlan;

/// A 2D filter planned for one device (a GPU, or the CPU), run many times.
pub struct Filter2D {
    filter: Filter,
    border: Border,
    /// Clamp `f32` results to [0, 1].
    clamp: bool,
    /// Filter RGBA's alpha (else copy it).
    filter_alpha: bool,
    /// Truncate integer results (else round them).
    truncate: bool,
    engine: Engine,
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
    /// When the upload began: ms after [`epoch`], on the host's clock (placed through an event
    /// the plan's stream passed at a known instant, so to within a few microseconds).
    pub start_ms: f64,
}

/// The instant [`StageTimes::start_ms`] counts from: the first call of this function in the
/// process (a timeline's origin for GPU stages and host threads alike).
pub fn epoch() -> std::time::Instant {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

enum Engine {
    Cpu,
    Gpu(Box<GpuPlan>),
}

impl Drop for Filter2D {
    fn drop(&mut self) {
        if crate::fork::cuda_forked()
            && let Engine::Gpu(plan) = std::mem::replace(&mut self.engine, Engine::Cpu)
        {
            // The parent's buffers and staging: leaked, as freeing them would call the driver.
            std::mem::forget(plan);
        }
    }
}

impl Filter2D {
    /// A plan on `gpu` that runs the variant `--variant auto` picks for each image shape.
    pub fn new(gpu: &Gpu, filter: &Filter, border: Border) -> Result<Self> {
        Ok(Self {
            filter: filter.clone(),
            border,
            clamp: false,
            filter_alpha: false,
            truncate: false,
            engine: Engine::Gpu(Box::new(GpuPlan {
                gpu: gpu.clone(),
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
    pub fn auto(filter: &Filter, border: Border) -> Result<Filter2D> {
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
    pub fn gpu(&self) -> Option<&Gpu> {
        match &self.engine {
            Engine::Gpu(plan) => Some(&plan.gpu),
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

    /// The variant the plan runs on images of this shape (`None` on the CPU), chosen as a run
    /// would choose it (for `Auto`, measured once and cached) but without preparing buffers.
    pub(crate) fn choose(&mut self, shape: (usize, usize, usize, DType)) -> Result<Option<Variant>> {
        let problem = self.problem(shape)?;
        match &mut self.engine {
            Engine::Cpu => Ok(None),
            Engine::Gpu(plan) => {
                let _current = plan.gpu.enter()?;
                plan.choice.variant(&plan.gpu, &problem).map(Some)
            }
        }
    }

    /// `run` on this plan with its GPU variant fixed to `variant` (where given; nothing changes
    /// on the CPU), the plan's own choice restored afterwards.
    pub(crate) fn fixed<R>(
        &mut self,
        variant: Option<Variant>,
        run: impl FnOnce(&mut Self) -> Result<R>,
    ) -> Result<R> {
        let (Some(v), Engine::Gpu(plan)) = (variant, &mut self.engine) else {
            return run(self);
        };
        let own = std::mem::replace(&mut plan.choice, Choice::Fixed(v));
        if plan.ready.as_ref().is_some_and(|r| r.variant != v) {
            plan.unprepare();
        }
        let result = run(self);
        if let Engine::Gpu(plan) = &mut self.engine {
            plan.choice = own;
        }
        result
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
}

/// An error for an image whose shape the plan's output does not match.
fn mismatch(what: &str, found: (usize, usize, usize), want: (usize, usize, usize)) -> Error {
    Error::Mismatch(format!(
        "the {what} is {}x{}x{}, the plan needs {}x{}x{}",
        found.0, found.1, found.2, want.0, want.1, want.2
    ))
}
