//! `host`: the command line. Runs and times every convolution variant (the main job), verifies
//! every variant against the CPU reference (`host verify`), processes image files (`--input`), or
//! describes the GPU (`host info`).

use anyhow::{Context as _, Result, bail};
use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use conv::engine::batch;
use conv::engine::gpu::{Gpu, Variant};
use conv::io::files::RawLayout;
use conv::model::filter::FilterKind;
use conv::verify::jobs::{self, MainJob, Report, SeparableMode, VerifyPlan};
use conv::{Border, DType, Filter, Image};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
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
    #[arg(long, default_value_t = 2048, allow_negative_numbers = true, value_parser = parse_count)]
    size: usize,
    /// Image width (overrides --size; with --input, the width of RAW f32 files).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count)]
    width: Option<usize>,
    /// Image height (overrides --size; with --input, the height of RAW f32 files).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count)]
    height: Option<usize>,
    /// Channels of the test image (with --input, of RAW f32 files): 1 (gray), 3 (RGB), 4 (RGBA;
    /// alpha is copied).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_count)]
    channels: usize,
    /// Sample type of the test image (default f32; with --input, default: keep the file's);
    /// integer results are clamped to [0, 1] and rounded.
    #[arg(long, value_enum)]
    dtype: Option<DType>,
    /// Seed of the random test image.
    #[arg(long, default_value_t = 42, allow_negative_numbers = true, value_parser = parse_seed)]
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
    /// Timed kernel launches per GPU variant, at least 1 (after 3 warm-up launches).
    #[arg(long, default_value_t = 20, allow_negative_numbers = true, value_parser = parse_count)]
    runs: usize,
    /// Timed runs per CPU variant, at least 1 (after 3 warm-up runs).
    #[arg(long, default_value_t = 3, allow_negative_numbers = true, value_parser = parse_count)]
    cpu_runs: usize,
    /// Skip the GPU even if one is present (with --input: the same as --variant cpu).
    #[arg(long)]
    cpu_only: bool,
    #[command(flatten)]
    files: FileArgs,
}

/// Processing image files instead of the main job.
#[derive(clap::Args, Debug)]
struct FileArgs {
    /// Image files, folders of images, or glob patterns to process (repeatable; one -i may be
    /// followed by several, as a shell-expanded glob gives).
    #[arg(long, short, num_args = 1.., action = clap::ArgAction::Append)]
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
    /// Memory one decoded image may take, e.g. 512M or 8G (default: a quarter of the machine's
    /// memory); a larger image, or one whose header claims so, is refused before decoding.
    #[arg(long, requires = "input", value_parser = parse_bytes)]
    max_image_mem: Option<usize>,
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
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = parse_count)]
    mask: usize,
    /// Which built-in filter to apply.
    #[arg(long, value_enum, default_value_t = FilterKind::Box)]
    filter: FilterKind,
    /// Standard deviation of the gaussian filter, a positive number (default: OpenCV's
    /// getGaussianKernel(k, 0) taps for the size).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_sigma)]
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
        if self.sigma.is_some() && self.filter != FilterKind::Gaussian {
            bail!(
                "--sigma applies only to --filter gaussian, not to --filter {}",
                clap::ValueEnum::to_possible_value(&self.filter)
                    .map_or_else(String::new, |v| v.get_name().to_string())
            );
        }
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
              default_value = "fast,fast-4x2,tiled-output-32x16,tiled,constant,separable,separable-fused")]
        variants: Vec<Variant>,
        /// Timed runs per configuration (after 3 warm-ups).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// How each kernel is timed: `back-to-back` (launches queued behind a GPU-side wait, each
        /// between its own events: the GPU time alone) or `host-launched` (each launch from the
        /// host between two events: includes the launch latency).
        #[arg(long, value_enum, default_value = "back-to-back")]
        timing: conv::bench::sweep::TimingMethod,
        /// A `peers.csv` written by the peers binary on this GPU in this run: prints (and writes
        /// to peers-ratio.csv and bench.md) the fastest general f32 variant against the best
        /// `g_fast` row for every case both measured.
        #[arg(long)]
        peers: Option<std::path::PathBuf>,
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
              value_parser = clap::builder::PossibleValuesParser::new(conv::verify::sanitize::TOOLS))]
        tools: Vec<String>,
        /// Image sizes every tool checks, as WIDTHxHEIGHT, comma-separated.
        #[arg(long, default_value = conv::verify::sanitize::SIZES)]
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

