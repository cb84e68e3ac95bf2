//! clap's argument structs of the top level: the main job's options, the image files' options,
//! the filter's options, and the subcommands (whose own options live in their modules).

use super::names;
use super::usage::UsageError;
use super::values::{
    check_shape, parse_bytes, parse_compress, parse_count, parse_file_variant, parse_finite, parse_gpus,
    parse_origin, parse_quality, parse_seed, parse_shape, parse_shard, parse_sigma, parse_taps,
    parse_variant,
};
use super::{api_bench, bench, cpu_time, info, merge, sanitize, scale, soak, verify};
use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use ferroconv::engine::gpu::{GpuSelection, Variant};
use ferroconv::io::files::TiffCompression;
use ferroconv::model::filter::{FilterKind, MAX_SEPARABLE_SIZE, gaussian_size};
use ferroconv::named::Named as _;
use ferroconv::{Border, DType, Filter};
use host_tools::batch::shard::Shard;
use host_tools::verify::jobs::SeparableMode;
use std::path::PathBuf;

/// 2D image convolution on NVIDIA GPUs with kernels written in Rust.
///
/// Without a subcommand or --input, runs the main job: convolves a reproducible random image with
/// every CPU and GPU variant, checks each against an f64 CPU reference, and prints one table.
/// With --input, convolves image files (PNG, JPEG, TIFF, BMP, PGM/PPM/PNM/PAM, RAW f32).
#[derive(Parser, Debug)]
#[command(version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub main: MainArgs,
}

#[derive(clap::Args, Debug)]
pub struct MainArgs {
    /// Side of the square test image, in pixels.
    #[arg(long, default_value_t = 2048, allow_negative_numbers = true, value_parser = parse_count)]
    pub size: usize,
    /// Image width (overrides --size; with --input, the width of RAW f32 files).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count)]
    pub width: Option<usize>,
    /// Image height (overrides --size; with --input, the height of RAW f32 files).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_count)]
    pub height: Option<usize>,
    /// Channels of the test image (with --input, of RAW f32 files): 1 (gray), 3 (RGB), 4 (RGBA;
    /// alpha is copied).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_count)]
    pub channels: usize,
    /// Sample type of the test image (default f32; with --input, default: keep the file's);
    /// integer results are clamped to [0, 1] and rounded.
    #[arg(long, value_parser = names::dtype())]
    pub dtype: Option<DType>,
    /// Seed of the random test image.
    #[arg(long, default_value_t = 42, allow_negative_numbers = true, value_parser = parse_seed)]
    pub seed: u64,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// How pixels outside the image are treated.
    #[arg(long, value_parser = names::border(), default_value = "zero")]
    pub border: Border,
    /// The value of pixels outside the image under --border constant, in sample levels of the
    /// type filtered (the file's, or --dtype's), as OpenCV's borderValue and scipy's cval: a
    /// whole number from 0 to 255 for 8-bit images, 0 to 65535 for 16-bit ones, any finite
    /// value for f32 (default 0).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_finite)]
    pub cval: Option<f64>,
    /// Clamp f32 results to [0, 1].
    #[arg(long)]
    pub clamp: bool,
    /// Include the separable variant: on (filter must be rank-1), off, or auto (when rank-1).
    #[arg(long, value_parser = names::separable(), default_value = "auto")]
    pub separable: SeparableMode,
    /// GPU variants to run, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = parse_variant)]
    pub variants: Option<Vec<Variant>>,
    /// Timed kernel launches per GPU variant, at least 1 (after 3 warm-up launches).
    #[arg(long, default_value_t = 20, allow_negative_numbers = true, value_parser = parse_count)]
    pub runs: usize,
    /// Timed runs per CPU variant, at least 1 (after 3 warm-up runs).
    #[arg(long, default_value_t = 3, allow_negative_numbers = true, value_parser = parse_count)]
    pub cpu_runs: usize,
    /// Skip the GPU even if one is present (with --input: the same as --variant cpu).
    #[arg(long)]
    pub cpu_only: bool,
    #[command(flatten)]
    pub files: FileArgs,
}

