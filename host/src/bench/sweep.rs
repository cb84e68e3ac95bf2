//! The benchmark: measures the machine's copy bandwidth and FP32 peak, then times variants over a
//! sweep of sizes, filter sizes and sample types against that roofline. The column headers, cells,
//! CSV and Markdown that write its rows out live in the sibling module `tables`, re-exported here.

use ferroconv::engine::gpu::pipeline::{Pipeline, Timings};
use ferroconv::engine::gpu::{DeviceJob, Gpu, GpuInfo, Problem, Variant};
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image, Result, model::filter::FilterKind, stats};

pub use super::tables::{
    E2E_HEADERS, HEADERS, cells, cpu_csv, csv, e2e_cells, e2e_csv, machine_lines, markdown, shape_name,
};

/// Bytes of the device-to-device copy that measures memory bandwidth (1 GiB: far beyond L2).
const COPY_PROBE_BYTES: usize = 1 << 30;

/// What to sweep.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub sizes: Vec<(usize, usize)>,
    /// Filter shapes `(rows, cols)`.
    pub filters: Vec<(usize, usize)>,
    pub dtypes: Vec<DType>,
    /// Channel counts of the images (1 gray, 3 RGB, 4 RGBA with its alpha copied).
    pub channels: Vec<usize>,
    pub variants: Vec<Variant>,
    /// Timed runs per configuration (after [`stats::WARMUP_RUNS`] warm-ups).
    pub runs: usize,
    /// How each kernel time is taken.
    pub timing: TimingMethod,
    /// The end-to-end part: filter size, strips and streams of the pipelined whole-image runs
    /// (`blocked-4x4`, every size and sample type).
    pub e2e_filter: usize,
    pub strips: usize,
    pub streams: usize,
}

pub use ferroconv::stats::TimingMethod;

/// The machine the numbers were taken on, and its two ceilings.
#[derive(Clone, Debug)]
pub struct Machine {
    pub gpu: GpuInfo,
    /// Device-to-device copy bandwidth, bytes read + written, GB/s.
    pub copy_gbps: f64,
    /// FP32 fused multiply-add rate, GFLOP/s.
    pub fma_gflops: f64,
    /// The PTX target the kernels were built for.
    pub ptx_target: String,
    /// The git revision the binary was built from.
    pub git_rev: &'static str,
}

/// One timed configuration.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub width: usize,
    pub height: usize,
    pub dtype: DType,
    pub channels: usize,
    /// The filter's `(rows, cols)`.
    pub filter: (usize, usize),
    pub variant: Variant,
    /// `warm`: the same buffers every run (they may sit in L2); `cold`: runs rotate through
    /// enough buffers to exceed the L2 cache several times.
    pub cache: &'static str,
    pub timing: stats::Timing,
    pub gbps: f64,
    pub gflops: f64,
    /// The memory floor: bytes in + out / copy bandwidth.
    pub memory_ms: f64,
    /// The FP32 roofline: the flops the variant does / FMA peak.
    pub fp32_ms: f64,
}

impl BenchRow {
    /// The larger of the memory floor and the FP32 roofline.
    pub fn roofline_ms(&self) -> f64 {
        self.memory_ms.max(self.fp32_ms)
    }

    /// Which of the two limits is the larger.
    pub fn bound(&self) -> &'static str {
        if self.memory_ms >= self.fp32_ms {
            "memory"
        } else {
            "compute"
        }
    }

    /// Percentage of the roofline reached (100 = at the hardware limit).
    pub fn percent_of_roofline(&self) -> f64 {
        100.0 * self.roofline_ms() / self.timing.median
    }

    /// Percentage of the memory floor reached (100 = as fast as copying the bytes).
    pub fn percent_of_memory_floor(&self) -> f64 {
        100.0 * self.memory_ms / self.timing.median
    }

    /// The FP32 roofline over the time: above 1 is faster than FP32 FMAs could compute it
    /// (possible only on the tensor cores).
    pub fn times_fp32_roofline(&self) -> f64 {
        self.fp32_ms / self.timing.median
    }
}

