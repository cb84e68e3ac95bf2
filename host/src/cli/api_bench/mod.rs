//! `host api-bench`: times the library's plan API (`ferroconv::plan::Filter2D`) against what it
//! must keep up with, each measured in the same run on the same GPU: plain pageable and pinned
//! copies, the same kernel launched directly, the CPU engine into a preallocated output. Prints
//! one table per question, with each row's verdict.

mod batch;
mod cpu;

use super::table;
use anyhow::{Context as _, Result};
use batch::batch;
use cpu::cpu_plan;
use ferroconv::engine::gpu::pipeline::Pipeline;
use ferroconv::plan::{DeviceImage, Filter2D, ImageViewMut, Pixel};
use ferroconv::stats::Timing;
use ferroconv::{Border, Convolver, DType, Filter, Gpu, Image, Problem};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct ApiBenchArgs {
    /// Timed calls per host-memory case (after 3 warm-ups).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Timed calls per device-memory latency measurement (after 20 warm-ups).
    #[arg(long, default_value_t = 1000)]
    device_runs: usize,
    /// Tables to print, comma-separated: host, device, batch, cpu.
    #[arg(long, value_delimiter = ',', default_value = "host,device,batch,cpu")]
    only: Vec<String>,
    /// Also time the old front door (`Convolver::convolve`, a fresh output each call; 3 calls).
    #[arg(long)]
    convolver: bool,
}

/// One image shape and filter size of the goals.
#[derive(Clone, Copy)]
struct Case {
    width: usize,
    height: usize,
    channels: usize,
    dtype: DType,
    k: usize,
}

impl Case {
    const fn new(side: usize, channels: usize, dtype: DType, k: usize) -> Self {
        Case {
            width: side,
            height: side,
            channels,
            dtype,
            k,
        }
    }

    fn name(&self) -> String {
        let layout = match self.channels {
            1 => "gray",
            3 => "RGB",
            _ => "RGBA",
        };
        format!(
            "{}² {layout} {} {k}x{k}",
            self.width,
            self.dtype.suffix(),
            k = self.k
        )
    }

    fn image(&self) -> Result<Image> {
        Ok(Image::random(
            self.width,
            self.height,
            self.channels,
            self.dtype,
            42,
        )?)
    }

    /// A general (not rank-1) random filter.
    fn filter(&self) -> Result<Filter> {
        Ok(Filter::random(self.k, 42)?)
    }

    fn bytes(&self) -> usize {
        self.width * self.height * self.channels * self.dtype.size()
    }
}

const BORDER: Border = Border::Reflect;

/// Median wall-clock milliseconds of `runs` calls of `f` after `warmups`.
fn wall(warmups: usize, runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..warmups {
        f()?;
    }
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Timing::of(&samples).map_or(f64::NAN, |t| t.median))
}

fn ms(v: f64) -> String {
    if v < 0.1 {
        format!("{v:.4}")
    } else {
        format!("{v:.3}")
    }
}

fn verdict(ok: bool) -> String {
    if ok { "yes".into() } else { "NO".into() }
}

pub fn run(args: &ApiBenchArgs) -> Result<()> {
    let started = Instant::now();
    let gpu = Gpu::open(0).context("api-bench needs a GPU")?;
    let open_ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "{} (driver API {}), kernels from {}; Gpu::open took {open_ms:.1} ms; border {}, general random filters",
        gpu.info().name,
        gpu.info().driver_api(),
        gpu.module_kind(),
        BORDER.name()
    );
    let wanted = |t: &str| args.only.iter().any(|o| o == t);
    if wanted("host") {
        host_memory(&gpu, args)?;
    }
    if wanted("device") {
        device_memory(&gpu, args)?;
    }
    if wanted("batch") {
        batch(&gpu, args)?;
    }
    if wanted("cpu") {
        cpu_plan(args)?;
    }
    Ok(())
}