/// Processing image files instead of the main job.
#[derive(clap::Args, Debug)]
pub struct FileArgs {
    /// Image files, folders of images, or glob patterns to process (repeatable; one -i may be
    /// followed by several, as a shell-expanded glob gives).
    #[arg(long, short, num_args = 1.., action = clap::ArgAction::Append)]
    pub input: Vec<PathBuf>,
    /// Enter the sub-folders of input folders (not through symbolic links); the results mirror
    /// the tree under the output folder.
    #[arg(long, short, requires = "input")]
    pub recursive: bool,
    /// Output file, or folder (which must exist) for many inputs. Never overwrites an input.
    #[arg(long, short, requires = "input")]
    pub output: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(long, requires = "input")]
    pub force: bool,
    /// Skip the inputs whose result exists (results appear only whole, so an existing one is
    /// complete; its settings are not compared): a re-run of an interrupted batch, or a restarted
    /// job-array task, does only what is left.
    #[arg(long, requires = "input", conflicts_with = "force")]
    pub skip_existing: bool,
    /// Extension (format) of the results in an output folder (default: each input's).
    #[arg(long, requires = "input")]
    pub format: Option<String>,
    /// The page of multi-page TIFF inputs to filter, 0-based (as tifffile counts); without it a
    /// multi-page TIFF fails with an error rather than losing its other pages.
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_count)]
    pub page: Option<usize>,
    /// Filter the pixels as stored and keep the Exif orientation tag (default: apply the
    /// orientation, as OpenCV's imread does, and set the tag to 1).
    #[arg(long, requires = "input")]
    pub keep_orientation: bool,
    /// Results in sample counts, keeping their sign (OpenCV's ddepth): `f32` for any input, or
    /// `i16` for 8- and 16-bit input (TIFF only; rounded and saturated). A result is its value
    /// in levels (0-255 for 8-bit input, not the 0-1 of --dtype f32) × --scale + --delta.
    #[arg(long, requires = "input", value_parser = ["f32", "i16"], conflicts_with_all = ["dtype", "clamp"])]
    pub out_dtype: Option<String>,
    /// With --out-dtype, multiply the results by this (default 1; cv2.Sobel's scale).
    #[arg(long, requires = "out_dtype", allow_negative_numbers = true, value_parser = parse_finite)]
    pub scale: Option<f64>,
    /// With --out-dtype, add this to the results, in levels (default 0; cv2.filter2D's delta).
    #[arg(long, requires = "out_dtype", allow_negative_numbers = true, value_parser = parse_finite)]
    pub delta: Option<f64>,
    /// JPEG quality of JPEG results, 1 to 100 (default 95, as OpenCV's).
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_quality)]
    pub quality: Option<u8>,
    /// Compression of TIFF results, `none` (the default), `lzw` or `deflate` (lossless, with the
    /// horizontal predictor for 8- and 16-bit samples); or of PNG results, a zlib level from 0
    /// (stored) to 9 (smallest).
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_compress)]
    pub compress: Option<Compress>,
    /// The one variant for files: `auto` (the default: the fastest for each image's problem class,
    /// measured once per GPU model and cached), a GPU variant, or `cpu`; the CPU is used when no
    /// GPU is usable and no GPU variant was asked for.
    #[arg(long, requires = "input", value_parser = parse_file_variant)]
    pub variant: Option<FileVariant>,
    /// GPUs to use: all (the default: every visible one, after CUDA_VISIBLE_DEVICES), a count N
    /// (the first N), or a list of GPU numbers (0,2; one GPU as 1,). Each image's strips are
    /// dealt to the GPUs, each with its own context, buffers and stream.
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_gpus)]
    pub gpus: Option<GpuSelection>,
    /// Device memory one image may use, e.g. 256M or 2G (default: 90% of the free GPU memory);
    /// larger images are processed in horizontal strips. Also bounds the CPU path's strips.
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_bytes)]
    pub max_gpu_mem: Option<usize>,
    /// Memory one decoded image may take, e.g. 512M or 8G (default: a quarter of the machine's
    /// memory); a larger image, or one whose header claims so, is refused before decoding, but
    /// for a binary PGM or PPM with a PGM or PPM result, which is streamed in strips of rows.
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_bytes)]
    pub max_image_mem: Option<usize>,
    /// Process only shard I of N of the inputs (0-based, e.g. 3/8): the inputs are split by a
    /// hash of each one's path relative to its input root, the same on every machine; `off`
    /// processes them all. Without it, a Slurm job array (SLURM_ARRAY_TASK_ID) or a Kubernetes
    /// Indexed Job (JOB_COMPLETION_INDEX) picks the shard.
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_shard)]
    pub shard: Option<ShardChoice>,
    /// The shard count of a Kubernetes Indexed Job (its completions), for JOB_COMPLETION_INDEX
    /// (default: the CONV_SHARD_COUNT variable).
    #[arg(long, requires = "input", allow_negative_numbers = true, value_parser = parse_count)]
    pub shard_count: Option<usize>,
    /// Print one JSON document with every image's results on stdout, and nothing else there.
    #[arg(long, requires = "input")]
    pub json: bool,
    /// Print only errors.
    #[arg(long, short, requires = "input", conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print a line per image.
    #[arg(long, short, requires = "input")]
    pub verbose: bool,
}