/// Measures the machine's ceilings, then every configuration of `config` (separable only with a
/// rank-1 filter, which it gets: a Gaussian; other variants get a general random filter; a
/// variant is skipped for sample types and sizes it has no kernels for).
/// `progress` sees each row as it is measured.
pub fn run(
    gpu: &Gpu,
    config: &BenchConfig,
    mut progress: impl FnMut(&BenchRow),
) -> Result<(Machine, Vec<BenchRow>)> {
    let machine = Machine {
        gpu: gpu.info().clone(),
        copy_gbps: gpu.copy_bandwidth(COPY_PROBE_BYTES, 10)?,
        fma_gflops: gpu.fma_peak(10)?,
        ptx_target: ferroconv::engine::gpu::ptx_directive(".target").to_string(),
        git_rev: ferroconv::GIT_REV,
    };
    let mut rows = Vec::new();
    for &(width, height) in &config.sizes {
        for (&dtype, &channels) in config
            .dtypes
            .iter()
            .flat_map(|d| config.channels.iter().map(move |c| (d, c)))
        {
            let image = Image::random(width, height, channels, dtype, 1)?;
            for &shape in &config.filters {
                for &variant in &config.variants {
                    let filter = if variant.needs_rank1() {
                        Filter::builtin_rect(FilterKind::Gaussian, shape, None)?
                    } else {
                        Filter::random_normalized(shape, (shape.0 * 32 + shape.1) as u64)?
                    };
                    // A variant without kernels for this sample type or size has no row.
                    if !variant.supports(dtype, filter.radius()) {
                        continue;
                    }
                    let problem = Problem::of(&image, &filter, Border::Zero, false);
                    let job_bytes = problem.min_bytes()?;
                    let mut caches = vec![("warm", 1)];
                    if job_bytes <= 2.0 * f64::from(machine.gpu.l2_bytes) {
                        caches.push((
                            "cold",
                            (4.0 * f64::from(machine.gpu.l2_bytes) / job_bytes).ceil() as usize,
                        ));
                    }
                    for (cache, copies) in caches {
                        let timing =
                            time_variant(gpu, variant, &problem, &image, copies, config.runs, config.timing)?;
                        let row = roofline_row(&machine, &problem, variant, cache, timing)?;
                        progress(&row);
                        rows.push(row);
                    }
                }
            }
        }
    }
    Ok((machine, rows))
}

/// One pipelined whole-image configuration (see [`ferroconv::engine::gpu::pipeline`]).
#[derive(Clone, Debug)]
pub struct E2eRow {
    pub width: usize,
    pub height: usize,
    pub dtype: DType,
    pub filter_size: usize,
    pub strips: usize,
    pub streams: usize,
    pub timings: Timings,
}

