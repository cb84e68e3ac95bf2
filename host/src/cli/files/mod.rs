//! Image files (`--input`): checks the options, plans the outputs, picks the engine (a GPU
//! variant, `auto`, or the CPU), runs the batch, and reports (see [`report`]).

mod report;

use super::args::{Compress, FileArgs, FileVariant, MainArgs, ShardChoice};
use super::interrupt::{self, Interrupted};
use super::json;
use super::usage::{self, Given};
use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::{Gpu, GpuSelection};
use ferroconv::io::files::{Encoding, Format, RawLayout};
use ferroconv::{DType, Filter};
use host_tools::batch;
use host_tools::batch::inputs;
use host_tools::batch::shard::{Shard, ShardSource};
use indicatif::{ProgressBar, ProgressDrawTarget};
use report::Sharding;
use std::io::IsTerminal as _;
use std::time::Instant;

/// Processes image files; with `--json`, prints exactly one document on stdout, also when the
/// run fails before any image is processed.
pub fn run(args: &MainArgs, given: &Given) -> Result<()> {
    let result = process(args, given);
    if args.files.json
        && let Err(e) = &result
    {
        let interrupted = e.downcast_ref::<Interrupted>().map(|i| i.0);
        json::print_failure(&ferroconv::io::files::one_line(&format!("{e:#}")), interrupted);
    }
    result
}

/// Processes image files: one line per failure on stderr as it happens (and with `-v` one per
/// image written), a summary unless `--quiet`, a JSON document with `--json`; fails if any image
/// failed. SIGINT or SIGTERM stops the batch cleanly ([`ferroconv::io::interrupt`]): exit code 130 or 143.
fn process(args: &MainArgs, given: &Given) -> Result<()> {
    let f = &args.files;
    check_options(args, given)?;
    let progress = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    interrupt::install(&progress, f.json)?;
    let Plan {
        items,
        skipped,
        filter,
        variant,
        sharding,
    } = plan(args, given)?;
    check_cval(args, &items)?;
    if let Some(s) = &sharding
        && !f.quiet
    {
        eprintln!("{}: {} of {} input(s)", s.shard, items.len(), s.total);
    }
    let (gpus, gpu_note) = open_gpus(variant, f.gpus.as_ref())?;
    if let Some(note) = &gpu_note
        && !f.quiet
    {
        let note = ferroconv::io::files::one_line(note);
        eprintln!("note: no usable GPU ({note}); processing on the CPU (cpu-par)");
    }
    let mut engines: Vec<batch::Engine> = gpus
        .iter()
        .map(|gpu| {
            let choice = match variant {
                Some(FileVariant::Gpu(v)) => batch::Choice::Fixed(v),
                _ => batch::Choice::Auto(Some(ferroconv::engine::autotune::Tuner::load())),
            };
            batch::Engine::gpu(gpu, choice)
        })
        .collect();
    if engines.is_empty() {
        engines.push(batch::Engine::Cpu);
    }
    let settings = settings(args, filter)?;
    progress.set_length(items.len() as u64);
    progress.set_style(batch::progress_style());
    let lines = report::Lines {
        verbose: f.verbose && !f.quiet,
        failures: items.len() != 1,
        json: f.json,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().div_ceil(2).min(8));
    let started = Instant::now();
    let outcomes = batch::run(
        &items,
        &settings,
        &mut engines,
        threads,
        &progress,
        !f.quiet && std::io::stderr().is_terminal(),
        &|o| lines.print(o),
    );
    progress.finish_and_clear();
    let summary = batch::summarize(&outcomes, started.elapsed().as_secs_f64());
    report::finish(&report::Batch {
        args,
        settings: &settings,
        engine: &engines[0],
        gpus: &gpus,
        gpu_note,
        outcomes: &outcomes,
        summary: &summary,
        sharding: sharding.as_ref(),
        skipped,
    })
}