/// What `--shard` asks for.
#[derive(Clone, Copy, Debug)]
pub enum ShardChoice {
    /// Every input, even inside a job array.
    Off,
    Shard(Shard),
}

/// The engine `--variant` asks for.
#[derive(Clone, Copy, Debug)]
pub enum FileVariant {
    Cpu,
    Auto,
    Gpu(Variant),
}

/// A list of filter taps (`--kernel-x`, `--kernel-y`).
#[derive(Clone, Debug, PartialEq)]
pub struct TapList(pub Vec<f32>);

/// `--compress`: for TIFF results or for PNG ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compress {
    /// A TIFF compression.
    Tiff(TiffCompression),
    /// A PNG zlib level, 0 to 9.
    Png(u8),
}

impl MainArgs {
    /// The border the options describe: `--border`, with `--cval` for the constant one (whether
    /// the images' sample type holds it is checked where the type is known:
    /// [`usage::check_cval`](super::usage::check_cval)).
    pub fn border(&self) -> Result<Border> {
        match (self.border, self.cval) {
            // A value past f32's range is refused as one that the images' type cannot hold: exit 2.
            (Border::Constant(_), cval) => {
                Ok(Border::constant(cval.unwrap_or(0.0)).map_err(|e| UsageError(format!("--cval: {e}")))?)
            }
            (_, Some(_)) => bail!(
                "--cval sets the value of --border constant, not of --border {}",
                self.border.name()
            ),
            (border, None) => Ok(border),
        }
    }
}

impl FileVariant {
    pub fn name(self) -> &'static str {
        match self {
            FileVariant::Cpu => "cpu",
            FileVariant::Auto => "auto",
            FileVariant::Gpu(v) => v.name(),
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct FilterArgs {
    /// Filter size: K (K×K) or RxC (rows × columns, e.g. 3x7), sides 1 to 127, odd except for
    /// box; box and gaussian (rank 1) up to 1023 (default 5; a Gaussian given --sigma, sized from
    /// it).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_shape)]
    pub mask: Option<(usize, usize)>,
    /// Which built-in filter to apply.
    #[arg(long, value_parser = names::filter(), default_value = "box")]
    pub filter: FilterKind,
    /// Standard deviation of the gaussian filter, a positive number (default: OpenCV's
    /// getGaussianKernel(k, 0) taps for the size).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_sigma)]
    pub sigma: Option<f64>,
    /// The Gaussian's standard deviation down, where it differs from --sigma's (across).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_sigma, requires = "sigma")]
    pub sigma_y: Option<f64>,
    /// Without --mask, the Gaussian is cut at this many standard deviations (scipy's rule: radius
    /// int(truncate × sigma + 0.5); default 4, as scipy's).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_sigma, requires = "sigma")]
    pub truncate: Option<f64>,
    /// Read the filter from a text file: one row per line, numbers separated by whitespace, `#`
    /// starts a comment; any rectangle up to 127x127 (1023x1023 if rank-1), centred on tap (rows/2,
    /// cols/2) as scipy's.
    #[arg(long, conflicts_with_all = ["mask", "filter", "sigma", "sigma_y", "truncate"])]
    pub filter_file: Option<PathBuf>,
    /// A separable filter's taps across (cv2's sepFilter2D kernelX), comma- or space-separated, 1
    /// to 1023; with --kernel-y (default 1) the filter is their outer product.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_taps,
          conflicts_with_all = ["mask", "filter", "sigma", "filter_file"])]
    pub kernel_x: Option<TapList>,
    /// A separable filter's taps down (cv2's sepFilter2D kernelY); see --kernel-x.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_taps,
          conflicts_with_all = ["mask", "filter", "sigma", "filter_file"])]
    pub kernel_y: Option<TapList>,
    /// Flip the filter (true convolution instead of correlation; an even side's centre moves as
    /// scipy.ndimage.convolve moves it).
    #[arg(long)]
    pub flip: bool,
    /// Move the filter's centre by DY,DX taps from (rows/2, cols/2), with scipy's `origin`
    /// meaning and sign (positive: the filter moves up and left); applied before --flip.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_origin)]
    pub origin: Option<(isize, isize)>,
}

