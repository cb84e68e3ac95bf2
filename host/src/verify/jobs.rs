//! The two things the CLI does: the main job (run and time every variant, one table) and the
//! verification ladder (every variant against the reference over many sizes, borders, channel
//! counts, sample types and filters; in [`super::ladder`], re-exported here).

use crate::verify::check::{self, Comparison};
use ferroconv::engine::cpu::{self, Reference};
use ferroconv::engine::gpu::variant::InputKind;
use ferroconv::engine::gpu::{DeviceJob, Gpu, Kernel, Problem, Variant};
use ferroconv::model::image::Samples;
use ferroconv::named::{self, Named};
use ferroconv::plan::{DeviceImage, Filter2D};
use ferroconv::stats::{self, Timing};
use ferroconv::{Border, DType, Error, Filter, Image, Result};
use std::time::Instant;

/// Untimed runs of every row before timing starts: GPU kernel launches (module JIT, caches and
/// clocks settle) and whole CPU calls (the thread pool wakes, the allocator keeps its pages, the
/// caches fill), so that no row's times include a cold start.
pub use ferroconv::stats::WARMUP_RUNS;

pub use super::ladder::{Case, Progress, RECTANGLES, VerifyPlan, squares, verify, verify_with_progress};

/// Whether runs include the separable variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeparableMode {
    /// Include it, and fail if the filter is not rank-1.
    On,
    /// Leave it out.
    Off,
    /// Include it when the filter is rank-1.
    Auto,
}

impl Named for SeparableMode {
    const WHAT: &'static str = "separable mode";
    const VALUES: &'static [Self] = &[SeparableMode::On, SeparableMode::Off, SeparableMode::Auto];

    fn name(self) -> &'static str {
        match self {
            SeparableMode::On => "on",
            SeparableMode::Off => "off",
            SeparableMode::Auto => "auto",
        }
    }
}

impl std::str::FromStr for SeparableMode {
    type Err = named::UnknownName;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        named::parse(s)
    }
}

/// The GPU variants to run for `filter`: `requested` without `separable` unless `mode` and the
/// filter allow it.
pub fn gpu_variants(requested: &[Variant], filter: &Filter, mode: SeparableMode) -> Result<Vec<Variant>> {
    let rank1 = filter.rank1().is_some();
    if mode == SeparableMode::On && !rank1 {
        return Err(Error::Filter(
            "--separable on needs a rank-1 filter (box, gaussian, sobel, identity, or a file with one)"
                .into(),
        ));
    }
    let keep_separable = rank1 && mode != SeparableMode::Off;
    Ok(requested
        .iter()
        .copied()
        .filter(|&v| !v.needs_rank1() || keep_separable)
        .filter(|&v| !v.spec().lines_only || filter.is_line())
        .collect())
}

/// The poison fills a checked GPU run uses, each in its own run: NaN for float outputs; for
/// integer outputs, all-zero and all-one bytes, since any single integer value could happen to
/// be the right answer, but no pixel can equal both.
pub(crate) fn poisons(dtype: DType) -> &'static [Option<u8>] {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => &[None],
        DType::U8 | DType::U16 => &[Some(0x00), Some(0xFF)],
    }
}

/// Runs `kernel` once per poison fill on an uploaded job and compares each result; returns the
/// worst comparison.
pub(crate) fn checked_runs(
    gpu: &Gpu,
    kernel: &Kernel,
    dev: &mut DeviceJob,
    dtype: DType,
    expected: &Reference,
    tol: f64,
    clamp: bool,
) -> Result<Comparison> {
    let mut worst: Option<Comparison> = None;
    for &poison in poisons(dtype) {
        gpu.poison(dev, poison)?;
        gpu.time(|g| g.launch(kernel, dev))?;
        let (out, _) = gpu.download(dev)?;
        let c = check::compare(&out, expected, tol, clamp);
        keep_worst(&mut worst, c);
    }
    Ok(worst.expect("every dtype has a poison"))
}

/// Keeps in `worst` the worse of it and `c`: more failures, then the larger error.
fn keep_worst(worst: &mut Option<Comparison>, c: Comparison) {
    if worst
        .as_ref()
        .is_none_or(|w| (c.failures, c.max_error) > (w.failures, w.max_error))
    {
        *worst = Some(c);
    }
}

