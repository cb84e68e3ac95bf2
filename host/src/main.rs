//! `host`: the command line. Runs and times every convolution variant (the main job), verifies
//! every variant against the CPU reference (`host verify`), processes image files (`--input`), or
//! describes the GPU (`host info`).

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use conv::batch;
use conv::files::RawLayout;
use conv::filter::FilterKind;
use conv::gpu::{Gpu, Variant};
use conv::jobs::{self, MainJob, Report, SeparableMode, VerifyPlan};
use conv::{Border, DType, Filter, Image};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// 2D image convolution on NVIDIA GPUs with kernels written in Rust.
///
/// Without a subcommand or --input, runs the main job: convolves a reproducible random image with
/// every CPU and GPU variant, checks each against an f64 CPU reference, and prints one table.
/// With --input, convolves image files (PNG, JPEG, TIFF, BMP, PGM/PPM/PNM/PAM, RAW f32).
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
    /// Image width (overrides --size; with --input, the width of RAW f32 files).
    #[arg(long)]
    width: Option<usize>,
    /// Image height (overrides --size; with --input, the height of RAW f32 files).
    #[arg(long)]
    height: Option<usize>,
    /// Channels of the test image (with --input, of RAW f32 files): 1 (gray), 3 (RGB), 4 (RGBA;
    /// alpha is copied).
    #[arg(long, default_value_t = 1)]
    channels: usize,
    /// Sample type of the test image (default f32; with --input, default: keep the file's);
    /// integer results are clamped to [0, 1] and rounded.
    #[arg(long, value_enum)]
    dtype: Option<DType>,
    /// Seed of the random test image.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    #[command(flatten)]
    filter: FilterArgs,
    /// How pixels outside the image are treated.
    #[arg(long, value_enum, default_value_t = Border::Zero)]
    border: Border,
    /// Clamp f32 results to [0, 1].
    #[arg(long)]
    clamp: bool,
    /// Include the separable variant: on (filter must be rank-1), off, or auto (when rank-1).
    #[arg(long, value_enum, default_value_t = SeparableMode::Auto)]
    separable: SeparableMode,
    /// GPU variants to run, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = parse_variant)]
    variants: Option<Vec<Variant>>,
    /// Timed kernel launches per GPU variant (after 3 warm-up launches).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Timed runs per CPU variant.
    #[arg(long, default_value_t = 3)]
    cpu_runs: usize,
    /// Skip the GPU even if one is present.
    #[arg(long)]
    cpu_only: bool,
    #[command(flatten)]
    files: FileArgs,
}

/// Processing image files instead of the main job.
#[derive(clap::Args, Debug)]
struct FileArgs {
    /// Image file, folder of images, or glob pattern to process (repeatable).
    #[arg(long, short)]
    input: Vec<PathBuf>,
    /// Output file, or folder (which must exist) for many inputs. Never overwrites an input.
    #[arg(long, short, requires = "input")]
    output: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(long, requires = "input")]
    force: bool,
    /// Extension (format) of the results in an output folder (default: each input's).
    #[arg(long, requires = "input")]
    format: Option<String>,
    /// The one variant for files: `auto` (the default: the fastest for each image's problem class,
    /// measured once per GPU model and cached), a GPU variant, or `cpu`; the CPU is used when no
    /// GPU is usable and no GPU variant was asked for.
    #[arg(long, requires = "input", value_parser = parse_file_variant)]
    variant: Option<FileVariant>,
    /// Device memory one image may use, e.g. 256M or 2G (default: 90% of the free GPU memory);
    /// larger images are processed in horizontal strips. Also bounds the CPU path's strips.
    #[arg(long, requires = "input", value_parser = parse_bytes)]
    max_gpu_mem: Option<usize>,
    /// Print one JSON document with every image's results on stdout, and nothing else there.
    #[arg(long, requires = "input")]
    json: bool,
    /// Print only errors.
    #[arg(long, short, requires = "input", conflicts_with = "verbose")]
    quiet: bool,
    /// Print a line per image.
    #[arg(long, short, requires = "input")]
    verbose: bool,
}