impl FilterArgs {
    /// The filter the options describe.
    pub fn build(&self) -> Result<Filter> {
        if self.sigma.is_some() && self.filter != FilterKind::Gaussian {
            bail!(
                "--sigma applies only to --filter gaussian, not to --filter {}",
                self.filter.name()
            );
        }
        let filter = match (&self.filter_file, &self.kernel_x, &self.kernel_y) {
            (None, None, None) => None,
            (None, kx, ky) => Some(
                Filter::separable(
                    ky.as_ref().map_or(&[1.0][..], |t| &t.0),
                    kx.as_ref().map_or(&[1.0][..], |t| &t.0),
                )
                .context("--kernel-x/--kernel-y")?,
            ),
            _ => None,
        };
        let filter = match (&self.filter_file, filter) {
            (_, Some(f)) => f,
            (Some(path), None) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read filter file {}", path.display()))?;
                Filter::parse(&text).with_context(|| format!("filter file {}", path.display()))?
            }
            (None, None) => match self.sigma {
                Some(sigma_x) => {
                    let sigma_y = self.sigma_y.unwrap_or(sigma_x);
                    if self.mask.is_some() && self.truncate.is_some() {
                        bail!(
                            "--truncate sizes the Gaussian from --sigma, and --mask gives its size: give one"
                        );
                    }
                    let truncate = self.truncate.unwrap_or(4.0);
                    // scipy's size; None past the largest Gaussian (where gaussian_size's
                    // 2·radius + 1 would overflow, as for --sigma 1e30).
                    let sized = |sigma: f64| {
                        (truncate * sigma < MAX_SEPARABLE_SIZE as f64).then(|| gaussian_size(sigma, truncate))
                    };
                    // Every option that sizes it, so that an error names the one at fault.
                    let given = [
                        ("--sigma", Some(sigma_x)),
                        ("--sigma-y", self.sigma_y),
                        ("--truncate", self.truncate),
                    ]
                    .into_iter()
                    .filter_map(|(name, v)| v.map(|v| format!("{name} {v}")))
                    .collect::<Vec<_>>()
                    .join(" ");
                    let shape = match self.mask {
                        Some((rows, cols)) => {
                            for (k, sigma, axis) in [(rows, sigma_y, "down"), (cols, sigma_x, "across")] {
                                if ((k / 2) as f64) < 3.0 * sigma {
                                    eprintln!(
                                        "note: {k} taps {axis} of a Gaussian of sigma {sigma} end within 3 sigma \
                                         of its centre (radius {} < {}), so it is nearer a box: without --mask \
                                         the size comes from sigma ({} taps at scipy's truncate 4)",
                                        k / 2,
                                        3.0 * sigma,
                                        sized(sigma)
                                            .map_or(format!("over {MAX_SEPARABLE_SIZE}"), |n| n.to_string()),
                                    );
                                }
                            }
                            (rows, cols)
                        }
                        None => match (sized(sigma_y), sized(sigma_x)) {
                            (Some(rows), Some(cols)) => (rows, cols),
                            _ => bail!(
                                "{given} asks for a Gaussian wider than the largest, {MAX_SEPARABLE_SIZE} taps"
                            ),
                        },
                    };
                    Filter::gaussian(shape, sigma_y, sigma_x)
                        .with_context(|| format!("{given} asks for a {}x{} Gaussian", shape.0, shape.1))?
                }
                None => {
                    let shape = self.mask.unwrap_or((5, 5));
                    check_shape(shape).context("--mask/--filter")?;
                    Filter::builtin_rect(self.filter, shape, None).context("--mask/--filter")?
                }
            },
        };
        let filter = match self.origin {
            Some(origin) => filter.with_origin(origin).context("--origin")?,
            None => filter,
        };
        Ok(if self.flip { filter.flipped() } else { filter })
    }

    /// The filter in words, e.g. `box filter 5x5, rank-1`.
    pub fn describe(&self, filter: &Filter) -> String {
        let name = match &self.filter_file {
            Some(p) => format!("file {}", p.display()),
            None if self.kernel_x.is_some() || self.kernel_y.is_some() => "separable (--kernel-x/-y)".into(),
            None => self.filter.name().to_string(),
        };
        let flip = if self.flip { ", flipped (convolution)" } else { "" };
        let rank = if filter.rank1().is_some() { ", rank-1" } else { "" };
        let (rows, cols) = filter.shape();
        let square = if filter.is_square() {
            String::new()
        } else {
            format!(" (run as {0}x{0})", filter.size())
        };
        format!("{name} filter {rows}x{cols}{square}{rank}{flip}")
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Time variants over sizes, filter sizes and sample types against this GPU's roofline (its
    /// measured copy bandwidth and FP32 peak); print a table and write bench.csv and bench.md.
    Bench(bench::BenchArgs),
    /// Check every variant against the f64 CPU reference over sizes, borders, channel counts,
    /// sample types and filter sizes (default: the standard ladder, see docs/testing.md).
    Verify(verify::VerifyArgs),
    /// Describe the GPU (name, compute capability, SMs, memory, driver), the embedded PTX's target
    /// and the largest filter; works without a GPU.
    Info(info::InfoArgs),
    /// Run every variant at awkward sizes under compute-sanitizer (memcheck, racecheck,
    /// synccheck, initcheck); a case set is one tool's run of one variant, its PASS/FAIL line
    /// printed as it ends (sizes over 100,000 pixels run a reduced set: k 3 and 17, zero,
    /// symmetric and constant, gray and RGBA, f32); --variants and --shard K/N split the suite;
    /// fails on any reported error.
    Sanitize(sanitize::SanitizeArgs),
    /// Long run on the GPU: many small and some large random images through the batch engine in
    /// one process; checks re-runs, device memory and throughput decay.
    Soak(soak::SoakArgs),
    /// Time the CPU engine in-process on one random image and filter (compute time only; the
    /// image is made once, before the warm-ups) and print each run's milliseconds, one per line:
    /// the host side of `cargo xtask cpu-bench`.
    CpuTime(cpu_time::CpuTimeArgs),
    /// Work with the `--json` documents of files runs (`report merge`: a batch's shards as one).
    Report(merge::ReportArgs),
    /// The GPU stage (copy in, kernel, copy out; images in host memory) on 1, 2, ... GPUs: a batch
    /// of images and one large image in strips over the GPUs; speed-ups and bit-identity.
    Scale(scale::ScaleArgs),
    /// Time the library's plan API against its references on this GPU: host memory in and out
    /// against pageable and pinned copies, device memory against direct launches, a batch, and
    /// the CPU engine into the caller's buffer; one table per question with each row's verdict.
    ApiBench(api_bench::ApiBenchArgs),
}

impl Command {
    /// Runs the subcommand.
    pub fn run(self) -> Result<()> {
        match self {
            Command::Bench(args) => bench::run(args),
            Command::Verify(args) => verify::run(args),
            Command::Info(args) => info::run(&args),
            Command::Sanitize(args) => sanitize::run(&args),
            Command::Soak(args) => soak::run(&args),
            Command::CpuTime(args) => cpu_time::run(&args),
            Command::Report(args) => merge::run(&args),
            Command::Scale(args) => scale::run(&args),
            Command::ApiBench(args) => api_bench::run(&args),
        }
    }
}