/// The tolerance of `variant` for this image and filter.
pub(crate) fn tolerance_for(variant: Option<Variant>, image: &Image, filter: &Filter) -> f64 {
    // The CPU rows (no variant) take the two-pass path for rank-1 filters too.
    let sep = match variant {
        Some(v) if v.needs_rank1() => filter.rank1(),
        Some(_) => None,
        None => cpu::separable_form(filter),
    };
    check::tolerance(image, filter, sep.as_ref())
}

/// One row of the main job's table.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: &'static str,
    /// Compute time: the kernel(s) alone for GPU rows (CUDA events), the whole call for CPU rows.
    pub compute: Timing,
    /// Untimed runs before the timed ones ([`WARMUP_RUNS`]).
    pub warmups: usize,
    /// Host-to-device copy of the image in a warm plan's host call (GPU rows; CUDA events).
    pub h2d_ms: Option<f64>,
    /// Device-to-host copy of the result in a warm plan's host call (GPU rows; CUDA events).
    pub d2h_ms: Option<f64>,
    /// What a new plan's first host call costs over a warm one: its kernels, device buffers,
    /// page-locked staging and the filter's upload (GPU rows; host clock).
    pub alloc_ms: Option<f64>,
    /// One whole call on the host clock: for GPU rows a warm plan's call on host memory (copies
    /// in, kernel, copies out); for CPU rows the median compute time.
    pub end_to_end_ms: f64,
    /// Global-memory loads per output pixel, counted by hand (GPU rows).
    pub loads_per_pixel: Option<f64>,
    pub check: Comparison,
}

/// Everything the main job measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub problem: Problem,
    pub rows: Vec<Row>,
}

impl Report {
    /// Floating-point operations of one convolution: a multiply and an add per tap and filtered
    /// output sample (alpha is copied). Separable passes do fewer: their GFLOP/s is "effective".
    pub fn flops(&self) -> f64 {
        let p = &self.problem;
        let (ow, oh) = p.output_size().unwrap_or((0, 0));
        let filtered = if p.channels == 4 { 3 } else { p.channels };
        2.0 * p.filter.tap_count() as f64 * (ow * oh * filtered) as f64
    }

    /// The median time of the row named `name`.
    pub fn median_of(&self, name: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.compute.median)
    }
}

/// Settings of the main job.
#[derive(Clone, Debug)]
pub struct MainJob {
    pub image: Image,
    pub filter: Filter,
    pub border: Border,
    pub clamp: bool,
    /// GPU variants to run, in order.
    pub variants: Vec<Variant>,
    /// Timed kernel launches per GPU variant.
    pub runs: usize,
    /// Timed runs per CPU variant (they are slow at large sizes), after [`WARMUP_RUNS`] untimed.
    pub cpu_runs: usize,
}

/// Whether `cpu-naive` runs `filter`: its textbook loops take every tap of the square a sample,
/// which past 31 × 31 (rank-1 filters, which the other paths run in two passes) is minutes, not
/// a baseline.
pub(crate) fn naive_runs(filter: &Filter) -> bool {
    filter.size() <= gpu_kernels::launch::MAX_FILTER_SIZE as usize
}