/// Host memory in and out (and the automatic choice's cost).
fn host_memory(gpu: &Gpu, args: &ApiBenchArgs) -> Result<()> {
    println!(
        "\nHost memory in and out: one Filter2D::run per call (pageable Vec in, pageable Vec out), warm plan"
    );
    let cases = [
        Case::new(512, 3, DType::U8, 3),
        Case::new(2048, 1, DType::F32, 5),
        Case::new(2048, 3, DType::U8, 5),
        Case::new(8192, 1, DType::U8, 3),
        Case::new(8192, 1, DType::F32, 17),
    ];
    let mut rows = Vec::new();
    for case in cases {
        let image = case.image()?;
        let filter = case.filter()?;
        let row = match case.dtype {
            DType::U8 => host_case::<u8>(gpu, &case, &image, &filter, args)?,
            DType::U16 => host_case::<u16>(gpu, &case, &image, &filter, args)?,
            DType::F32 => host_case::<f32>(gpu, &case, &image, &filter, args)?,
            DType::F16 => host_case::<half::f16>(gpu, &case, &image, &filter, args)?,
            DType::BF16 => host_case::<half::bf16>(gpu, &case, &image, &filter, args)?,
        };
        rows.push(row);
    }
    table::print(
        &[
            "case",
            "variant",
            "choose ms",
            "plan run",
            "pageable in+out",
            "<= pageable",
            "pinned in+out",
            "plan/pinned",
            "kernel",
            "Convolver",
        ],
        &rows,
    );
    Ok(())
}

fn host_case<T: Pixel>(
    gpu: &Gpu,
    case: &Case,
    image: &Image,
    filter: &Filter,
    args: &ApiBenchArgs,
) -> Result<Vec<String>> {
    let src = image.view::<T>()?;
    let (w, h, c) = (case.width, case.height, case.channels);
    let mut out = vec![T::default(); w * h * c];
    let mut plan = Filter2D::new(gpu, filter, BORDER)?;
    let plan_ms = wall(3, args.runs, || {
        Ok(plan.run(&src, &mut ImageViewMut::new(&mut out, w, h, c)?)?)
    })?;
    let variant = plan.variant().context("the plan chose no variant")?;
    let choose_ms = plan.choose_ms();
    // Plain synchronous copies from and to pageable memory, what a user would write.
    let mut dev = DeviceImage::new(gpu, w, h, c, case.dtype)?;
    let pageable = wall(3, args.runs, || {
        dev.copy_from(&src)?;
        Ok(dev.copy_to(&mut ImageViewMut::new(&mut out, w, h, c)?)?)
    })?;
    drop(dev);
    // Pinned copies and the kernel alone (CUDA events).
    let problem = Problem::of(image, filter, BORDER, false);
    let kernel = gpu.kernel(variant, case.dtype)?;
    let mut job = gpu.alloc(variant, &problem)?;
    gpu.upload(&mut job, image)?;
    let kernel_ms =
        ferroconv::stats::warm_then_repeat(3, args.runs, || gpu.time(|g| g.launch(&kernel, &mut job)))?
            .map_or(f64::NAN, |t| t.median);
    drop(job);
    let mut pipeline = Pipeline::new(gpu, &problem, variant, 1, 1)?;
    pipeline.load(image)?;
    let copies = pipeline.time(gpu, &kernel, args.runs)?;
    drop(pipeline);
    let pinned = copies.h2d + copies.d2h;
    let convolver = if args.convolver {
        let old = Convolver::new()?;
        ms(wall(1, 3, || {
            old.convolve(image, filter, BORDER).map(drop).map_err(Into::into)
        })?)
    } else {
        "-".into()
    };
    let big = case.bytes() >= 64 << 20;
    let ratio = plan_ms / pinned;
    Ok(vec![
        case.name(),
        variant.name().into(),
        format!("{choose_ms:.1}"),
        ms(plan_ms),
        ms(pageable),
        verdict(plan_ms <= pageable),
        ms(pinned),
        format!(
            "{ratio:.2}{}",
            if big {
                if ratio <= 2.0 { " yes" } else { " NO" }
            } else {
                ""
            }
        ),
        ms(kernel_ms),
        convolver,
    ])
}