/// Parses a whole number of at least 0, saying what is wrong with a negative or fractional one.
fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim();
    t.parse::<usize>().map_err(|_| match t.parse::<f64>() {
        Ok(v) if v < 0.0 => "it is negative: give a whole number of at least 0".to_string(),
        Ok(_) => "give a whole number, without a fraction".to_string(),
        Err(_) => "not a number".to_string(),
    })
}

/// Parses a seed: a whole number from 0 to 2^64 - 1.
fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| "give a whole number from 0 to 18446744073709551615".to_string())
}

/// Parses a Gaussian's standard deviation: a positive, finite number.
fn parse_sigma(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err("sigma must be a positive number".to_string()),
        Err(_) => Err("not a number".to_string()),
    }
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

/// Which options the command line gave (not their defaults).
struct Given<'a>(&'a clap::ArgMatches);

impl Given<'_> {
    fn has(&self, id: &str) -> bool {
        self.0.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    }
}

/// A command line the parser rejects: one `error:` line (with clap's tips) and exit code 2; with
/// `--json`, also the failure document on stdout. Help and version print as usual.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = match (e.kind(), e.get(clap::error::ContextKind::InvalidSubcommand)) {
        // A path after the options, as `host -i a.png -o out/ b.png`: not a subcommand.
        (ErrorKind::InvalidSubcommand, Some(value)) => format!(
            "error: '{value}' is not a subcommand (bench, verify, info, sanitize, soak): put every input \
             after -i (-i a.png b.png) and the output after -o"
        ),
        _ => e.render().to_string(),
    };
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("the command line could not be parsed");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    for tip in lines.filter_map(|l| l.strip_prefix("tip: ")) {
        message.push_str("; ");
        message.push_str(tip);
    }
    message.push_str(" (see --help)");
    if std::env::args().any(|a| a == "--json") {
        print_json_failure(&message, None);
    }
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// A batch stopped by a signal; the process exits with 128 + its number.
#[derive(Debug, thiserror::Error)]
#[error("interrupted by {}", conv::io::interrupt::name(*.0))]
struct Interrupted(i32);

fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let given = Given(&matches);
    let refused = match cli.command {
        Some(_) => check_no_main_options(&given, &matches).err(),
        None => None,
    };
    let outcome = if let Some(e) = refused {
        Err(e)
    } else {
        match cli.command {
            None if !cli.main.files.input.is_empty() => run_files(&cli.main, &given),
            None => run_main_job(&cli.main, &given),
            Some(Command::Bench {
                sizes,
                filters,
                dtypes,
                variants,
                runs,
                timing,
                peers,
                e2e_filter,
                strips,
                streams,
                out,
            }) => {
                let config = conv::bench::sweep::BenchConfig {
                    sizes,
                    filter_sizes: filters,
                    dtypes,
                    variants,
                    runs,
                    timing,
                    e2e_filter,
                    strips,
                    streams,
                };
                run_bench(&config, peers.as_deref(), &out)
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
                &conv::verify::soak::SoakConfig {
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
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, even when a cause (such as a JIT log) spans several.
            eprintln!("error: {}", conv::io::files::one_line(&format!("{e:#}")));
            match e.downcast_ref::<Interrupted>() {
                Some(Interrupted(signal)) => {
                    ExitCode::from(conv::io::interrupt::exit_code(*signal).clamp(1, 255) as u8)
                }
                None => ExitCode::FAILURE,
            }
        }
    }
}

/// Refuses the main job's and the files' options before a subcommand (`host --mask 3 verify`),
/// which does not read them.
fn check_no_main_options(given: &Given, matches: &clap::ArgMatches) -> Result<()> {
    let sub = matches.subcommand_name().unwrap_or("?");
    let command = <MainArgs as clap::Args>::augment_args(clap::Command::new("host"));
    for arg in command.get_arguments() {
        if given.has(arg.get_id().as_str()) {
            let name = arg
                .get_long()
                .map_or_else(|| arg.get_id().to_string(), |l| format!("--{l}"));
            bail!(
                "{name} applies to the main job and to image files, not to `host {sub}` (see host {sub} --help)"
            );
        }
    }
    Ok(())
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
                "GPU: {} (compute capability {}.{}, {} SMs, {:.1} GiB), driver API {}.{}, kernels from {} in {:.1} ms",
                i.name,
                i.compute_capability.0,
                i.compute_capability.1,
                i.multiprocessors,
                i.memory_bytes as f64 / (1u64 << 30) as f64,
                i.driver_version / 1000,
                (i.driver_version % 1000) / 10,
                gpu.module_kind(),
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

fn run_main_job(args: &MainArgs, given: &Given) -> Result<()> {
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
        .map(|r| (r.compute.runs, r.warmups));
    let (cpu_runs, cpu_warmups) = report
        .rows
        .first()
        .map_or((0, 0), |r| (r.compute.runs, r.warmups));
    let gpu_note = gpu_runs.map_or(String::new(), |(n, w)| {
        format!("GPU median/min = kernel(s) only (CUDA events, {n} runs after {w} warm-ups); ")
    });
    println!(
        "Times: {gpu_note}CPU = whole call ({cpu_runs} runs after {cpu_warmups} warm-ups). e2e = alloc + poison + H2D + 1 run + D2H on the \
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

fn run_bench(
    config: &conv::bench::sweep::BenchConfig,
    peers: Option<&std::path::Path>,
    out: &std::path::Path,
) -> Result<()> {
    // Read before the GPU work, so a wrong path fails at once.
    let peers = peers
        .map(|path| {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            conv::bench::peers::parse(&text).with_context(|| format!("{}", path.display()))
        })
        .transpose()?;
    for &(w, h) in &config.sizes {
        conv::model::image::check_dims(w, h).context("--sizes")?;
    }
    for &k in &config.filter_sizes {
        conv::model::filter::check_size(k).context("--filters")?;
    }
    conv::model::filter::check_size(config.e2e_filter).context("--e2e-filter")?;
    if config.strips == 0 || config.streams == 0 {
        bail!("--strips and --streams must be at least 1");
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let gpu = Gpu::new().context("the benchmark needs a GPU")?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let (machine, rows) = conv::bench::sweep::run(&gpu, config, |r| {
        eprintln!("{}", conv::bench::sweep::cells(r).join("  "));
    })
    .context("running the benchmark")?;
    for line in conv::bench::sweep::machine_lines(&machine) {
        println!("{line}");
    }
    let table: Vec<Vec<String>> = rows.iter().map(conv::bench::sweep::cells).collect();
    print_table(&conv::bench::sweep::HEADERS, &table);
    let comparison = peers.map(|p| conv::bench::peers::compare(&rows, &p));
    if let Some(cases) = &comparison {
        println!(
            "\nAgainst the best g_fast row of peers.csv (f32, gray, zero border, warm; below 1 = faster):"
        );
        let table: Vec<Vec<String>> = cases.iter().map(conv::bench::peers::cells).collect();
        print_table(&conv::bench::peers::HEADERS, &table);
        match conv::bench::peers::geomean_ratio(cases) {
            Some(g) => println!(
                "geometric mean of ours / g_fast over {} cases: {g:.3}",
                cases.len()
            ),
            None => println!("no case was measured by both (same size and k, warm, f32)"),
        }
    }
    let e2e = conv::bench::sweep::end_to_end(&gpu, config, |r| {
        eprintln!("{}", conv::bench::sweep::e2e_cells(r).join("  "));
    })
    .context("running the end-to-end benchmark")?;
    println!();
    let table: Vec<Vec<String>> = e2e.iter().map(conv::bench::sweep::e2e_cells).collect();
    print_table(&conv::bench::sweep::E2E_HEADERS, &table);
    let cpu = conv::bench::sweep::cpu_times(config).context("timing the CPU")?;
    println!(
        "\ncpu-par ({} threads), f32, whole call: {}",
        rayon::current_num_threads(),
        cpu.iter()
            .map(|r| format!("{}x{} k={} {:.3} ms", r.width, r.height, r.filter_size, r.ms))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let mut markdown = conv::bench::sweep::markdown(&machine, &command, config.timing, &rows, &e2e);
    let mut files = vec![
        ("bench.csv", conv::bench::sweep::csv(&rows)),
        ("bench-cpu.csv", conv::bench::sweep::cpu_csv(&cpu)),
        ("bench-e2e.csv", conv::bench::sweep::e2e_csv(&e2e)),
    ];
    if let Some(cases) = &comparison {
        markdown += &conv::bench::peers::markdown(cases);
        files.push(("peers-ratio.csv", conv::bench::peers::csv(cases)));
    }
    files.push(("bench.md", markdown));
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
        conv::model::image::check_dims(w, h).context("--sizes")?;
    }
    for &k in filters.iter().flatten() {
        conv::model::filter::check_size(k).context("--filters")?;
    }
    for &c in channels.iter().flatten() {
        conv::model::image::check_channels(c).context("--channels")?;
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
/// [`conv::verify::sanitize::verify_runs`] for the cases).
fn sanitize(tools: &[String], sizes: &str) -> Result<()> {
    let sizes = sizes
        .split(',')
        .map(|size| {
            let (w, h) = parse_size(size).map_err(anyhow::Error::msg).context("--sizes")?;
            conv::model::image::check_dims(w, h).context("--sizes")?;
            Ok((w, h))
        })
        .collect::<Result<Vec<_>>>()?;
    let Some(sanitizer) = conv::verify::sanitize::find_sanitizer() else {
        bail!(
            "compute-sanitizer not found (set COMPUTE_SANITIZER, put it on PATH, or install the CUDA toolkit)"
        );
    };
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut failed = Vec::new();
    for tool in tools {
        for args in conv::verify::sanitize::verify_runs(&sizes) {
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
            let errors = conv::verify::sanitize::error_count(&text);
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
fn soak(config: &conv::verify::soak::SoakConfig, variant: Variant, cpu: bool) -> Result<()> {
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
        max_image_bytes: conv::io::files::default_max_image_bytes(),
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
    let report = conv::verify::soak::run(&mut engine, &settings, config, &free, |done, total| {
        if done % 500 == 0 || done == total {
            println!("  {done}/{total} images");
        }
    })?;
    let mib = |b: Option<usize>| b.map_or("-".to_string(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
    let decay = report.decay.map_or(
        format!(
            "throughput decay not checked (fewer than {} small images)",
            10 * conv::verify::soak::DECAY_MIN_PER_TENTH
        ),
        |d| {
            format!(
                "small-image throughput first tenth {:.1} MP/s, last tenth {:.1} MP/s (limit {}x decay)",
                d.first_tenth_mpx_s,
                d.last_tenth_mpx_s,
                conv::verify::soak::DECAY_FACTOR
            )
        },
    );
    println!(
        "images {}, {:.1} megapixels, {:.2} s; re-run checks {}; free device memory before {}, after {} (slack {} MiB); {decay}",
        report.images,
        report.megapixels,
        report.seconds,
        report.rechecked,
        mib(report.memory_before),
        mib(report.memory_after),
        conv::verify::soak::MEMORY_SLACK >> 20,
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
            println!(
                "kernels loaded from: {} in {:.1} ms",
                gpu.module_kind(),
                gpu.module_load_ms()
            );
        }
        Err(e) => println!("GPU: none ({e})"),
    }
    let directive = |name: &str| {
        conv::engine::gpu::PTX
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map_or("?", str::trim)
    };
    let kernels = conv::engine::gpu::PTX
        .lines()
        .filter(|l| l.contains(".entry "))
        .count();
    println!(
        "PTX target: {} (PTX ISA {}, {kernels} kernels); SASS: {}",
        directive(".target "),
        directive(".version "),
        if conv::engine::gpu::FATBIN.is_empty() {
            "none (built without ptxas: the first run JIT-compiles the PTX)"
        } else {
            "embedded for the PTX target"
        }
    );
    let k = gpu_kernels::launch::MAX_FILTER_SIZE;
    println!("largest filter: {k}x{k}");
}

/// Whether the `--json` document (or the failure document) was printed: exactly one is.
static JSON_PRINTED: AtomicBool = AtomicBool::new(false);

/// Prints `doc` as the `--json` document, unless one was printed already.
fn print_json(doc: &serde_json::Value) {
    if !JSON_PRINTED.swap(true, Ordering::SeqCst) {
        let text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "null".into());
        println!("{text}");
    }
}

/// The `--json` document of a run that failed before (or instead of) processing images: the same
/// fields as a full one, `error` set, the rest null or empty.
fn print_json_failure(error: &str, interrupted: Option<i32>) {
    print_json(&serde_json::json!({
        "schema": batch::JSON_SCHEMA,
        "error": error,
        "interrupted": interrupted.map(conv::io::interrupt::name),
        "gpu": null,
        "gpu_unavailable": null,
        "variant": null,
        "auto_choices": [],
        "filter": null,
        "border": null,
        "images": [],
        "summary": null,
    }));
}

/// Processes image files (`--input`); with `--json`, prints exactly one document on stdout, also
/// when the run fails before any image is processed.
fn run_files(args: &MainArgs, given: &Given) -> Result<()> {
    let result = process_files(args, given);
    if args.files.json
        && let Err(e) = &result
    {
        let interrupted = e.downcast_ref::<Interrupted>().map(|i| i.0);
        print_json_failure(&conv::io::files::one_line(&format!("{e:#}")), interrupted);
    }
    result
}

/// Refuses the main job's options that do nothing with files, naming the one that applies.
fn check_file_options(args: &MainArgs, given: &Given) -> Result<()> {
    let main_only = [
        (
            "size",
            "--size sets the main job's random image; RAW files take --width and --height",
        ),
        ("seed", "--seed seeds the main job's random image"),
        (
            "variants",
            "--variants lists the main job's GPU variants; for files use --variant NAME",
        ),
        (
            "separable",
            "--separable is the main job's; for files, --variant separable (or separable-fused) asks for it",
        ),
        ("runs", "--runs times the main job; files are processed once"),
        (
            "cpu_runs",
            "--cpu-runs times the main job; files are processed once",
        ),
    ];
    for (id, why) in main_only {
        if given.has(id) {
            bail!("{why}: it does nothing with --input");
        }
    }
    if args.cpu_only
        && let Some(v) = args.files.variant
        && !matches!(v, FileVariant::Cpu)
    {
        bail!(
            "--cpu-only means --variant cpu, which contradicts --variant {}: give one",
            v.name()
        );
    }
    Ok(())
}

impl FileVariant {
    fn name(self) -> &'static str {
        match self {
            FileVariant::Cpu => "cpu",
            FileVariant::Auto => "auto",
            FileVariant::Gpu(v) => v.name(),
        }
    }
}

/// Processes image files: one line per failure on stderr as it happens (and with `-v` one per
/// image written), a summary unless `--quiet`, a JSON document with `--json`; fails if any image
/// failed. SIGINT or SIGTERM stops the batch cleanly ([`conv::io::interrupt`]): exit code 130 or 143.
fn process_files(args: &MainArgs, given: &Given) -> Result<()> {
    let f = &args.files;
    check_file_options(args, given)?;
    let progress = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    {
        let (progress, json) = (progress.clone(), f.json);
        conv::io::interrupt::install(
            move |signal| {
                progress.suspend(|| {
                    eprintln!(
                        "interrupted by {}: no new image is started and the results being written are \
                         discarded; a second Ctrl-C stops at once",
                        conv::io::interrupt::name(signal)
                    );
                });
            },
            move |signal| {
                let name = conv::io::interrupt::name(signal);
                if json {
                    print_json_failure(
                        &format!("interrupted by a second signal ({name}): stopped at once"),
                        Some(signal),
                    );
                }
                eprintln!(
                    "error: interrupted by a second signal ({name}): stopped at once, temporary files removed"
                );
            },
        )
        .context("installing the SIGINT/SIGTERM handler")?;
    }
    let output = f
        .output
        .as_deref()
        .context("--input needs --output (a file, or a folder for many inputs)")?;
    let filter = args.filter.build()?;
    let inputs = batch::expand_inputs(&f.input).map_err(anyhow::Error::msg)?;
    if !inputs
        .iter()
        .any(|p| conv::io::files::Format::of(p) == Some(conv::io::files::Format::Raw))
    {
        for id in ["width", "height", "channels"] {
            if given.has(id) {
                bail!(
                    "--{id} gives the layout of RAW inputs (.raw, .f32, .bin), and there are none: it does \
                     nothing here"
                );
            }
        }
    }
    let items =
        batch::plan_outputs(&inputs, output, f.format.as_deref(), f.force).map_err(anyhow::Error::msg)?;
    let variant = if args.cpu_only {
        Some(FileVariant::Cpu)
    } else {
        f.variant
    };
    if let Some(FileVariant::Gpu(v)) = variant
        && v.needs_rank1()
        && filter.rank1().is_none()
    {
        bail!(
            "the {} variant needs a rank-1 filter (box, gaussian, sobel, identity, or a file with one)",
            v.name()
        );
    }
    let mut gpu_note = None;
    let gpu = match variant {
        Some(FileVariant::Cpu) => None,
        _ => match Gpu::new() {
            Ok(gpu) => Some(gpu),
            Err(e) => match variant {
                Some(FileVariant::Gpu(v)) => bail!("--variant {} needs a usable GPU: {e}", v.name()),
                // `auto`, given or not, falls back to the CPU.
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
        let note = conv::io::files::one_line(note);
        eprintln!("note: no usable GPU ({note}); processing on the CPU (cpu-par)");
    }
    let mut engine = match &gpu {
        Some(gpu) => batch::Engine::Gpu {
            gpu,
            choice: match variant {
                Some(FileVariant::Gpu(v)) => batch::Choice::Fixed(v),
                _ => batch::Choice::Auto(conv::engine::autotune::Tuner::load()),
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
        max_image_bytes: f
            .max_image_mem
            .map_or_else(conv::io::files::default_max_image_bytes, |b| b as u64),
        max_mem: f.max_gpu_mem,
        inject: conv::engine::fault::Injection::from_env()?,
    };
    progress.set_length(items.len() as u64);
    progress.set_style(batch::progress_style());
    let single = items.len() == 1;
    let verbose = f.verbose && !f.quiet;
    let report = |o: &batch::Outcome| match (o.status, &o.done) {
        (batch::Status::Written, Some(d)) if verbose => {
            let line = format!(
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
            // Stdout carries only the JSON document with --json.
            if f.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
        (batch::Status::Failed, _) if !single => {
            if let Some(e) = &o.error {
                eprintln!("error: {e}");
            }
        }
        _ => {}
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
        &report,
    );
    progress.finish_and_clear();
    let summary = batch::summarize(&outcomes, started.elapsed().as_secs_f64());
    let interrupted = conv::io::interrupt::signal();
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
        print_json(&serde_json::json!({
            "schema": batch::JSON_SCHEMA,
            "error": null,
            "interrupted": interrupted.map(conv::io::interrupt::name),
            "gpu": gpu_json,
            "gpu_unavailable": gpu_note,
            "variant": engine.name(),
            "auto_choices": auto_choices,
            "filter": args.filter.describe(&settings.filter),
            "border": args.border.name(),
            "images": outcomes,
            "summary": summary,
        }));
    }
    if single
        && outcomes[0].status == batch::Status::Failed
        && let Some(e) = &outcomes[0].error
    {
        bail!("{e}");
    }
    if !f.quiet && !f.json {
        for line in &auto_choices {
            eprintln!("{line}");
        }
    }
    if !f.quiet {
        let mut counts = format!("{} image(s), {} failed", summary.images, summary.failed);
        if summary.discarded > 0 {
            counts += &format!(", {} discarded", summary.discarded);
        }
        if summary.not_processed > 0 {
            counts += &format!(", {} not processed", summary.not_processed);
        }
        eprintln!(
            "{counts}, {:.2} s, {:.1} megapixels/s, {}",
            summary.seconds,
            summary.megapixels_per_s,
            match &gpu {
                Some(g) => format!("{} on {}", engine.name(), g.info().name),
                None => "cpu-par on the CPU".to_string(),
            }
        );
    }
    if let Some(signal) = interrupted {
        let unwritten: Vec<String> = outcomes
            .iter()
            .filter(|o| o.status != batch::Status::Written)
            .map(|o| o.input.display().to_string())
            .collect();
        let listed = match unwritten.len() {
            0 => String::new(),
            n if n <= 5 => format!(": {}", unwritten.join(", ")),
            n => format!(": {} and {} more", unwritten[..3].join(", "), n - 3),
        };
        eprintln!(
            "interrupted by {}: {} image(s) written whole, {} discarded while being written (nothing left), \
             {} not processed; not written{listed}",
            conv::io::interrupt::name(signal),
            summary.written,
            summary.discarded,
            summary.not_processed,
        );
        return Err(Interrupted(signal).into());
    }
    if summary.not_processed > 0 {
        eprintln!(
            "error: the batch stopped at a device fault; {} image(s) not processed",
            summary.not_processed
        );
    }
    let unsuccessful = summary.failed + summary.not_processed + summary.discarded;
    if unsuccessful > 0 {
        bail!("{} of {} image(s) failed", unsuccessful, summary.images);
    }
    Ok(())
}