/// Times the pipelined whole-image convolution (pinned memory, `config.strips` strips over
/// `config.streams` streams, variant `blocked-4x4`) for every size and sample type, after checking that
/// its result equals the single-launch result byte for byte.
pub fn end_to_end(gpu: &Gpu, config: &BenchConfig, mut progress: impl FnMut(&E2eRow)) -> Result<Vec<E2eRow>> {
    let filter = Filter::random_normalized(config.e2e_filter, 5)?;
    let mut rows = Vec::new();
    for &(width, height) in &config.sizes {
        for &dtype in &config.dtypes {
            let image = Image::random(width, height, 1, dtype, 2)?;
            let problem = Problem::of(&image, &filter, Border::Zero, false);
            let kernel = gpu.kernel(Variant::Blocked4x4, dtype)?;
            let mut pipeline =
                Pipeline::new(gpu, &problem, Variant::Blocked4x4, config.strips, config.streams)?;
            pipeline.load(&image)?;
            let timings = pipeline.time(gpu, &kernel, config.runs.max(1))?;
            let mut job = gpu.alloc(Variant::Blocked4x4, &problem)?;
            gpu.upload(&mut job, &image)?;
            gpu.launch(&kernel, &mut job)?;
            let (whole, _) = gpu.download(&mut job)?;
            if pipeline.output()?.samples().as_bytes() != whole.samples().as_bytes() {
                return Err(ferroconv::Error::WrongResult(format!(
                    "the pipelined result differs from the single launch at {width}x{height} {}",
                    dtype.suffix()
                )));
            }
            let row = E2eRow {
                width,
                height,
                dtype,
                filter_size: config.e2e_filter,
                strips: pipeline.strips(),
                streams: config.streams,
                timings,
            };
            progress(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The multi-threaded CPU path's time for one configuration (the speed-up baseline).
#[derive(Clone, Debug)]
pub struct CpuRow {
    pub width: usize,
    pub height: usize,
    /// The filter's `(rows, cols)`.
    pub filter: (usize, usize),
    /// `cpu-par`, whole call (host clock), median of 3 runs after a warm-up.
    pub ms: f64,
}

/// Largest image (in pixels) the CPU is timed on: beyond it the CPU runs take too long.
const CPU_MAX_PIXELS: usize = 2048 * 2048;

/// Times `cpu-par` on f32 gray images for every size up to 2048 x 2048 and every filter size, the
/// same random filter as the GPU rows.
pub fn cpu_times(config: &BenchConfig) -> Result<Vec<CpuRow>> {
    let mut rows = Vec::new();
    for &(width, height) in config.sizes.iter().filter(|(w, h)| w * h <= CPU_MAX_PIXELS) {
        let image = Image::random(width, height, 1, DType::F32, 1)?;
        for &shape in &config.filters {
            let filter = Filter::random_normalized(shape, (shape.0 * 32 + shape.1) as u64)?;
            let timing = stats::warm_then_repeat(1, 3, || {
                let t = std::time::Instant::now();
                ferroconv::engine::cpu::parallel(&image, &filter, Border::Zero, false)?;
                Ok(t.elapsed().as_secs_f64() * 1e3)
            })?;
            let ms = timing.map_or(f64::NAN, |t| t.median);
            rows.push(CpuRow {
                width,
                height,
                filter: shape,
                ms,
            });
        }
    }
    Ok(rows)
}

/// Times `variant` on `copies` jobs used in turn (1: warm), after checking on the first that every
/// output sample is written (f32 outputs are poisoned with NaN first).
fn time_variant(
    gpu: &Gpu,
    variant: Variant,
    problem: &Problem,
    image: &Image,
    copies: usize,
    runs: usize,
    method: TimingMethod,
) -> Result<stats::Timing> {
    let kernel = gpu.kernel(variant, problem.dtype)?;
    let mut jobs: Vec<DeviceJob> = (0..copies)
        .map(|_| gpu.alloc(variant, problem))
        .collect::<Result<_>>()?;
    for job in &mut jobs {
        gpu.upload(job, image)?;
    }
    gpu.poison(&mut jobs[0], None)?;
    gpu.launch(&kernel, &mut jobs[0])?;
    let (out, _) = gpu.download(&mut jobs[0])?;
    if let Samples::F32(v) = out.samples()
        && let Some(i) = v.iter().position(|x| !x.is_finite())
    {
        return Err(ferroconv::Error::WrongResult(format!(
            "{} left output sample {i} unwritten",
            variant.name()
        )));
    }
    // The warm-ups: back-to-back timing queues its runs itself, so they are plain launches here.
    for r in 0..stats::WARMUP_RUNS {
        gpu.launch(&kernel, &mut jobs[r % copies])?;
    }
    gpu.sync()?;
    let runs = runs.max(1);
    let timing = match method {
        TimingMethod::BackToBack => {
            stats::Timing::of(&gpu.time_back_to_back(runs, |g, r| g.launch(&kernel, &mut jobs[r % copies]))?)
        }
        TimingMethod::HostLaunched => {
            let mut next = 0;
            stats::repeat(runs, || {
                let job = &mut jobs[next % copies];
                next += 1;
                gpu.time(|g| g.launch(&kernel, job))
            })?
        }
    };
    Ok(timing.expect("at least one run"))
}

fn roofline_row(
    machine: &Machine,
    problem: &Problem,
    variant: Variant,
    cache: &'static str,
    timing: stats::Timing,
) -> Result<BenchRow> {
    let bytes = problem.min_bytes()?;
    let (ow, oh) = problem.output_size()?;
    let (rows, cols) = problem.filter.shape();
    let samples = (ow * oh * problem.channels) as f64;
    // GFLOP/s is reported as 2 per tap (kh·kw) and sample for every variant (effective for
    // separable); its roofline uses the work the filter needs: 2kw + 2kh for the two passes, and
    // for the others the rectangle's own taps (a rectangle run in its square does more).
    let flops = 2.0 * (rows * cols) as f64 * samples;
    let work = if variant.needs_rank1() {
        2.0 * (rows + cols) as f64 * samples
    } else {
        flops
    };
    Ok(BenchRow {
        width: problem.width,
        height: problem.height,
        dtype: problem.dtype,
        channels: problem.channels,
        filter: (rows, cols),
        variant,
        cache,
        timing,
        gbps: bytes / timing.median / 1e6,
        gflops: flops / timing.median / 1e6,
        memory_ms: bytes / machine.copy_gbps / 1e6,
        fp32_ms: work / machine.fma_gflops / 1e6,
    })
}