/// Device memory in and out (and the first run's cost).
fn device_memory(gpu: &Gpu, args: &ApiBenchArgs) -> Result<()> {
    println!(
        "\nDevice memory in and out, on the GPU's stream: a synchronous call (run_device + stream synchronize) against the \
         same kernel launched directly + synchronize (median of {}), and 100 calls queued then one synchronize (median of 20)",
        args.device_runs
    );
    let mut rows = Vec::new();
    for case in [Case::new(2048, 1, DType::F32, 5), Case::new(512, 3, DType::U8, 3)] {
        let image = case.image()?;
        let filter = case.filter()?;
        let (w, h, c) = (case.width, case.height, case.channels);
        let input = match case.dtype {
            DType::U8 => DeviceImage::upload(gpu, &image.view::<u8>()?)?,
            DType::U16 => DeviceImage::upload(gpu, &image.view::<u16>()?)?,
            DType::F32 => DeviceImage::upload(gpu, &image.view::<f32>()?)?,
            DType::F16 => DeviceImage::upload(gpu, &image.view::<half::f16>()?)?,
            DType::BF16 => DeviceImage::upload(gpu, &image.view::<half::bf16>()?)?,
        };
        let mut output = DeviceImage::new(gpu, w, h, c, case.dtype)?;
        let stream = gpu.stream();
        // A fresh plan's first call, with the autotune cache warm (the host-memory table chose
        // this shape's variant already, or the cache had it).
        let first = Instant::now();
        let mut plan = Filter2D::new(gpu, &filter, BORDER)?;
        plan.run_device(&input, &mut output, stream)?;
        stream.synchronize(gpu)?;
        let first_ms = first.elapsed().as_secs_f64() * 1e3;
        let variant = plan.variant().context("the plan chose no variant")?;
        let call = wall(20, args.device_runs, || {
            plan.run_device(&input, &mut output, stream)?;
            Ok(stream.synchronize(gpu)?)
        })?;
        let kernel = gpu.kernel(variant, case.dtype)?;
        let problem = Problem::of(&image, &filter, BORDER, false);
        let mut job = gpu.alloc(variant, &problem)?;
        gpu.upload(&mut job, &image)?;
        let direct = wall(20, args.device_runs, || {
            gpu.launch(&kernel, &mut job)?;
            Ok(gpu.sync()?)
        })?;
        let queued = wall(2, 20, || {
            for _ in 0..100 {
                plan.run_device(&input, &mut output, stream)?;
            }
            Ok(stream.synchronize(gpu)?)
        })?;
        let queued_direct = wall(2, 20, || {
            for _ in 0..100 {
                gpu.launch(&kernel, &mut job)?;
            }
            Ok(gpu.sync()?)
        })?;
        let kernel_ms =
            ferroconv::stats::warm_then_repeat(3, 20, || gpu.time(|g| g.launch(&kernel, &mut job)))?
                .map_or(f64::NAN, |t| t.median);
        let over_us = (call - direct) * 1e3;
        let ratio = queued / queued_direct;
        rows.push(vec![
            case.name(),
            variant.name().into(),
            format!("{:.1}", call * 1e3),
            format!("{:.1}", direct * 1e3),
            format!("{over_us:.2} {}", verdict(over_us <= 3.0)),
            ms(queued),
            ms(queued_direct),
            format!("{ratio:.3} {}", verdict(ratio <= 1.05)),
            ms(first_ms),
            ms(kernel_ms),
            verdict(first_ms <= kernel_ms + 5.0),
        ]);
    }
    table::print(
        &[
            "case",
            "variant",
            "call us",
            "direct us",
            "over (<= 3 us)",
            "100 calls ms",
            "100 direct ms",
            "ratio (<= 1.05)",
            "first run ms",
            "kernel ms",
            "first <= kernel + 5 ms",
        ],
        &rows,
    );
    Ok(())
}
