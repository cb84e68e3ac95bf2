//! `host`: the command line. Runs and times every convolution variant (the main job) or verifies
//! every variant against the CPU reference (`host verify`).

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use conv::filter::FilterKind;
use conv::gpu::Gpu;
use conv::jobs::{self, MainJob, Report};
use conv::{Filter, Plane};
use std::process::ExitCode;

/// 2D image convolution on NVIDIA GPUs with kernels written in Rust.
///
/// Without a subcommand, runs the main job: convolves a reproducible random image with every CPU
/// and GPU variant, checks each against an f64 CPU reference, and prints one table.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    main: MainArgs,
}

#[derive(clap::Args, Debug)]
struct MainArgs {
    /// Side of the square test image, in pixels.
    #[arg(long, default_value_t = 2048)]
    size: usize,
    /// Image width (overrides --size).
    #[arg(long)]
    width: Option<usize>,
    /// Image height (overrides --size).
    #[arg(long)]
    height: Option<usize>,
    /// Filter side length: odd, 1 to 31.
    #[arg(long, default_value_t = 5)]
    mask: usize,
    /// Which filter to apply.
    #[arg(long, value_enum, default_value_t = FilterKind::Box)]
    filter: FilterKind,
    /// Seed of the random test image.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed kernel launches per GPU variant (after 3 warm-up launches).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Timed runs per CPU variant.
    #[arg(long, default_value_t = 3)]
    cpu_runs: usize,
    /// Skip the GPU even if one is present.
    #[arg(long)]
    cpu_only: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every variant against the f64 CPU reference over a ladder of sizes and filters.
    Verify {
        /// Image sizes as WIDTHxHEIGHT, comma-separated (default: 1x1 up to 2048x2048).
        #[arg(long, value_delimiter = ',', value_parser = parse_size)]
        sizes: Option<Vec<(usize, usize)>>,
        /// Filter sizes, comma-separated (default: 1,3,5,7,9,17,31).
        #[arg(long, value_delimiter = ',')]
        filters: Option<Vec<usize>>,
        /// Seed of the random images and filters.
        #[arg(long, default_value_t = 7)]
        seed: u64,
        /// Print every case, not only failures and the summary.
        #[arg(long, short)]
        verbose: bool,
        /// Skip the GPU even if one is present.
        #[arg(long)]
        cpu_only: bool,
    },
}

fn parse_size(s: &str) -> Result<(usize, usize), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{s}' is not WIDTHxHEIGHT"))
    };
    Ok((num(w)?, num(h)?))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => run_main_job(&cli.main),
        Some(Command::Verify {
            sizes,
            filters,
            seed,
            verbose,
            cpu_only,
        }) => run_verify(
            &sizes.unwrap_or_else(|| jobs::VERIFY_SIZES.to_vec()),
            &filters.unwrap_or_else(|| jobs::VERIFY_FILTERS.to_vec()),
            seed,
            verbose,
            cpu_only,
        ),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the GPU, or says in one line why the GPU variants are skipped.
fn open_gpu(cpu_only: bool) -> Option<Gpu> {
    if cpu_only {
        println!("GPU variants skipped: --cpu-only was given");
        return None;
    }
    match Gpu::new() {
        Ok(gpu) => {
            let i = gpu.info();
            println!(
                "GPU: {} (compute capability {}.{}, {} SMs, {:.1} GiB), driver API {}.{}, PTX JIT + load {:.1} ms",
                i.name,
                i.compute_capability.0,
                i.compute_capability.1,
                i.multiprocessors,
                i.memory_bytes as f64 / (1u64 << 30) as f64,
                i.driver_version / 1000,
                (i.driver_version % 1000) / 10,
                gpu.module_load_ms()
            );
            Some(gpu)
        }
        Err(e) => {
            println!("GPU variants skipped: {e}");
            None
        }
    }
}

