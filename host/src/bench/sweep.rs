//! The benchmark: measures the machine's copy bandwidth and FP32 peak, then times variants over a
//! sweep of sizes, filter sizes and sample types against that roofline.

use crate::engine::gpu::pipeline::{Pipeline, Timings};
use crate::engine::gpu::{DeviceJob, Gpu, GpuInfo, Problem, Variant};
use crate::model::image::Samples;
use crate::{Border, DType, Filter, Image, Result, model::filter::FilterKind, stats};
use std::fmt::Write as _;

/// Bytes of the device-to-device copy that measures memory bandwidth (1 GiB: far beyond L2).
const COPY_PROBE_BYTES: usize = 1 << 30;

/// What to sweep.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub sizes: Vec<(usize, usize)>,
    pub filter_sizes: Vec<usize>,
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

pub use crate::stats::TimingMethod;

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
    pub filter_size: usize,
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
        ptx_target: crate::engine::gpu::ptx_directive(".target").to_string(),
        git_rev: env!("CONV_GIT_REV"),
    };
    let mut rows = Vec::new();
    for &(width, height) in &config.sizes {
        for (&dtype, &channels) in config
            .dtypes
            .iter()
            .flat_map(|d| config.channels.iter().map(move |c| (d, c)))
        {
            let image = Image::random(width, height, channels, dtype, 1)?;
            for &k in &config.filter_sizes {
                for &variant in &config.variants {
                    // A variant without kernels for this sample type or size has no row.
                    if !variant.supports(dtype, k / 2) {
                        continue;
                    }
                    let filter = if variant.needs_rank1() {
                        Filter::builtin(FilterKind::Gaussian, k, None)?
                    } else {
                        Filter::random_normalized(k, k as u64)?
                    };
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

/// One pipelined whole-image configuration (see [`crate::engine::gpu::pipeline`]).
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

/// Column headers of the end-to-end table.
pub const E2E_HEADERS: [&str; 10] = [
    "size",
    "dtype",
    "k",
    "strips",
    "streams",
    "copy in ms",
    "copy out ms",
    "both copies ms",
    "end-to-end ms",
    "x slower copy",
];

/// The cells of `row`, in [`E2E_HEADERS`] order.
pub fn e2e_cells(row: &E2eRow) -> Vec<String> {
    let t = &row.timings;
    vec![
        format!("{}x{}", row.width, row.height),
        row.dtype.suffix().to_string(),
        row.filter_size.to_string(),
        row.strips.to_string(),
        row.streams.to_string(),
        format!("{:.3}", t.h2d),
        format!("{:.3}", t.d2h),
        format!("{:.3}", t.duplex),
        format!("{:.3}", t.pipelined),
        format!("{:.3}", t.ratio()),
    ]
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
                return Err(crate::Error::WrongResult(format!(
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
    pub filter_size: usize,
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
        for &k in &config.filter_sizes {
            let filter = Filter::random_normalized(k, k as u64)?;
            let timing = stats::warm_then_repeat(1, 3, || {
                let t = std::time::Instant::now();
                crate::engine::cpu::parallel(&image, &filter, Border::Zero, false)?;
                Ok(t.elapsed().as_secs_f64() * 1e3)
            })?;
            let ms = timing.map_or(f64::NAN, |t| t.median);
            rows.push(CpuRow {
                width,
                height,
                filter_size: k,
                ms,
            });
        }
    }
    Ok(rows)
}

/// The CPU rows as CSV with a header line.
pub fn cpu_csv(rows: &[CpuRow]) -> String {
    let mut s = String::from("size,k,cpu-par ms\n");
    for r in rows {
        let _ = writeln!(s, "{}x{},{},{:.4}", r.width, r.height, r.filter_size, r.ms);
    }
    s
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
        return Err(crate::Error::WrongResult(format!(
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
    let k = problem.filter.size();
    let samples = (ow * oh * problem.channels) as f64;
    // GFLOP/s is reported as 2k² per sample for every variant (effective for separable); its
    // roofline uses the work it really does: 2k per pass, two passes.
    let flops = 2.0 * (k * k) as f64 * samples;
    let work = if variant.needs_rank1() {
        4.0 * k as f64 * samples
    } else {
        flops
    };
    Ok(BenchRow {
        width: problem.width,
        height: problem.height,
        dtype: problem.dtype,
        channels: problem.channels,
        filter_size: k,
        variant,
        cache,
        timing,
        gbps: bytes / timing.median / 1e6,
        gflops: flops / timing.median / 1e6,
        memory_ms: bytes / machine.copy_gbps / 1e6,
        fp32_ms: work / machine.fma_gflops / 1e6,
    })
}

/// The column headers and one row's cells, shared by the CSV, the Markdown and the console table.
pub const HEADERS: [&str; 15] = [
    "size",
    "dtype",
    "channels",
    "k",
    "variant",
    "cache",
    "median ms",
    "min ms",
    "GB/s",
    "GFLOP/s",
    "roofline ms",
    "% roofline",
    "bound",
    "% memory floor",
    "x FP32 roofline",
];

/// The cells of `row`, in [`HEADERS`] order.
pub fn cells(row: &BenchRow) -> Vec<String> {
    vec![
        format!("{}x{}", row.width, row.height),
        row.dtype.suffix().to_string(),
        row.channels.to_string(),
        row.filter_size.to_string(),
        row.variant.name().to_string(),
        row.cache.to_string(),
        format!("{:.4}", row.timing.median),
        format!("{:.4}", row.timing.min),
        format!("{:.0}", row.gbps),
        format!("{:.0}", row.gflops),
        format!("{:.4}", row.roofline_ms()),
        format!("{:.1}", row.percent_of_roofline()),
        row.bound().to_string(),
        format!("{:.1}", row.percent_of_memory_floor()),
        format!("{:.2}", row.times_fp32_roofline()),
    ]
}

/// The machine's facts as `key: value` lines.
pub fn machine_lines(m: &Machine) -> Vec<String> {
    vec![
        format!(
            "GPU: {} (compute capability {}.{}, {} SMs, L2 {} MB)",
            m.gpu.name,
            m.gpu.compute_capability.0,
            m.gpu.compute_capability.1,
            m.gpu.multiprocessors,
            m.gpu.l2_bytes >> 20
        ),
        format!("driver API: {}", m.gpu.driver_api()),
        format!(
            "clocks (peak, as reported): SM {} MHz, memory {} MHz",
            m.gpu.sm_clock_mhz, m.gpu.memory_clock_mhz
        ),
        format!("measured copy bandwidth (read + write): {:.0} GB/s", m.copy_gbps),
        format!("measured FP32 FMA peak: {:.0} GFLOP/s", m.fma_gflops),
        format!("PTX target: {}", m.ptx_target),
        format!("git revision: {}", m.git_rev),
    ]
}

/// The rows as CSV with a header line.
pub fn csv(rows: &[BenchRow]) -> String {
    let mut s = HEADERS.join(",") + "\n";
    for r in rows {
        s += &(cells(r).join(",") + "\n");
    }
    s
}

/// A Markdown report: the machine, the command, the kernel table and the end-to-end table.
pub fn markdown(
    machine: &Machine,
    command: &str,
    method: TimingMethod,
    rows: &[BenchRow],
    e2e: &[E2eRow],
) -> String {
    let mut s = String::from("# Benchmark results\n\n");
    for line in machine_lines(machine) {
        let _ = writeln!(s, "- {line}");
    }
    let _ = writeln!(s, "- command: `{command}`");
    let _ = writeln!(
        s,
        "\nTimes are kernel only ({}), median of the timed runs after 3 warm-ups; zero border, \
         one channel. Roofline = max(memory floor, FP32 roofline): memory floor = bytes in + out / copy \
         bandwidth, FP32 roofline = flops / FMA peak with 2k² flops per pixel (4k for the two \
         separable passes); GFLOP/s counts 2k² per pixel for every variant. `x FP32 roofline` above \
         1 is past what FP32 FMAs can do (the tensor-core variants).\n",
        method.describe()
    );
    let _ = writeln!(s, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(HEADERS.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", cells(r).join(" | "));
    }
    if !e2e.is_empty() {
        let _ = writeln!(
            s,
            "\n## End to end\n\nWhole image from page-locked host memory and back: strips round-robin over \
             streams, each strip's copy in, `blocked-4x4` kernel and copy out queued on its stream (CUDA events, \
             first copy in to last copy out, median). The copies alone are one whole-image copy each way \
             through the same pinned memory, and both at once on two streams. The result is checked byte for byte against a single launch.\n"
        );
        let _ = writeln!(s, "| {} |", E2E_HEADERS.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(E2E_HEADERS.len()));
        for r in e2e {
            let _ = writeln!(s, "| {} |", e2e_cells(r).join(" | "));
        }
    }
    s
}

/// The end-to-end rows as CSV with a header line.
pub fn e2e_csv(rows: &[E2eRow]) -> String {
    let mut s = E2E_HEADERS.join(",") + "\n";
    for r in rows {
        s += &(e2e_cells(r).join(",") + "\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_give_the_memory_floor_and_the_fp32_roofline_each_as_a_fraction_of_the_time() {
        let row = BenchRow {
            width: 8192,
            height: 8192,
            dtype: DType::U8,
            channels: 1,
            filter_size: 9,
            variant: Variant::TensorU8,
            cache: "warm",
            timing: stats::Timing {
                median: 0.125,
                min: 0.12,
                runs: 20,
            },
            gbps: 0.0,
            gflops: 0.0,
            memory_ms: 0.05,
            fp32_ms: 0.2,
        };
        let cells = cells(&row);
        assert_eq!(cells.len(), HEADERS.len());
        let cell = |name: &str| cells[HEADERS.iter().position(|h| *h == name).unwrap()].as_str();
        assert_eq!(cell("roofline ms"), "0.2000");
        assert_eq!(cell("% roofline"), "160.0");
        assert_eq!(cell("bound"), "compute");
        assert_eq!(cell("% memory floor"), "40.0");
        assert_eq!(cell("x FP32 roofline"), "1.60");
    }
}