/// The engine `--variant` asks for.
#[derive(Clone, Copy, Debug)]
enum FileVariant {
    Cpu,
    Auto,
    Gpu(Variant),
}

fn parse_file_variant(s: &str) -> Result<FileVariant, String> {
    match s {
        "cpu" => return Ok(FileVariant::Cpu),
        "auto" => return Ok(FileVariant::Auto),
        _ => {}
    }
    parse_variant(s)
        .map(FileVariant::Gpu)
        .map_err(|e| format!("{e}, auto or cpu"))
}

/// Parses a size in bytes with an optional K, M, G or T suffix (powers of 1024; `B` optional).
fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim().trim_end_matches(['B', 'b']);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("'{s}' is not a size such as 256M or 2G")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: usize = digits
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 256M or 2G"))?;
    n.checked_mul(1usize << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("'{s}' is not a usable size"))
}

#[derive(clap::Args, Debug)]
struct FilterArgs {
    /// Filter side length: odd, 1 to 31.
    #[arg(long, default_value_t = 5)]
    mask: usize,
    /// Which built-in filter to apply.
    #[arg(long, value_enum, default_value_t = FilterKind::Box)]
    filter: FilterKind,
    /// Standard deviation of the gaussian filter (default: from the size, as OpenCV does).
    #[arg(long)]
    sigma: Option<f64>,
    /// Read the filter from a text file: one row per line, numbers separated by whitespace, `#`
    /// starts a comment; square with an odd size.
    #[arg(long, conflicts_with_all = ["mask", "filter", "sigma"])]
    filter_file: Option<std::path::PathBuf>,
    /// Flip the filter (true convolution instead of correlation).
    #[arg(long)]
    flip: bool,
}