fn run_main_job(args: &MainArgs) -> Result<()> {
    let (width, height) = (args.width.unwrap_or(args.size), args.height.unwrap_or(args.size));
    let filter = Filter::builtin(args.filter, args.mask).context("--mask")?;
    let image = Plane::random(width, height, args.seed).context("--size/--width/--height")?;
    println!(
        "Image {width}x{height} f32 (random, seed {}), {:?} filter {}x{}, zero border, {} CPU threads",
        args.seed,
        args.filter,
        args.mask,
        args.mask,
        rayon::current_num_threads()
    );
    let gpu = open_gpu(args.cpu_only);
    let job = MainJob {
        image,
        filter,
        runs: args.runs,
        cpu_runs: args.cpu_runs,
    };
    let report = jobs::main_job(&job, gpu.as_ref()).context("running the main job")?;
    print_report(&report);
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

fn print_report(report: &Report) {
    let seq = report.median_of("cpu-seq");
    let par = report.median_of("cpu-par");
    let ms = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let headers = [
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
    let rows: Vec<Vec<String>> = report
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
                format!("{:.1}", report.min_bytes() / t / 1e6),
                format!("{:.1}", report.flops() / t / 1e6),
                seq.map_or("-".into(), |s| format!("{:.1}", s / t)),
                par.map_or("-".into(), |p| format!("{:.1}", p / t)),
                r.loads_per_pixel.map_or("-".into(), |l| format!("{l:.1}")),
                // Arithmetic intensity: 2k² flops per pixel over 4 bytes per global load.
                r.loads_per_pixel.map_or("-".into(), |l| {
                    format!(
                        "{:.2}",
                        2.0 * (report.filter_size * report.filter_size) as f64 / (4.0 * l)
                    )
                }),
                format!("{:.1e}", r.check.max_error),
                if r.check.passed() {
                    "PASS".into()
                } else {
                    "FAIL".into()
                },
            ]
        })
        .collect();
    print_table(&headers, &rows);
    let gpu_runs = report.rows.iter().find(|r| r.h2d_ms.is_some()).map(|r| r.compute.runs);
    let cpu_runs = report.rows.first().map_or(0, |r| r.compute.runs);
    let gpu_note = gpu_runs.map_or(String::new(), |n| {
        format!("GPU median/min = kernel only (CUDA events, {n} runs after 3 warm-ups); ")
    });
    println!(
        "Times: {gpu_note}CPU = whole call ({cpu_runs} runs). e2e = alloc + NaN poison + H2D + 1 kernel + D2H \
         on the host clock. GB/s counts {:.1} MB in + out. Tolerance {:.1e}.",
        report.min_bytes() / 1e6,
        report.rows.first().map_or(0.0, |r| r.check.tolerance)
    );
    for r in report.rows.iter().filter(|r| !r.check.passed()) {
        println!("FAIL {}: {}", r.name, r.check);
    }
}

fn print_table(headers: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([headers[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        println!("{}", parts.join("  "));
    };
    line(headers.to_vec());
    line(
        widths
            .iter()
            .map(|&w| &"----------------------------------------"[..w.min(40)])
            .collect(),
    );
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}

fn run_verify(
    sizes: &[(usize, usize)],
    filters: &[usize],
    seed: u64,
    verbose: bool,
    cpu_only: bool,
) -> Result<()> {
    for &(w, h) in sizes {
        conv::plane::check_dims(w, h).context("--sizes")?;
    }
    for &k in filters {
        conv::filter::check_size(k).context("--filters")?;
    }
    let gpu = open_gpu(cpu_only);
    println!(
        "Verifying against the f64 CPU reference: random images in [0,1), random filters in [-1,1), \
         GPU output poisoned with NaN before each run; tolerance 2·k²·2⁻²⁴·Σ|f|·max|in| + 2⁻²⁴."
    );
    let cases = jobs::verify(sizes, filters, seed, gpu.as_ref(), |c| {
        if verbose || !c.check.passed() {
            let mark = if c.check.passed() { "PASS" } else { "FAIL" };
            println!(
                "{mark} {:<9} {:>5}x{:<5} k={:<2} {}",
                c.variant, c.width, c.height, c.filter_size, c.check
            );
        }
    })
    .context("running the verification")?;
    let failed = cases.iter().filter(|c| !c.check.passed()).count();
    let worst = cases
        .iter()
        .map(|c| c.check.max_error / c.check.tolerance)
        .fold(0.0, f64::max);
    println!(
        "{} passed, {} failed (worst error {:.3} of its tolerance){}",
        cases.len() - failed,
        failed,
        worst,
        if gpu.is_none() {
            "; GPU variants were skipped"
        } else {
            ""
        }
    );
    if failed > 0 {
        bail!("{failed} verification case(s) failed");
    }
    Ok(())
}
