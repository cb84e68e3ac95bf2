//! `host cpu-time`: times the CPU engine in-process on one random image and filter and prints each
//! run's compute time (ms), one per line; `cargo xtask cpu-bench` compares these with OpenCV.

use super::names;
use super::values::{parse_count, parse_filter_size, parse_positive, parse_sigma};
use anyhow::{Context as _, Result};
use ferroconv::engine::cpu;
use ferroconv::model::filter::FilterKind;
use ferroconv::named::{self, Named as _};
use ferroconv::stats::WARMUP_RUNS;
use ferroconv::{Border, DType, Filter, Image};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct CpuTimeArgs {
    /// Side of the square random image, in pixels.
    #[arg(long, default_value_t = 4096, allow_negative_numbers = true, value_parser = parse_positive)]
    size: usize,
    /// `random` (reproducible random taps that sum to 1, not rank-1) or a built-in filter (box,
    /// gaussian, sobel-x, ...).
    #[arg(long, default_value = "random", value_parser = parse_timed_filter)]
    filter: TimedFilter,
    /// Side of the filter (odd).
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = parse_filter_size)]
    k: usize,
    /// The Gaussian's standard deviation (default: OpenCV's for the size).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_sigma)]
    sigma: Option<f64>,
    /// Sample type of the image.
    #[arg(long, value_parser = names::dtype(), default_value = "f32")]
    dtype: DType,
    /// Channels: 1 (gray), 3 (RGB), 4 (RGBA; alpha is copied).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_channels)]
    channels: usize,
    /// How pixels outside the image are treated.
    #[arg(long, value_parser = names::border(), default_value = "replicate")]
    border: Border,
    /// Timed runs, at least 1.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = parse_positive)]
    runs: usize,
    /// Untimed runs first.
    #[arg(long, default_value_t = WARMUP_RUNS, allow_negative_numbers = true, value_parser = parse_count)]
    warmups: usize,
    /// Time the single-core engine (`cpu::sequential`) instead of the multi-threaded one.
    #[arg(long)]
    sequential: bool,
    /// Seed of the random image and filter.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Also write the input (`input.bin`), the taps (`filter.txt`) and the last result
    /// (`output.bin`) into this folder, raw samples row-major and interleaved, to compare the
    /// result with another implementation.
    #[arg(long)]
    dump: Option<PathBuf>,
}

/// The filter `--filter` names.
#[derive(Clone, Copy, Debug)]
enum TimedFilter {
    Random,
    Builtin(FilterKind),
}

fn parse_timed_filter(s: &str) -> Result<TimedFilter, String> {
    if s == "random" {
        return Ok(TimedFilter::Random);
    }
    named::parse::<FilterKind>(s)
        .map(TimedFilter::Builtin)
        .map_err(|_| {
            let names: Vec<_> = FilterKind::VALUES.iter().map(|k| k.name()).collect();
            format!("unknown filter '{s}' (random or one of: {})", names.join(", "))
        })
}

fn parse_channels(s: &str) -> Result<usize, String> {
    match parse_count(s)? {
        c @ (1 | 3 | 4) => Ok(c),
        _ => Err("give 1 (gray), 3 (RGB) or 4 (RGBA)".to_string()),
    }
}

/// Times the engine and prints a `#` line describing the case, then each run's milliseconds.
pub fn run(args: &CpuTimeArgs) -> Result<()> {
    if args.sigma.is_some() && !matches!(args.filter, TimedFilter::Builtin(FilterKind::Gaussian)) {
        anyhow::bail!("--sigma applies only to --filter gaussian");
    }
    let filter = match args.filter {
        TimedFilter::Random => Filter::random_normalized(args.k, args.seed)?,
        TimedFilter::Builtin(kind) => Filter::builtin(kind, args.k, args.sigma).context("--filter/--k")?,
    };
    let (n, ch) = (args.size, args.channels);
    let image = Image::random(n, n, ch, args.dtype, args.seed).context("the random image")?;
    // The output is allocated once, as OpenCV's `dst` is: the parallel engine writes into it
    // (`cpu::parallel_into`); the sequential row allocates per call, as the main job does.
    let mut out = cpu::parallel(&image, &filter, args.border, false)?;
    let mut time = || -> Result<f64> {
        let start = Instant::now();
        if args.sequential {
            out = cpu::sequential(&image, &filter, args.border, false)?;
        } else {
            cpu::parallel_into(&image, &filter, args.border, false, &mut out)?;
        }
        Ok(start.elapsed().as_secs_f64() * 1e3)
    };
    for _ in 0..args.warmups {
        time()?;
    }
    let threads = if args.sequential {
        1
    } else {
        rayon::current_num_threads()
    };
    println!(
        "# cpu-time: {n}x{n}x{ch} {}, {} filter {k}x{k}, {} border, {} on {threads} thread(s), {} \
         run(s) after {} warm-up(s), ms per run:",
        args.dtype.name(),
        match args.filter {
            TimedFilter::Random => "random",
            TimedFilter::Builtin(kind) => kind.name(),
        },
        args.border.name(),
        if args.sequential { "sequential" } else { "parallel" },
        args.runs,
        args.warmups,
        k = filter.size(),
    );
    for _ in 0..args.runs {
        println!("{:.3}", time()?);
    }
    if let Some(dir) = &args.dump {
        dump(dir, &image, &filter, &out).with_context(|| format!("--dump {}", dir.display()))?;
    }
    Ok(())
}

/// Writes the input, the taps and the result for `--dump`.
fn dump(dir: &Path, image: &Image, filter: &Filter, out: &Image) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("input.bin"), image.samples().as_bytes())?;
    std::fs::write(dir.join("output.bin"), out.samples().as_bytes())?;
    let k = filter.size();
    let rows: Vec<String> = filter
        .taps()
        .chunks(k)
        .map(|row| row.iter().map(|t| format!("{t:e}")).collect::<Vec<_>>().join(" "))
        .collect();
    std::fs::write(dir.join("filter.txt"), rows.join("\n") + "\n")?;
    Ok(())
}