impl FilterArgs {
    fn build(&self) -> Result<Filter> {
        let filter = match &self.filter_file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read filter file {}", path.display()))?;
                Filter::parse(&text).with_context(|| format!("filter file {}", path.display()))?
            }
            None => Filter::builtin(self.filter, self.mask, self.sigma).context("--mask/--filter")?,
        };
        Ok(if self.flip { filter.flipped() } else { filter })
    }

    fn describe(&self, filter: &Filter) -> String {
        let name = match &self.filter_file {
            Some(p) => format!("file {}", p.display()),
            None => format!("{:?}", self.filter).to_lowercase(),
        };
        let flip = if self.flip { ", flipped (convolution)" } else { "" };
        let rank = if filter.rank1().is_some() { ", rank-1" } else { "" };
        format!("{name} filter {0}x{0}{rank}{flip}", filter.size())
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time variants over sizes, filter sizes and sample types against this GPU's roofline (its
    /// measured copy bandwidth and FP32 peak); print a table and write bench.csv and bench.md.
    Bench {
        /// Image sizes as WIDTHxHEIGHT, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = parse_size,
              default_value = "1024x1024,2048x2048,4096x4096,8192x8192,3000x2000")]
        sizes: Vec<(usize, usize)>,
        /// Filter sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "3,5,7,9,17,31")]
        filters: Vec<usize>,
        /// Sample types, comma-separated.
        #[arg(long, value_delimiter = ',', value_enum, default_value = "f32,u8")]
        dtypes: Vec<DType>,
        /// GPU variants, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = parse_variant,
              default_value = "fast,tiled-output-32x16,tiled,constant,separable,separable-fused")]
        variants: Vec<Variant>,
        /// Timed runs per configuration (after 3 warm-ups).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Filter size of the end-to-end (pinned, multi-stream) runs.
        #[arg(long, default_value_t = 5)]
        e2e_filter: usize,
        /// Strips the end-to-end runs split the image into.
        #[arg(long, default_value_t = 16)]
        strips: usize,
        /// Streams the end-to-end runs spread the strips over (at least 2 to overlap).
        #[arg(long, default_value_t = 2)]
        streams: usize,
        /// Folder for bench.csv, bench-e2e.csv, bench-cpu.csv and bench.md.
        #[arg(long, default_value = "target/bench")]
        out: std::path::PathBuf,
    },
    /// Check every variant against the f64 CPU reference over sizes, borders, channel counts,
    /// sample types and filter sizes (default: the standard ladder, see README).
    Verify {
        /// Image sizes as WIDTHxHEIGHT, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = parse_size)]
        sizes: Option<Vec<(usize, usize)>>,
        /// Filter sizes, comma-separated.
        #[arg(long, value_delimiter = ',')]
        filters: Option<Vec<usize>>,
        /// Border modes, comma-separated.
        #[arg(long, value_delimiter = ',', value_enum)]
        borders: Option<Vec<Border>>,
        /// Channel counts, comma-separated.
        #[arg(long, value_delimiter = ',')]
        channels: Option<Vec<usize>>,
        /// Sample types, comma-separated.
        #[arg(long, value_delimiter = ',', value_enum)]
        dtypes: Option<Vec<DType>>,
        /// GPU variants, comma-separated (default: all).
        #[arg(long, value_delimiter = ',', value_parser = parse_variant)]
        variants: Option<Vec<Variant>>,
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
    /// Describe the GPU (name, compute capability, SMs, memory, driver), the embedded PTX's target
    /// and the largest filter; works without a GPU.
    Info,
    /// Run every variant at awkward sizes under compute-sanitizer (memcheck, racecheck,
    /// synccheck, initcheck); one PASS/FAIL line per tool and case set (sizes over 100,000 pixels
    /// run a reduced set: k 3 and 17, zero and reflect, gray and RGBA, f32); fails on any
    /// reported error.
    Sanitize {
        /// Tools to run, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "memcheck,racecheck,synccheck,initcheck",
              value_parser = clap::builder::PossibleValuesParser::new(conv::sanitize::TOOLS))]
        tools: Vec<String>,
        /// Image sizes every tool checks, as WIDTHxHEIGHT, comma-separated.
        #[arg(long, default_value = conv::sanitize::SIZES)]
        sizes: String,
    },
    /// Long run on the GPU: many small and some large random images through the batch engine in
    /// one process; checks re-runs, device memory and throughput decay.
    Soak {
        /// Small images (64x64 to 256x256, random layouts).
        #[arg(long, default_value_t = 2000)]
        small: usize,
        /// Large square images.
        #[arg(long, default_value_t = 20)]
        large: usize,
        /// Side of the large images.
        #[arg(long, default_value_t = 4096)]
        large_side: usize,
        /// GPU variant (default: fast).
        #[arg(long, value_parser = parse_variant)]
        variant: Option<Variant>,
        /// Run on the CPU engine instead (no device memory check).
        #[arg(long)]
        cpu: bool,
        /// Seed of the random images.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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

fn parse_variant(s: &str) -> Result<Variant, String> {
    Variant::parse(s).ok_or_else(|| {
        let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
        format!("unknown variant '{s}' (one of: {})", names.join(", "))
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None if !cli.main.files.input.is_empty() => run_files(&cli.main),
        None => run_main_job(&cli.main),
        Some(Command::Bench {
            sizes,
            filters,
            dtypes,
            variants,
            runs,
            e2e_filter,
            strips,
            streams,
            out,
        }) => {
            let config = conv::bench::BenchConfig {
                sizes,
                filter_sizes: filters,
                dtypes,
                variants,
                runs,
                e2e_filter,
                strips,
                streams,
            };
            run_bench(&config, &out)
        }
        Some(Command::Info) => {
            info();
            Ok(())
        }
        Some(Command::Sanitize { tools, sizes }) => sanitize(&tools, &sizes),
        Some(Command::Soak {
            small,
            large,
            large_side,
            variant,
            cpu,
            seed,
        }) => soak(
            &conv::soak::SoakConfig {
                small,
                large,
                large_side,
                recheck_every: 25,
                seed,
            },
            variant.unwrap_or(Variant::Fast),
            cpu,
        ),
        Some(Command::Verify {
            sizes,
            filters,
            borders,
            channels,
            dtypes,
            variants,
            seed,
            verbose,
            cpu_only,
        }) => verify_plans(sizes, filters, borders, channels, dtypes).and_then(|plans| {
            run_verify(
                &plans,
                &variants.unwrap_or_else(|| Variant::ALL.to_vec()),
                seed,
                verbose,
                cpu_only,
            )
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, even when a cause (such as a JIT log) spans several.
            eprintln!("error: {}", conv::files::one_line(&format!("{e:#}")));
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
    let filter = args.filter.build()?;
    let dtype = args.dtype.unwrap_or(DType::F32);
    let image = Image::random(width, height, args.channels, dtype, args.seed)
        .context("--size/--width/--height/--channels")?;
    args.border
        .output_size(width, height, filter.radius())
        .context("--border")?;
    let requested = args.variants.clone().unwrap_or_else(|| Variant::ALL.to_vec());
    let variants = jobs::gpu_variants(&requested, &filter, args.separable).context("--separable")?;
    println!(
        "Image {width}x{height}, {} channel(s) {:?} (random, seed {}), {}, {} border{}, {} CPU threads",
        args.channels,
        dtype,
        args.seed,
        args.filter.describe(&filter),
        args.border.name(),
        if args.clamp { ", clamped" } else { "" },
        rayon::current_num_threads()
    );
    let gpu = open_gpu(args.cpu_only);
    let job = MainJob {
        image,
        filter,
        border: args.border,
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

fn print_report(report: &Report) -> Result<()> {
    let seq = report.median_of("cpu-seq");
    let par = report.median_of("cpu-par");
    let bytes = report.problem.min_bytes()?;
    let k2 = (report.problem.filter.size() * report.problem.filter.size()) as f64;
    let ms = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let sample_bytes = report.problem.dtype.size() as f64;
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
        .collect();
    print_table(&headers, &rows);
    let gpu_runs = report
        .rows
        .iter()
        .find(|r| r.h2d_ms.is_some())
        .map(|r| r.compute.runs);
    let cpu_runs = report.rows.first().map_or(0, |r| r.compute.runs);
    let gpu_note = gpu_runs.map_or(String::new(), |n| {
        format!("GPU median/min = kernel(s) only (CUDA events, {n} runs after 3 warm-ups); ")
    });
    println!(
        "Times: {gpu_note}CPU = whole call ({cpu_runs} runs). e2e = alloc + poison + H2D + 1 run + D2H on the \
         host clock. GB/s counts {:.1} MB in + out; GFLOP/s counts 2k² per output sample (effective for \
         separable). Tolerance {:.1e}.",
        bytes / 1e6,
        report.rows.first().map_or(0.0, |r| r.check.tolerance)
    );
    for r in report.rows.iter().filter(|r| !r.check.passed()) {
        println!("FAIL {}: {}", r.name, r.check);
    }
    Ok(())
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
    let dashes: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(dashes.iter().map(String::as_str).collect());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}

fn run_bench(config: &conv::bench::BenchConfig, out: &std::path::Path) -> Result<()> {
    for &(w, h) in &config.sizes {
        conv::image::check_dims(w, h).context("--sizes")?;
    }
    for &k in &config.filter_sizes {
        conv::filter::check_size(k).context("--filters")?;
    }
    conv::filter::check_size(config.e2e_filter).context("--e2e-filter")?;
    if config.strips == 0 || config.streams == 0 {
        bail!("--strips and --streams must be at least 1");
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let gpu = Gpu::new().context("the benchmark needs a GPU")?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let (machine, rows) = conv::bench::run(&gpu, config, |r| {
        eprintln!("{}", conv::bench::cells(r).join("  "));
    })
    .context("running the benchmark")?;
    for line in conv::bench::machine_lines(&machine) {
        println!("{line}");
    }
    let table: Vec<Vec<String>> = rows.iter().map(conv::bench::cells).collect();
    print_table(&conv::bench::HEADERS, &table);
    let e2e = conv::bench::end_to_end(&gpu, config, |r| {
        eprintln!("{}", conv::bench::e2e_cells(r).join("  "));
    })
    .context("running the end-to-end benchmark")?;
    println!();
    let table: Vec<Vec<String>> = e2e.iter().map(conv::bench::e2e_cells).collect();
    print_table(&conv::bench::E2E_HEADERS, &table);
    let cpu = conv::bench::cpu_times(config).context("timing the CPU")?;
    println!(
        "\ncpu-par ({} threads), f32, whole call: {}",
        rayon::current_num_threads(),
        cpu.iter()
            .map(|r| format!("{}x{} k={} {:.3} ms", r.width, r.height, r.filter_size, r.ms))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let files = [
        ("bench.csv", conv::bench::csv(&rows)),
        ("bench-cpu.csv", conv::bench::cpu_csv(&cpu)),
        ("bench-e2e.csv", conv::bench::e2e_csv(&e2e)),
        ("bench.md", conv::bench::markdown(&machine, &command, &rows, &e2e)),
    ];
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// The verification plans: the standard ones, or one built from the options given (each option
/// not given takes its widest value).
fn verify_plans(
    sizes: Option<Vec<(usize, usize)>>,
    filters: Option<Vec<usize>>,
    borders: Option<Vec<Border>>,
    channels: Option<Vec<usize>>,
    dtypes: Option<Vec<DType>>,
) -> Result<Vec<VerifyPlan>> {
    for &(w, h) in sizes.iter().flatten() {
        conv::image::check_dims(w, h).context("--sizes")?;
    }
    for &k in filters.iter().flatten() {
        conv::filter::check_size(k).context("--filters")?;
    }
    for &c in channels.iter().flatten() {
        conv::image::check_channels(c).context("--channels")?;
    }
    if sizes.is_none() && filters.is_none() && borders.is_none() && channels.is_none() && dtypes.is_none() {
        return Ok(VerifyPlan::standard());
    }
    let channels = channels.unwrap_or_else(|| vec![1, 3, 4]);
    let dtypes = dtypes.unwrap_or_else(|| DType::ALL.to_vec());
    Ok(vec![VerifyPlan {
        sizes: sizes.unwrap_or_else(|| vec![(1, 1), (1, 7), (7, 1), (7, 5), (31, 17), (257, 129)]),
        filter_sizes: filters.unwrap_or_else(|| vec![1, 3, 5, 7, 9, 17, 31]),
        borders: borders.unwrap_or_else(|| Border::ALL.to_vec()),
        layouts: channels
            .iter()
            .flat_map(|&c| dtypes.iter().map(move |&d| (c, d)))
            .collect(),
    }])
}

fn run_verify(
    plans: &[VerifyPlan],
    variants: &[Variant],
    seed: u64,
    verbose: bool,
    cpu_only: bool,
) -> Result<()> {
    let gpu = open_gpu(cpu_only);
    println!(
        "Verifying against the f64 CPU reference: random images, a general and a rank-1 random filter per case, \
         GPU output poisoned before each run (NaN for f32; 0x00 and 0xFF for integers); f32 tolerance \
         2·k²·2⁻²⁴·Σ|f|·max|in| + 2⁻²⁴, integers exact after rounding or one level off within it of a boundary."
    );
    let (cases, skipped) = jobs::verify(plans, variants, seed, gpu.as_ref(), |c| {
        if verbose || !c.check.passed() {
            let mark = if c.check.passed() { "PASS" } else { "FAIL" };
            println!(
                "{mark} {:<18} {:>4}x{:<4} c={} {:<3} {:<9} k={:<2}{} {}",
                c.variant,
                c.width,
                c.height,
                c.channels,
                c.dtype.suffix(),
                c.border.name(),
                c.filter_size,
                if c.rank1 { " rank-1" } else { "" },
                c.check
            );
        }
    })
    .context("running the verification")?;
    let failed = cases.iter().filter(|c| !c.check.passed()).count();
    let worst = cases
        .iter()
        .filter(|c| c.dtype == DType::F32)
        .map(|c| c.check.max_error / c.check.tolerance)
        .fold(0.0, f64::max);
    println!(
        "{} passed, {} failed (worst f32 error {:.3} of its tolerance; {} valid-border combinations skipped: \
         filter larger than the image){}",
        cases.len() - failed,
        failed,
        worst,
        skipped,
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

/// `host sanitize`: re-runs this binary's `verify` under each compute-sanitizer tool (see
/// [`conv::sanitize::verify_runs`] for the cases).
fn sanitize(tools: &[String], sizes: &str) -> Result<()> {
    let sizes = sizes
        .split(',')
        .map(|size| {
            let (w, h) = parse_size(size).map_err(anyhow::Error::msg).context("--sizes")?;
            conv::image::check_dims(w, h).context("--sizes")?;
            Ok((w, h))
        })
        .collect::<Result<Vec<_>>>()?;
    let Some(sanitizer) = conv::sanitize::find_sanitizer() else {
        bail!(
            "compute-sanitizer not found (set COMPUTE_SANITIZER, put it on PATH, or install the CUDA toolkit)"
        );
    };
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut failed = Vec::new();
    for tool in tools {
        for args in conv::sanitize::verify_runs(&sizes) {
            let started = Instant::now();
            let output = std::process::Command::new(&sanitizer)
                .args(["--tool", tool, "--error-exitcode", "9", "--print-limit", "20"])
                .arg(&exe)
                .arg("verify")
                .args(&args)
                .output()
                .with_context(|| format!("running {}", sanitizer.display()))?;
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            if text.contains("GPU variants skipped") {
                bail!("{tool}: the GPU variants were skipped under compute-sanitizer: no usable GPU");
            }
            let errors = conv::sanitize::error_count(&text);
            let pass = output.status.success() && errors == Some(0);
            let cases = text
                .lines()
                .find(|l| l.contains(" passed, "))
                .unwrap_or("no verify summary");
            println!(
                "{tool:<10} {}  {} errors  exit {}  {:.1} s  sizes {}: {cases}",
                if pass { "PASS" } else { "FAIL" },
                errors.map_or("?".to_string(), |n| n.to_string()),
                output
                    .status
                    .code()
                    .map_or("signal".to_string(), |c| c.to_string()),
                started.elapsed().as_secs_f64(),
                args[1],
            );
            if !pass {
                // The sanitizer's reports (at most 20 errors) and the verify summary, for the record.
                let log = std::env::temp_dir().join(format!("conv-sanitize-{tool}.log"));
                std::fs::write(&log, &text).with_context(|| format!("writing {}", log.display()))?;
                println!("           full output: {}", log.display());
                failed.push(tool.as_str());
            }
        }
    }
    if !failed.is_empty() {
        bail!("compute-sanitizer reported errors with: {}", failed.join(", "));
    }
    Ok(())
}

/// `host soak`: the long run, through the GPU engine (or the CPU one with `--cpu`).
fn soak(config: &conv::soak::SoakConfig, variant: Variant, cpu: bool) -> Result<()> {
    let gpu = if cpu {
        None
    } else {
        match Gpu::new() {
            Ok(gpu) => Some(gpu),
            Err(e) => {
                println!("SKIPPED: the soak run needs a GPU ({e}); --cpu soaks the CPU engine");
                bail!("soak SKIPPED: no usable GPU");
            }
        }
    };
    let mut engine = match &gpu {
        Some(gpu) => batch::Engine::Gpu {
            gpu,
            choice: batch::Choice::Fixed(variant),
            cached: None,
        },
        None => batch::Engine::Cpu,
    };
    let filter = Filter::random_normalized(5, config.seed)?;
    if variant.needs_rank1() && filter.rank1().is_none() {
        bail!("the soak's 5x5 filter is not rank-1: use another --variant");
    }
    let settings = batch::Settings {
        filter,
        border: Border::Reflect,
        clamp: false,
        dtype: None,
        raw: RawLayout::default(),
        max_mem: None,
        inject: None,
    };
    println!(
        "Soak: {} small (64..256 square-ish) and {} large ({}x{}) random images, {} on {}",
        config.small,
        config.large,
        config.large_side,
        config.large_side,
        engine.name(),
        gpu.as_ref()
            .map_or("the CPU".to_string(), |g| g.info().name.clone())
    );
    let free =
        || -> conv::Result<Option<usize>> { gpu.as_ref().map(|g| g.memory().map(|m| m.0)).transpose() };
    let report = conv::soak::run(&mut engine, &settings, config, &free, |done, total| {
        if done % 500 == 0 || done == total {
            println!("  {done}/{total} images");
        }
    })?;
    let mib = |b: Option<usize>| b.map_or("-".to_string(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
    println!(
        "images {}, {:.1} megapixels, {:.2} s; re-run checks {}; free device memory before {}, after {}          (slack {} MiB); small-image throughput first tenth {:.1} MP/s, last tenth {:.1} MP/s (limit {}x decay)",
        report.images,
        report.megapixels,
        report.seconds,
        report.rechecked,
        mib(report.memory_before),
        mib(report.memory_after),
        conv::soak::MEMORY_SLACK >> 20,
        report.first_tenth_mpx_s,
        report.last_tenth_mpx_s,
        conv::soak::DECAY_FACTOR
    );
    for p in &report.problems {
        println!("FAIL {p}");
    }
    if !report.passed() {
        bail!("soak failed: {} problem(s)", report.problems.len());
    }
    println!("soak PASS");
    Ok(())
}

/// `host info`: the GPU (or why there is none), the embedded PTX and the largest filter.
fn info() {
    match Gpu::new() {
        Ok(gpu) => {
            let i = gpu.info();
            let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
            println!("GPU: {}", i.name);
            println!(
                "compute capability: {}.{}",
                i.compute_capability.0, i.compute_capability.1
            );
            println!("SMs: {}", i.multiprocessors);
            match gpu.memory() {
                Ok((free, total)) => println!("memory: {:.1} GiB ({:.1} GiB free)", gib(total), gib(free)),
                Err(_) => println!("memory: {:.1} GiB", gib(i.memory_bytes)),
            }
            println!(
                "driver: CUDA driver API {}.{}",
                i.driver_version / 1000,
                (i.driver_version % 1000) / 10
            );
            println!("PTX JIT + load: {:.1} ms", gpu.module_load_ms());
        }
        Err(e) => println!("GPU: none ({e})"),
    }
    let directive = |name: &str| {
        conv::gpu::PTX
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map_or("?", str::trim)
    };
    let kernels = conv::gpu::PTX.lines().filter(|l| l.contains(".entry ")).count();
    println!(
        "PTX target: {} (PTX ISA {}, {kernels} kernels)",
        directive(".target "),
        directive(".version ")
    );
    let k = gpu_kernels::launch::MAX_FILTER_SIZE;
    println!("largest filter: {k}x{k}");
}

/// Processes image files (`--input`): one line per failure on stderr, a summary unless `--quiet`,
/// a JSON document with `--json`; fails if any image failed.
fn run_files(args: &MainArgs) -> Result<()> {
    let f = &args.files;
    let output = f
        .output
        .as_deref()
        .context("--input needs --output (a file, or a folder for many inputs)")?;
    let filter = args.filter.build()?;
    let inputs = batch::expand_inputs(&f.input).map_err(anyhow::Error::msg)?;
    let items =
        batch::plan_outputs(&inputs, output, f.format.as_deref(), f.force).map_err(anyhow::Error::msg)?;
    if let Some(FileVariant::Gpu(v)) = f.variant
        && v.needs_rank1()
        && filter.rank1().is_none()
    {
        bail!(
            "the {} variant needs a rank-1 filter (box, gaussian, sobel, identity, or a file with one)",
            v.name()
        );
    }
    let mut gpu_note = None;
    let gpu = match f.variant {
        Some(FileVariant::Cpu) => None,
        _ => match Gpu::new() {
            Ok(gpu) => Some(gpu),
            Err(e) => match f.variant {
                Some(FileVariant::Gpu(v)) => bail!("--variant {} needs a usable GPU: {e}", v.name()),
                Some(FileVariant::Auto) => bail!("--variant auto needs a usable GPU: {e}"),
                _ => {
                    gpu_note = Some(e.to_string());
                    None
                }
            },
        },
    };
    if let Some(note) = &gpu_note
        && !f.quiet
    {
        let note = conv::files::one_line(note);
        eprintln!("note: no usable GPU ({note}); processing on the CPU (cpu-par)");
    }
    let mut engine = match &gpu {
        Some(gpu) => batch::Engine::Gpu {
            gpu,
            choice: match f.variant {
                Some(FileVariant::Gpu(v)) => batch::Choice::Fixed(v),
                _ => batch::Choice::Auto(conv::autotune::Tuner::load()),
            },
            cached: None,
        },
        None => batch::Engine::Cpu,
    };
    let settings = batch::Settings {
        filter,
        border: args.border,
        clamp: args.clamp,
        dtype: args.dtype,
        raw: RawLayout {
            width: args.width,
            height: args.height,
            channels: args.channels,
        },
        max_mem: f.max_gpu_mem,
        inject: conv::fault::Injection::from_env()?,
    };
    let progress = ProgressBar::with_draw_target(Some(items.len() as u64), ProgressDrawTarget::hidden());
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} images  {per_sec}  ETA {eta}")
            .expect("a valid template"),
    );
    let single = items.len() == 1;
    let show_failure = |o: &batch::Outcome| {
        if !single && let Some(e) = &o.error {
            eprintln!("error: {e}");
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().div_ceil(2).min(8));
    let started = Instant::now();
    let outcomes = batch::run(
        &items,
        &settings,
        &mut engine,
        threads,
        &progress,
        !f.quiet && std::io::stderr().is_terminal(),
        &show_failure,
    );
    progress.finish_and_clear();
    let summary = batch::summarize(&outcomes, started.elapsed().as_secs_f64());
    let auto_choices: Vec<String> = match &engine {
        batch::Engine::Gpu {
            choice: batch::Choice::Auto(tuner),
            ..
        } => tuner.choices_made().cloned().collect(),
        _ => Vec::new(),
    };
    if f.json {
        let gpu_json = gpu.as_ref().map(|g| {
            let i = g.info();
            serde_json::json!({
                "name": i.name,
                "compute_capability": format!("{}.{}", i.compute_capability.0, i.compute_capability.1),
                "multiprocessors": i.multiprocessors,
                "memory_bytes": i.memory_bytes,
                "driver_api": i.driver_version,
            })
        });
        let doc = serde_json::json!({
            "gpu": gpu_json,
            "gpu_unavailable": gpu_note,
            "variant": engine.name(),
            "auto_choices": auto_choices,
            "filter": args.filter.describe(&settings.filter),
            "border": args.border.name(),
            "images": outcomes,
            "summary": summary,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if f.verbose {
        for o in &outcomes {
            if let Some(d) = &o.done {
                println!(
                    "{} -> {}: {}x{} x{} {}, {}, {} strip(s), {:.2} ms",
                    o.input.display(),
                    o.output.display(),
                    d.width,
                    d.height,
                    d.channels,
                    d.dtype,
                    d.compute.variant,
                    d.strips,
                    d.compute.compute_ms
                );
            }
        }
    }
    if single && let Some(e) = &outcomes[0].error {
        bail!("{e}");
    }
    if !f.quiet && !f.json {
        for line in &auto_choices {
            eprintln!("{line}");
        }
    }
    if !f.quiet {
        eprintln!(
            "{} image(s), {} failed, {:.2} s, {:.1} megapixels/s, {}",
            summary.images,
            summary.failed,
            summary.seconds,
            summary.megapixels_per_s,
            match &gpu {
                Some(g) => format!("{} on {}", engine.name(), g.info().name),
                None => "cpu-par on the CPU".to_string(),
            }
        );
    }
    if summary.skipped > 0 {
        eprintln!(
            "error: the batch stopped at a device fault; {} image(s) not processed",
            summary.skipped
        );
    }
    if summary.failed > 0 {
        bail!("{} of {} image(s) failed", summary.failed, summary.images);
    }
    Ok(())
}