/// Refuses the main job's options that do nothing with files, naming the one that applies.
fn check_options(args: &MainArgs, given: &Given) -> Result<()> {
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

/// What a files run does.
struct Plan {
    /// This process's inputs and where their results go.
    items: Vec<inputs::Item>,
    /// This process's inputs skipped since their results exist (`--skip-existing`).
    skipped: usize,
    filter: Filter,
    /// The variant asked for (`None`: `auto` by default).
    variant: Option<FileVariant>,
    /// The shard this process is, when the inputs are split.
    sharding: Option<Sharding>,
}

/// The batch's plan; refuses RAW layout options without RAW inputs, and a rank-1 variant with a
/// filter that is not.
fn plan(args: &MainArgs, given: &Given) -> Result<Plan> {
    let f = &args.files;
    let output = f
        .output
        .as_deref()
        .context("--input needs --output (a file, or a folder for many inputs)")?;
    let filter = args.filter.build()?;
    let inputs::Expanded {
        inputs,
        skipped_folders,
    } = inputs::expand_inputs(&f.input, f.recursive).map_err(anyhow::Error::msg)?;
    if skipped_folders > 0 && !f.quiet {
        eprintln!(
            "note: {skipped_folders} sub-folder(s) of the input folders skipped (--recursive enters them)"
        );
    }
    let shard = match f.shard {
        Some(ShardChoice::Off) => None,
        Some(ShardChoice::Shard(s)) => Some(s),
        None => {
            Shard::from_env(|name| std::env::var(name).ok(), f.shard_count).map_err(anyhow::Error::msg)?
        }
    };
    if f.shard_count.is_some() && shard.is_none_or(|s| s.source != ShardSource::Kubernetes) {
        bail!(
            "--shard-count gives a Kubernetes Indexed Job's shard count, and no JOB_COMPLETION_INDEX picks the shard here"
        );
    }
    let total = inputs.len();
    if !inputs.iter().any(|i| Format::of(&i.path) == Some(Format::Raw)) {
        for id in ["width", "height", "channels"] {
            if given.has(id) {
                bail!(
                    "--{id} gives the layout of RAW inputs (.raw, .f32, .bin), and there are none: it does \
                     nothing here"
                );
            }
        }
    }
    let own = |n: usize| shard.is_none_or(|s| s.owns(&inputs[n].key));
    let existing = if f.force {
        inputs::Existing::Replace
    } else if f.skip_existing {
        inputs::Existing::Skip
    } else {
        inputs::Existing::Refuse
    };
    let (items, skipped) = inputs::plan_outputs(&inputs, output, f.format.as_deref(), existing, own)
        .map_err(anyhow::Error::msg)?;
    check_encoder_options(f, &items)?;
    let sharding = shard.map(|shard| Sharding { shard, total });
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
    if let Some(FileVariant::Gpu(v)) = variant
        && filter.radius() > v.spec().max_radius
    {
        let side = 2 * v.spec().max_radius + 1;
        bail!("the {} variant takes filters up to {side}x{side}", v.name());
    }
    Ok(Plan {
        items,
        skipped,
        filter,
        variant,
        sharding,
    })
}

/// Refuses a `--cval` that the sample type filtered cannot hold (exit 2): `--dtype`'s, else each
/// input's, read from its header (each page's, for a multi-page TIFF). Whole levels from 0 to
/// 255 fit every type, so for them no file is opened. A file that cannot be read here fails on
/// its own when the batch reads it (which checks every page again).
fn check_cval(args: &MainArgs, items: &[inputs::Item]) -> Result<()> {
    let border = args.border()?;
    if let Some(d) = args.dtype {
        return usage::check_cval(border, args.cval, d, &format!("--dtype {}", d.suffix()));
    }
    if DType::ALL
        .iter()
        .all(|&d| usage::check_cval(border, args.cval, d, "").is_ok())
    {
        return Ok(());
    }
    for item in items {
        for d in ferroconv::io::files::sample_types(&item.input, args.files.page).unwrap_or_default() {
            usage::check_cval(border, args.cval, d, &ferroconv::io::files::shown(&item.input))?;
        }
    }
    Ok(())
}

/// The GPUs for `variant` (those `--gpus` selects; default: every visible one), or none (for
/// `cpu`); without a usable GPU, a GPU variant fails and `auto` (given or not) falls back to the
/// CPU, with the reason as the second value. A selection the GPUs cannot meet is an error.
fn open_gpus(
    variant: Option<FileVariant>,
    selection: Option<&GpuSelection>,
) -> Result<(Vec<Gpu>, Option<String>)> {
    if let Some(FileVariant::Cpu) = variant {
        if selection.is_some() {
            bail!("--gpus selects GPUs, and --variant cpu (or --cpu-only) uses none: give one");
        }
        return Ok((Vec::new(), None));
    }
    let mut note = None;
    let gpus = super::gpu::open_selected(selection.cloned().unwrap_or_default(), |e| match variant {
        Some(FileVariant::Gpu(v)) => bail!("--variant {} needs a usable GPU: {e}", v.name()),
        _ if selection.is_some() => bail!("--gpus needs a usable GPU: {e}"),
        _ => {
            note = Some(e.to_string());
            Ok(())
        }
    })?;
    Ok((gpus, note))
}

/// The batch's settings from the options (and the fault injection the environment asks for).
fn settings(args: &MainArgs, filter: Filter) -> Result<batch::Settings> {
    Ok(batch::Settings {
        filter,
        border: args.border()?,
        clamp: args.clamp,
        dtype: args.dtype,
        raw: RawLayout {
            width: args.width,
            height: args.height,
            channels: args.channels,
        },
        max_image_bytes: args
            .files
            .max_image_mem
            .map_or_else(ferroconv::io::files::default_max_image_bytes, |b| b as u64),
        max_mem: args.files.max_gpu_mem,
        inject: host_tools::engine::fault::Injection::from_env()?,
        encoding: encoding(&args.files),
        keep_orientation: args.files.keep_orientation,
        page: args.files.page,
        counts: args.files.out_dtype.as_ref().map(|_| batch::Counts {
            scale: args.files.scale.unwrap_or(1.0),
            delta: args.files.delta.unwrap_or(0.0),
        }),
    })
}

/// The encoder's choices from `--quality` and `--compress`.
fn encoding(f: &FileArgs) -> Encoding {
    let default = Encoding::default();
    Encoding {
        jpeg_quality: f.quality.unwrap_or(default.jpeg_quality),
        tiff: match f.compress {
            Some(Compress::Tiff(c)) => c,
            _ => default.tiff,
        },
        png_level: match f.compress {
            Some(Compress::Png(level)) => Some(level),
            _ => default.png_level,
        },
        int16: f.out_dtype.as_deref() == Some("i16"),
    }
}

/// Refuses `--quality` or `--compress` where no result of this run is in a format it applies to,
/// and `--out-dtype i16` where a result is not TIFF.
fn check_encoder_options(f: &FileArgs, items: &[inputs::Item]) -> Result<()> {
    let none_is = |format| !items.is_empty() && !items.iter().any(|i| Format::of(&i.output) == Some(format));
    if f.out_dtype.as_deref() == Some("i16")
        && let Some(other) = items.iter().find(|i| Format::of(&i.output) != Some(Format::Tiff))
    {
        bail!(
            "--out-dtype i16 writes 16-bit signed TIFF, and {} is not .tif: give --format tif",
            ferroconv::io::files::shown(&other.output)
        );
    }
    if let Some(q) = f.quality
        && none_is(Format::Jpeg)
    {
        bail!("--quality {q} sets the quality of JPEG results, and no result here is JPEG");
    }
    match f.compress {
        Some(Compress::Tiff(_)) if none_is(Format::Tiff) => {
            bail!("--compress none, lzw and deflate apply to TIFF results, and no result here is TIFF")
        }
        Some(Compress::Png(level)) if none_is(Format::Png) => {
            bail!(
                "--compress {level} is a PNG level, and no result here is PNG (TIFF takes none, lzw or deflate)"
            )
        }
        _ => Ok(()),
    }
}