/// Runs every CPU variant and, when `gpu` is given, every requested GPU variant; checks each
/// against the `f64` reference.
pub fn main_job(job: &MainJob, gpu: Option<&Gpu>) -> Result<Report> {
    let (image, filter, border) = (&job.image, &job.filter, job.border);
    let problem = Problem::of(image, filter, border, job.clamp);
    let expected = cpu::reference_parallel(image, filter, border)?;
    let mut rows = Vec::new();
    type CpuVariant = fn(&Image, &Filter, Border, bool) -> Result<Image>;
    // `None`: the CPU plan below.
    let cpu_variants: [(&'static str, Option<CpuVariant>); 3] = [
        ("cpu-naive", Some(cpu::naive_sequential)),
        ("cpu-seq", Some(cpu::sequential)),
        ("cpu-par", None),
    ];
    if job.cpu_runs == 0 {
        return Err(Error::InvalidRequest(
            "the CPU rows need at least one timed run (--cpu-runs)".into(),
        ));
    }
    // cpu-par runs as a CPU plan into one output kept from run to run, as a library user runs
    // it; the two textbook rows allocate their result each run.
    let mut plan = Filter2D::cpu(filter, border).with_clamp(job.clamp);
    let (ow, oh) = plan.output_size(image.width(), image.height())?;
    let mut kept = poisoned(
        image.dtype(),
        (ow, oh, image.channels()),
        poisons(image.dtype())[0],
    )?;
    for (name, run) in cpu_variants {
        if name == "cpu-naive" && !naive_runs(filter) {
            continue;
        }
        let mut out = None;
        let compute = stats::warm_then_repeat(WARMUP_RUNS, job.cpu_runs, || -> Result<f64> {
            let t = Instant::now();
            match run {
                Some(run) => out = Some(run(image, filter, border, job.clamp)?),
                None => plan.run_image_into(image, &mut kept)?,
            }
            Ok(t.elapsed().as_secs_f64() * 1e3)
        })?
        .expect("at least one run");
        let out = out.as_ref().unwrap_or(&kept);
        rows.push(Row {
            name,
            compute,
            warmups: WARMUP_RUNS,
            h2d_ms: None,
            d2h_ms: None,
            alloc_ms: None,
            end_to_end_ms: compute.median,
            loads_per_pixel: None,
            check: check::compare(out, &expected, tolerance_for(None, image, filter), job.clamp),
        });
    }
    if let Some(gpu) = gpu {
        for &variant in &job.variants {
            rows.push(gpu_row(gpu, variant, job, &problem, &expected)?);
        }
    }
    Ok(Report { problem, rows })
}

/// A GPU variant's row, through a [`Filter2D`] plan as a library user runs it: one whole call of
/// a new plan on host memory (allocation, copies in, kernel, copies out), then every poison fill
/// checked on device images, then the kernel timed on them.
fn gpu_row(
    gpu: &Gpu,
    variant: Variant,
    job: &MainJob,
    problem: &Problem,
    expected: &Reference,
) -> Result<Row> {
    if variant.spec().input == InputKind::Texture {
        return texture_row(gpu, variant, job, problem, expected);
    }
    let image = &job.image;
    let (w, h, c, dtype) = (image.width(), image.height(), image.channels(), image.dtype());
    let tol = tolerance_for(Some(variant), image, &job.filter);
    let mut plan = Filter2D::new(gpu, &job.filter, job.border)?
        .with_clamp(job.clamp)
        .with_variant(variant)?
        .timed(true);
    let (ow, oh) = plan.output_size(w, h)?;

    // The first call prepares the plan (kernels, device buffers, page-locked staging); the
    // second is what each call of a warm plan costs.
    let mut out = poisoned(dtype, (ow, oh, c), poisons(dtype)[0])?;
    let first = Instant::now();
    plan.run_image_into(image, &mut out)?;
    let first_ms = first.elapsed().as_secs_f64() * 1e3;
    let warm = Instant::now();
    plan.run_image_into(image, &mut out)?;
    let end_to_end_ms = warm.elapsed().as_secs_f64() * 1e3;
    let alloc_ms = first_ms - end_to_end_ms;
    let stages = plan.stage_times().unwrap_or_default();
    let mut check = check::compare(&out, expected, tol, job.clamp);

    let (src, mut dst) = device_images(gpu, image, (ow, oh))?;
    let mut kernel_ms = f64::NAN;
    if check.passed() {
        (check, kernel_ms) = plan_checked_runs(gpu, &mut plan, &src, &mut dst, expected, tol, job.clamp)?;
    }
    let compute = stats::warm_then_repeat(WARMUP_RUNS, job.runs, || {
        gpu.time(|g| plan.run_device(&src, &mut dst, g.stream()))
    })?
    .unwrap_or(Timing {
        median: kernel_ms,
        min: kernel_ms,
        runs: 1,
    });
    Ok(Row {
        name: variant.name(),
        compute,
        warmups: WARMUP_RUNS,
        h2d_ms: Some(stages.upload_ms),
        d2h_ms: Some(stages.download_ms),
        alloc_ms: Some(alloc_ms),
        end_to_end_ms,
        loads_per_pixel: Some(variant.global_loads_per_pixel(job.filter.radius())),
        check,
    })
}

/// `image` on the device, and a device image for its `ow × oh` result.
pub(crate) fn device_images(
    gpu: &Gpu,
    image: &Image,
    (ow, oh): (usize, usize),
) -> Result<(DeviceImage, DeviceImage)> {
    let (c, dtype) = (image.channels(), image.dtype());
    let mut src = DeviceImage::new(gpu, image.width(), image.height(), c, dtype)?;
    src.copy_from_image(image)?;
    Ok((src, DeviceImage::new(gpu, ow, oh, c, dtype)?))
}

/// Runs `plan` from `src` into `dst` once per poison fill of `dst` (integer outputs: a pixel
/// could match one fill by chance) and compares each result; returns the worst comparison and
/// the GPU time of the last run.
pub(crate) fn plan_checked_runs(
    gpu: &Gpu,
    plan: &mut Filter2D,
    src: &DeviceImage,
    dst: &mut DeviceImage,
    expected: &Reference,
    tol: f64,
    clamp: bool,
) -> Result<(Comparison, f64)> {
    let r = dst.raw();
    let mut worst: Option<Comparison> = None;
    let mut ms = f64::NAN;
    for &poison in poisons(r.dtype) {
        let mut result = poisoned(r.dtype, (r.width, r.height, r.channels), poison)?;
        dst.copy_from_image(&result)?;
        ms = gpu.time(|g| plan.run_device(src, dst, g.stream()))?;
        dst.copy_to_image(&mut result)?;
        let c = check::compare(&result, expected, tol, clamp);
        keep_worst(&mut worst, c);
    }
    Ok((worst.expect("every dtype has a poison"), ms))
}

/// An image of `dtype` filled with `poison` (NaN for `None`).
fn poisoned(dtype: DType, (w, h, c): (usize, usize, usize), poison: Option<u8>) -> Result<Image> {
    let mut samples = Samples::filled(dtype, w * h * c);
    match (poison, &mut samples) {
        (Some(b), s) => s.as_bytes_mut().fill(b),
        (None, Samples::F32(v)) => v.fill(f32::NAN),
        (None, _) => {}
    }
    Image::new(w, h, c, samples)
}

/// The `texture` variant's row: it reads a texture of its own, which no plan has, so it runs on
/// a [`DeviceJob`] (allocation, upload into the texture, kernel, download).
fn texture_row(
    gpu: &Gpu,
    variant: Variant,
    job: &MainJob,
    problem: &Problem,
    expected: &Reference,
) -> Result<Row> {
    let image = &job.image;
    let kernel = gpu.kernel(variant, image.dtype())?;
    let tol = tolerance_for(Some(variant), image, &job.filter);

    let pass = Instant::now();
    let mut dev = gpu.alloc(variant, problem)?;
    gpu.sync()?;
    let alloc_ms = pass.elapsed().as_secs_f64() * 1e3;
    gpu.poison(&mut dev, poisons(image.dtype())[0])?;
    let h2d_ms = gpu.upload(&mut dev, image)?;
    let first_ms = gpu.time(|g| g.launch(&kernel, &mut dev))?;
    let (out, d2h_ms) = gpu.download(&mut dev)?;
    let end_to_end_ms = pass.elapsed().as_secs_f64() * 1e3;
    let mut check = check::compare(&out, expected, tol, job.clamp);
    if check.passed() {
        // The other poison fills (integer outputs) catch pixels that happened to match the first.
        check = checked_runs(gpu, &kernel, &mut dev, image.dtype(), expected, tol, job.clamp)?;
    }

    let compute = stats::warm_then_repeat(WARMUP_RUNS, job.runs, || {
        gpu.time(|g| g.launch(&kernel, &mut dev))
    })?
    .unwrap_or(Timing {
        median: first_ms,
        min: first_ms,
        runs: 1,
    });
    Ok(Row {
        name: variant.name(),
        compute,
        warmups: WARMUP_RUNS,
        h2d_ms: Some(h2d_ms),
        d2h_ms: Some(d2h_ms),
        alloc_ms: Some(alloc_ms),
        end_to_end_ms,
        loads_per_pixel: Some(variant.global_loads_per_pixel(job.filter.radius())),
        check,
    })
}
