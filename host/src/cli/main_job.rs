//! The main job (no subcommand, no `--input`): one random image through every CPU and GPU
//! variant, timed and checked against the f64 reference, printed as one table.

use super::args::MainArgs;
use super::usage::Given;
use super::{gpu, table};
use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::Variant;
use ferroconv::{DType, Image};
use host_tools::verify::jobs::{self, MainJob, Report};

/// Runs the main job; fails if any variant does not match the reference.
pub fn run(args: &MainArgs, given: &Given) -> Result<()> {
    if args.runs == 0 || args.cpu_runs == 0 {
        let name = if args.runs == 0 { "--runs" } else { "--cpu-runs" };
        bail!("{name} must be at least 1 (timed runs per variant, after 3 warm-ups)");
    }
    if args.cpu_only && given.has("variants") {
        bail!("--variants chooses GPU variants, but --cpu-only skips the GPU: give one of them");
    }
    let (width, height) = (args.width.unwrap_or(args.size), args.height.unwrap_or(args.size));
    let filter = args.filter.build()?;
    let dtype = args.dtype.unwrap_or(DType::F32);
    let image = Image::random(width, height, args.channels, dtype, args.seed)
        .context("--size/--width/--height/--channels")?;
    let border = args.border()?;
    super::usage::check_cval(
        border,
        args.cval,
        dtype,
        &format!("the {} image (--dtype)", dtype.suffix()),
    )?;
    border
        .output_size(width, height, filter.radius())
        .context("--border")?;
    let requested = match &args.variants {
        Some(asked) => {
            for v in asked {
                v.check_supports(dtype, filter.radius()).context("--variants")?;
                if v.spec().lines_only && !filter.is_line() {
                    bail!(
                        "--variants: {} runs filters of one row or one column only",
                        v.name()
                    );
                }
            }
            asked.clone()
        }
        None => Variant::ALL
            .into_iter()
            .filter(|v| v.supports(dtype, filter.radius()))
            .collect(),
    };
    let variants = jobs::gpu_variants(&requested, &filter, args.separable).context("--separable")?;
    println!(
        "Image {width}x{height}, {} channel(s) {:?} (random, seed {}), {}, {} border{}, {} CPU threads",
        args.channels,
        dtype,
        args.seed,
        args.filter.describe(&filter),
        border.describe(),
        if args.clamp { ", clamped" } else { "" },
        rayon::current_num_threads()
    );
    let gpu = gpu::open_for_variants(args.cpu_only);
    let job = MainJob {
        image,
        filter,
        border,
        clamp: args.clamp,
        variants,
        runs: args.runs,
        cpu_runs: args.cpu_runs,
    };
    let report = jobs::main_job(&job, gpu.as_ref()).context("running the main job")?;
    print_report(&report)?;
    let failed: Vec<_> = report
        .rows
        .iter()
        .filter(|r| !r.check.passed())
        .map(|r| r.name)
        .collect();
    if !failed.is_empty() {
        bail!(
            "{} variant(s) do not match the CPU reference: {}",
            failed.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// The table (one row per variant), the note on how it was timed, and a line per failure.
fn print_report(report: &Report) -> Result<()> {
    let bytes = report.problem.min_bytes()?;
    table::print(&HEADERS, &rows(report, bytes));
    let gpu_runs = report
        .rows
        .iter()
        .find(|r| r.h2d_ms.is_some())
        .map(|r| (r.compute.runs, r.warmups));
    let (cpu_runs, cpu_warmups) = report
        .rows
        .first()
        .map_or((0, 0), |r| (r.compute.runs, r.warmups));
    let gpu_note = gpu_runs.map_or(String::new(), |(n, w)| {
        format!("GPU median/min = kernel(s) only (CUDA events, {n} runs after {w} warm-ups); ")
    });
    println!(
        "Times: {gpu_note}CPU = whole call ({cpu_runs} runs after {cpu_warmups} warm-ups; cpu-par into one kept output). \
         GPU rows run Filter2D plans: e2e = a warm plan's call on host memory (H2D + kernel + D2H through its \
         page-locked staging) on the host clock, H2D and D2H its copies (CUDA events), alloc = a new plan's first \
         call minus e2e. GB/s counts {:.1} MB in + out; GFLOP/s counts 2 per tap (kh·kw) and output sample (effective for \
         separable). Tolerance {:.1e}.",
        bytes / 1e6,
        report.rows.first().map_or(0.0, |r| r.check.tolerance)
    );
    for r in report.rows.iter().filter(|r| !r.check.passed()) {
        println!("FAIL {}: {}", r.name, r.check);
    }
    Ok(())
}

const HEADERS: [&str; 15] = [
    "variant",
    "median ms",
    "min ms",
    "H2D ms",
    "D2H ms",
    "alloc ms",
    "e2e ms",
    "GB/s",
    "GFLOP/s",
    "x seq",
    "x par",
    "loads/px",
    "FLOP/B",
    "max err",
    "check",
];

/// The table's cells, a row per variant; `bytes` is the problem's minimum traffic.
fn rows(report: &Report, bytes: f64) -> Vec<Vec<String>> {
    let seq = report.median_of("cpu-seq");
    let par = report.median_of("cpu-par");
    let k2 = report.problem.filter.tap_count() as f64;
    let ms = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let sample_bytes = report.problem.dtype.size() as f64;
    report
        .rows
        .iter()
        .map(|r| {
            let t = r.compute.median;
            vec![
                r.name.to_string(),
                format!("{t:.3}"),
                format!("{:.3}", r.compute.min),
                ms(r.h2d_ms),
                ms(r.d2h_ms),
                ms(r.alloc_ms),
                format!("{:.3}", r.end_to_end_ms),
                format!("{:.1}", bytes / t / 1e6),
                format!("{:.1}", report.flops() / t / 1e6),
                seq.map_or("-".into(), |s| format!("{:.1}", s / t)),
                par.map_or("-".into(), |p| format!("{:.1}", p / t)),
                r.loads_per_pixel.map_or("-".into(), |l| format!("{l:.1}")),
                // Arithmetic intensity: 2k² flops per sample over the bytes of its global loads.
                r.loads_per_pixel
                    .map_or("-".into(), |l| format!("{:.2}", 2.0 * k2 / (sample_bytes * l))),
                format!("{:.1e}", r.check.max_error),
                if r.check.passed() {
                    "PASS".into()
                } else {
                    "FAIL".into()
                },
            ]
        })
        .collect()
}
