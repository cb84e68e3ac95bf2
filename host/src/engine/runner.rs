//! The convolution engines of the command line's batches, `host scale` and `host soak`:
//! the CPU, or one GPU (a [`Filter2D`] plan, reusing its buffers) per [`Engine`], convolving an
//! image whole or in strips, and several GPUs sharing one image's strips.

use crate::engine::fault::{self, Injection, Stage};
use crate::engine::{recycle, trace};
pub use ferroconv::engine::autotune::Choice;
use ferroconv::engine::gpu::{Gpu, Problem, Variant};
use ferroconv::engine::{cpu, strips};
use ferroconv::io::files::{Encoding, RawLayout};
use ferroconv::model::image::DType;
use ferroconv::plan::spread;
use ferroconv::{Border, Filter, Filter2D, Image, Result};
use serde::Serialize;
use std::time::Instant;

/// What to do to every image.
#[derive(Clone, Debug)]
pub struct Settings {
    pub filter: Filter,
    pub border: Border,
    /// Clamp `f32` results to [0, 1].
    pub clamp: bool,
    /// Convert the samples to this type before processing (default: keep the file's).
    pub dtype: Option<DType>,
    /// How to read RAW files.
    pub raw: RawLayout,
    /// The most memory one decoded image may take (`--max-image-mem`).
    pub max_image_bytes: u64,
    /// Device memory one convolution may use, in bytes (`None`: 90% of the GPU's free memory; no
    /// limit on the CPU). Larger images are processed in strips.
    pub max_mem: Option<usize>,
    /// A fault to inject (tests; see [`crate::engine::fault`]).
    pub inject: Option<Injection>,
    /// How results are encoded (JPEG quality, TIFF and PNG compression).
    pub encoding: Encoding,
    /// Filter the pixels as stored and keep the Exif orientation tag, instead of applying it.
    pub keep_orientation: bool,
    /// The page of multi-page TIFF inputs to filter (0-based); without it they fail.
    pub page: Option<usize>,
    /// Results as sample counts, scaled and shifted (OpenCV's `ddepth`, `scale`, `delta`);
    /// `None`: results of the input's sample type.
    pub counts: Option<Counts>,
}

/// Results in sample counts, as OpenCV's `filter2D` and `Sobel` give them with a `ddepth` of
/// `CV_32F` or `CV_16S`: the input's samples are filtered as `f32` counts, their levels (0-255 for
/// 8-bit input, 0-65535 for 16-bit; `f32` input as it is; see
/// [`to_counts`](ferroconv::io::files::to_counts)), and each result is `v · scale + delta`. So integer
/// taps on an integer image give exact integers (while the sums stay below 2^24), and an 8-bit
/// image's Sobel derivative keeps its sign and its -1020 to 1020 counts instead of being clamped
/// to 0-255. RGBA's alpha is copied as its level. The encoder writes them as `f32`, or as rounded
/// and saturated signed 16-bit integers (`Encoding::int16`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counts {
    pub scale: f64,
    pub delta: f64,
}

impl Counts {
    /// `image` (the `f32` result of filtering an input's counts) scaled and shifted; its alpha,
    /// copied from the input, is left as it is.
    pub fn apply(&self, image: &mut Image) {
        let ch = image.channels();
        let (a, b) = (self.scale as f32, self.delta as f32);
        if (a, b) == (1.0, 0.0) {
            return;
        }
        let Ok(mut view) = image.view_mut::<f32>() else {
            return;
        };
        for y in 0..view.layout().height {
            for (i, x) in view.row_mut(y).iter_mut().enumerate() {
                if !cpu::is_alpha(ch, i % ch) {
                    *x = x.mul_add(a, b);
                }
            }
        }
    }
}

impl Settings {
    /// For images already in memory: `filter` and `border`, no clamping, no conversion, no RAW
    /// layout, no memory bound on decoding, device memory as the GPU has it, no fault injection.
    pub fn in_memory(filter: Filter, border: Border) -> Settings {
        Settings {
            filter,
            border,
            clamp: false,
            dtype: None,
            raw: RawLayout::default(),
            max_image_bytes: u64::MAX,
            max_mem: None,
            inject: None,
            encoding: Encoding::default(),
            keep_orientation: false,
            page: None,
            counts: None,
        }
    }
}

/// Where convolutions run.
pub enum Engine<'g> {
    /// The multi-threaded CPU path (`cpu-par`).
    Cpu,
    /// The GPU: images run through a [`Filter2D`] plan (built by the first image), which keeps
    /// its device buffers and page-locked staging while images keep their shape and variant.
    Gpu {
        gpu: &'g Gpu,
        choice: Choice,
        plan: Option<Box<Filter2D>>,
    },
}

/// A convolution's result, its number of strips and its times.
pub type Convolved = (Image, usize, ComputeTimes);

/// Times of one image's convolution (ms).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ComputeTimes {
    /// The whole convolution on the host clock (GPU: including transfers and allocation).
    pub compute_ms: f64,
    /// The variant that ran (a GPU variant's name or `cpu-par`).
    pub variant: &'static str,
    /// GPU kernels only (CUDA events).
    pub kernel_ms: Option<f64>,
    pub h2d_ms: Option<f64>,
    pub d2h_ms: Option<f64>,
}

impl ComputeTimes {
    /// The times of two convolutions together (of two pages of one file), the variant `self`'s;
    /// a GPU time one of them lacks is lacking.
    pub fn add(&self, other: &ComputeTimes) -> ComputeTimes {
        let sum = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
        ComputeTimes {
            compute_ms: self.compute_ms + other.compute_ms,
            variant: self.variant,
            kernel_ms: sum(self.kernel_ms, other.kernel_ms),
            h2d_ms: sum(self.h2d_ms, other.h2d_ms),
            d2h_ms: sum(self.d2h_ms, other.d2h_ms),
        }
    }
}

impl<'g> Engine<'g> {
    /// An engine on `gpu` choosing its variants by `choice`.
    pub fn gpu(gpu: &'g Gpu, choice: Choice) -> Self {
        Engine::Gpu {
            gpu,
            choice,
            plan: None,
        }
    }

    /// The name of what runs: a GPU variant's name, `auto`, or `cpu-par`.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu-par",
            Engine::Gpu {
                choice: Choice::Fixed(v),
                ..
            } => v.name(),
            Engine::Gpu {
                choice: Choice::Auto(_),
                ..
            } => "auto",
        }
    }

    /// Frees the engine's device buffers (a no-op on the CPU).
    pub fn release(&mut self) {
        if let Engine::Gpu { plan, .. } = self {
            *plan = None;
        }
    }

    /// Convolves `image` (in strips when it exceeds the budget); returns the result, the number of
    /// strips and the times. `fault` makes that stage fail (fault injection).
    pub fn convolve(&mut self, image: &Image, s: &Settings, fault: Option<Stage>) -> Result<Convolved> {
        self.convolve_band(image, image.height(), s, fault)
    }

    /// [`convolve`](Self::convolve) for `image`, a band of rows of an image of `height` rows
    /// with the same width and layout: the variant is the one `height` rows get, so each band's
    /// result is that image's.
    pub fn convolve_band(
        &mut self,
        image: &Image,
        height: usize,
        s: &Settings,
        fault: Option<Stage>,
    ) -> Result<Convolved> {
        let start = Instant::now();
        fault::strike(fault, Stage::Compute)?;
        let (r, border) = (s.filter.radius(), s.border);
        let problem = Problem::of(image, &s.filter, border, s.clamp);
        let whole = Problem {
            height,
            ..problem.clone()
        };
        let mut times = ComputeTimes::default();
        let (out, strips) = match self {
            Engine::Cpu => {
                times.variant = "cpu-par";
                let plan = strips::plan(&problem, false, s.max_mem.unwrap_or(usize::MAX))?;
                let out = strips::run(image, r, border, &plan, |strip| {
                    cpu::parallel(strip, &s.filter, border, s.clamp)
                })?;
                (out, plan.len())
            }
            Engine::Gpu { gpu, choice, plan } => {
                let variant = choice.variant(gpu, &whole)?;
                times.variant = variant.name();
                let strips = strips::plan(&problem, variant.spec().has_intermediate(), budget(gpu, s)?)?;
                let plan = ready_plan(gpu, plan, variant, s)?;
                let mut copy = CopyTimes::default();
                let out = strips::run(image, r, border, &strips, |strip| {
                    gpu_strip(plan, strip, fault, &mut copy)
                })?;
                copy.report(&mut times);
                (out, strips.len())
            }
        };
        times.compute_ms = start.elapsed().as_secs_f64() * 1e3;
        trace::host("convolve", start);
        Ok((out, strips, times))
    }

    /// Convolves `image` on every engine of `engines` (one per GPU) at once: its strips (at
    /// least one per GPU, more where the memory budget of the smallest asks for them) are dealt
    /// to the GPUs, strip `i` to GPU `i mod n`, each GPU on its own thread with its own context,
    /// buffers and stream, reading its rows of the image in place and writing its rows of the
    /// one output ([`spread::run`]). The variant is chosen once, by the first
    /// engine, for the whole image, and runs on every strip, so the result is the one GPU's bit
    /// for bit. `kernel_ms`, `h2d_ms` and `d2h_ms` are the busiest GPU's. With one engine (or
    /// the CPU), [`Engine::convolve`].
    pub fn convolve_spread(
        engines: &mut [Engine<'_>],
        image: &Image,
        s: &Settings,
        fault: Option<Stage>,
    ) -> Result<Convolved> {
        Self::convolve_spread_band(engines, image, image.height(), s, fault)
    }

    /// [`convolve_spread`](Self::convolve_spread) for `image`, a band of rows of an image of
    /// `height` rows: the variant is the one that image gets ([`convolve_band`](Self::convolve_band)).
    pub fn convolve_spread_band(
        engines: &mut [Engine<'_>],
        image: &Image,
        height: usize,
        s: &Settings,
        fault: Option<Stage>,
    ) -> Result<Convolved> {
        let gpus: Vec<&Gpu> = engines
            .iter()
            .filter_map(|e| match e {
                Engine::Gpu { gpu, .. } => Some(*gpu),
                Engine::Cpu => None,
            })
            .collect();
        if engines.len() < 2 || gpus.len() != engines.len() {
            return engines[0].convolve_band(image, height, s, fault);
        }
        let start = Instant::now();
        fault::strike(fault, Stage::Compute)?;
        let (r, border) = (s.filter.radius(), s.border);
        let problem = Problem::of(image, &s.filter, border, s.clamp);
        gpus[0].make_current()?;
        let whole = Problem {
            height,
            ..problem.clone()
        };
        let variant = match &mut engines[0] {
            Engine::Gpu { gpu, choice, .. } => choice.variant(gpu, &whole)?,
            Engine::Cpu => unreachable!("only GPU engines are spread"),
        };
        let mut smallest = usize::MAX;
        for gpu in &gpus {
            gpu.make_current()?;
            smallest = smallest.min(budget(gpu, s)?);
        }
        let n = gpus.len();
        let (_, oh) = problem.output_size()?;
        let planned = strips::plan(&problem, variant.spec().has_intermediate(), smallest)?.len();
        let plan = strips::split(oh, planned.div_ceil(n) * n, r, border);
        let mut workers: Vec<(&mut Engine<'_>, CopyTimes)> =
            engines.iter_mut().map(|e| (e, CopyTimes::default())).collect();
        let out = spread::run(image, r, border, &plan, &mut workers, |(engine, copy), band| {
            let Engine::Gpu { gpu, plan, .. } = &mut **engine else {
                unreachable!("only GPU engines are spread")
            };
            let started = Instant::now();
            let plan = ready_plan(gpu, plan, variant, s)?;
            strike_gpu_stages(fault)?;
            band.run(image, plan)?;
            copy.add(plan);
            trace::host("strip", started);
            Ok(())
        })?;
        let busiest = workers
            .iter()
            .map(|(_, c)| *c)
            .fold(CopyTimes::default(), CopyTimes::max);
        gpus[0].make_current()?;
        let mut times = ComputeTimes {
            variant: variant.name(),
            ..ComputeTimes::default()
        };
        busiest.report(&mut times);
        times.compute_ms = start.elapsed().as_secs_f64() * 1e3;
        trace::host("convolve (spread)", start);
        Ok((out, plan.len(), times))
    }
}

/// Device memory one convolution may use on `gpu`: `--max-gpu-mem`, else 90% of what is free.
fn budget(gpu: &Gpu, s: &Settings) -> Result<usize> {
    match s.max_mem {
        Some(b) => Ok(b),
        None => strips::budget(gpu),
    }
}

/// GPU times of the strips one GPU convolved, in ms.
#[derive(Clone, Copy, Debug, Default)]
struct CopyTimes {
    kernel: f64,
    h2d: f64,
    d2h: f64,
}

impl CopyTimes {
    /// Each time the larger of the two.
    fn max(self, o: CopyTimes) -> CopyTimes {
        CopyTimes {
            kernel: self.kernel.max(o.kernel),
            h2d: self.h2d.max(o.h2d),
            d2h: self.d2h.max(o.d2h),
        }
    }

    /// Adds the stage times of `plan`'s last (timed) run (and traces them, where tracing).
    fn add(&mut self, plan: &Filter2D) {
        trace::gpu(plan);
        let t = plan.stage_times().unwrap_or_default();
        self.h2d += t.upload_ms;
        self.kernel += t.kernel_ms;
        self.d2h += t.download_ms;
    }

    fn report(self, times: &mut ComputeTimes) {
        times.kernel_ms = Some(self.kernel);
        times.h2d_ms = Some(self.h2d);
        times.d2h_ms = Some(self.d2h);
    }
}

/// The engine's plan for `s`'s filter, border and clamping, running `variant`: kept when it has
/// them, else built.
fn ready_plan<'p>(
    gpu: &Gpu,
    plan: &'p mut Option<Box<Filter2D>>,
    variant: Variant,
    s: &Settings,
) -> Result<&'p mut Filter2D> {
    let fits = |p: &Filter2D| p.filter() == &s.filter && p.border() == s.border && p.clamps() == s.clamp;
    if !plan.as_deref().is_some_and(fits) {
        // Free the old buffers before the new plan allocates its own.
        *plan = None;
        let built = Filter2D::new(gpu, &s.filter, s.border)?
            .with_clamp(s.clamp)
            .timed(true);
        *plan = Some(Box::new(built));
    }
    let plan = plan.as_deref_mut().expect("built above");
    plan.set_variant(variant)?;
    Ok(plan)
}

/// Fails as the upload, launch or download would when `fault` names that stage.
fn strike_gpu_stages(fault: Option<Stage>) -> Result<()> {
    fault::strike(fault, Stage::Upload)?;
    fault::strike(fault, Stage::Launch)?;
    fault::strike(fault, Stage::Download)
}

/// One strip image through `plan` (which keeps its buffers while strips keep their shape) into
/// samples given back by an earlier result's user where there are ([`recycle`]); its upload,
/// kernel and download times are added to `copy`.
fn gpu_strip(
    plan: &mut Filter2D,
    strip: &Image,
    fault: Option<Stage>,
    copy: &mut CopyTimes,
) -> Result<Image> {
    strike_gpu_stages(fault)?;
    let (ow, oh) = plan.output_size(strip.width(), strip.height())?;
    let ch = strip.channels();
    let mut result = Image::new(ow, oh, ch, recycle::take(strip.dtype(), ow * oh * ch))?;
    plan.run_image_into(strip, &mut result)?;
    copy.add(plan);
    Ok(result)
}
