//! What a files run prints: a line per image as it finishes, then the `--json` document, the
//! summary line, the account of an interruption, and the verdict.

use crate::cli::args::MainArgs;
use crate::cli::{interrupt, json};
use anyhow::{Result, bail};
use ferroconv::engine::gpu::Gpu;
use ferroconv::io::files::shown;
use host_tools::batch::shard::{Shard, ShardSource};
use host_tools::batch::{self, Engine, Outcome, Settings, Status, Summary};

/// Which lines are printed as images finish.
pub struct Lines {
    /// A line per image written (`-v` without `-q`).
    pub verbose: bool,
    /// A line per failed image (a single image's failure is the run's error instead).
    pub failures: bool,
    /// Whether stdout carries only the JSON document (the per-image lines then go to stderr).
    pub json: bool,
}

impl Lines {
    /// The line for `o`, if any.
    pub fn print(&self, o: &Outcome) {
        match (o.status, &o.done) {
            (Status::Written, Some(d)) if self.verbose => {
                let line = format!(
                    "{} -> {}: {} x{} {}, {}, {} strip(s), {:.2} ms",
                    shown(&o.input),
                    shown(&o.output),
                    sizes(d),
                    d.channels,
                    d.dtype,
                    d.compute.variant,
                    d.strips,
                    d.compute.compute_ms
                );
                // Stdout carries only the JSON document with --json.
                if self.json {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            }
            (Status::Failed, _) if self.failures => {
                if let Some(e) = &o.error {
                    eprintln!("error: {e}");
                }
            }
            _ => {}
        }
    }
}

/// A result's size for its `-v` line: `WxH`, or for a multi-page TIFF its pages and their sizes
/// (`3 pages (4x3, 5x2, 4x3)`, `40 pages of 64x64`; the first 8 listed).
fn sizes(d: &batch::Done) -> String {
    const LISTED: usize = 8;
    let size = |[w, h]: [usize; 2]| format!("{w}x{h}");
    match d.page_sizes.as_slice() {
        [] | [_] => format!("{}x{}", d.width, d.height),
        [first, rest @ ..] if rest.iter().all(|s| s == first) => {
            format!("{} pages of {}", rest.len() + 1, size(*first))
        }
        all => {
            let listed: Vec<String> = all.iter().take(LISTED).map(|&s| size(s)).collect();
            let more = if all.len() > LISTED { ", ..." } else { "" };
            format!("{} pages ({}{more})", all.len(), listed.join(", "))
        }
    }
}

/// The filter's taps for the settings: listed up to 31 × 31 (what every GPU variant runs), else
/// summarized (a Gaussian of sigma 127 has over a million): its shape, tap count, sum, and the
/// 64-bit FNV-1a digest of its square's taps as little-endian `f32` bytes (in hex), which tells
/// two filters apart as the list did.
fn taps(filter: &ferroconv::Filter) -> serde_json::Value {
    if filter.size() <= gpu_kernels::launch::MAX_FILTER_SIZE as usize {
        return serde_json::json!(filter.taps());
    }
    let bytes: Vec<u8> = filter.taps().iter().flat_map(|t| t.to_le_bytes()).collect();
    let (rows, cols) = filter.shape();
    serde_json::json!({
        "shape": [rows, cols],
        "count": filter.tap_count(),
        "sum": filter.taps().iter().map(|&t| f64::from(t)).sum::<f64>(),
        "fnv1a64": format!("{:016x}", host_tools::batch::shard::fnv1a(&bytes)),
    })
}

/// A finished batch.
pub struct Batch<'a> {
    pub args: &'a MainArgs,
    pub settings: &'a Settings,
    /// The first engine (the one that chooses the variant).
    pub engine: &'a Engine<'a>,
    /// The GPUs used (none on the CPU).
    pub gpus: &'a [Gpu],
    /// Why no GPU was usable, when `auto` fell back to the CPU.
    pub gpu_note: Option<String>,
    pub outcomes: &'a [Outcome],
    pub summary: &'a Summary,
    pub sharding: Option<&'a Sharding>,
    /// Inputs skipped since their results exist (`--skip-existing`).
    pub skipped: usize,
}

/// The shard a batch is, and how many inputs all the shards have together.
pub struct Sharding {
    pub shard: Shard,
    pub total: usize,
}

impl Sharding {
    /// The document's `shard` object.
    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "index": self.shard.index,
            "count": self.shard.count,
            "source": match self.shard.source {
                ShardSource::Flag => "flag",
                ShardSource::Slurm => "slurm",
                ShardSource::Kubernetes => "kubernetes",
            },
            "inputs_total": self.total,
        })
    }
}

/// Prints the document, the summary and any interruption; fails if the batch was interrupted or
/// any image was not written.
pub fn finish(b: &Batch) -> Result<()> {
    let f = &b.args.files;
    let summary = b.summary;
    let interrupted = ferroconv::io::interrupt::signal();
    let auto_choices: Vec<String> = match b.engine {
        Engine::Gpu { choice, .. } => choice.choices_made(),
        Engine::Cpu => Vec::new(),
    };
    if f.json {
        print_document(b, interrupted, &auto_choices);
    }
    if b.outcomes.len() == 1
        && b.outcomes[0].status == Status::Failed
        && let Some(e) = &b.outcomes[0].error
    {
        bail!("{e}");
    }
    if !f.quiet && !f.json {
        for line in &auto_choices {
            eprintln!("{line}");
        }
    }
    if !f.quiet {
        print_summary(b);
    }
    if let Some(signal) = interrupted {
        return Err(interrupt::stopped(signal, b.outcomes, summary));
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

/// The `--json` document of a batch that ran.
fn print_document(b: &Batch, interrupted: Option<i32>, auto_choices: &[String]) {
    json::print(&serde_json::json!({
        "schema": batch::JSON_SCHEMA,
        "error": null,
        "interrupted": interrupted.map(ferroconv::io::interrupt::name),
        "gpu": b.gpus.first().map(|g| json::gpu(g.info())),
        "gpus": b.gpus.iter().map(|g| json::gpu(g.info())).collect::<Vec<_>>(),
        "gpu_unavailable": b.gpu_note,
        "variant": b.engine.name(),
        "auto_choices": auto_choices,
        "filter": b.args.filter.describe(&b.settings.filter),
        "border": b.settings.border.describe(),
        "settings": settings(b),
        "skipped_existing": b.skipped,
        "shard": b.sharding.map(Sharding::json),
        "images": b.outcomes,
        "summary": b.summary,
    }));
}

/// Every setting that changes a result, for `report merge` to compare: the filter's taps (so its
/// kind, size, sigma, file and flip), the border with its value, the sample type, clamping, the
/// output format, the encoder's choices and the variant asked for (not those the images got).
fn settings(b: &Batch) -> serde_json::Value {
    let (f, e) = (&b.args.files, &b.settings.encoding);
    serde_json::json!({
        "filter": b.args.filter.describe(&b.settings.filter),
        "taps": taps(&b.settings.filter),
        "border": b.settings.border.describe(),
        "dtype": b.settings.dtype.map(|d| d.suffix()),
        "clamp": b.settings.clamp,
        "out_dtype": f.out_dtype,
        "scale": b.settings.counts.map(|c| c.scale),
        "delta": b.settings.counts.map(|c| c.delta),
        "format": f.format,
        "jpeg_quality": e.jpeg_quality,
        "tiff_compression": format!("{:?}", e.tiff).to_lowercase(),
        "png_level": e.png_level,
        "keep_orientation": b.settings.keep_orientation,
        "page": b.settings.page,
        "variant": if b.args.cpu_only { Some("cpu") } else { f.variant.map(|v| v.name()) },
    })
}

/// The summary line on stderr: counts, time, throughput and engine.
fn print_summary(b: &Batch) {
    let summary = b.summary;
    let mut counts = format!("{} image(s), {} failed", summary.images, summary.failed);
    if summary.discarded > 0 {
        counts += &format!(", {} discarded", summary.discarded);
    }
    if summary.not_processed > 0 {
        counts += &format!(", {} not processed", summary.not_processed);
    }
    if b.skipped > 0 {
        counts += &format!(", {} skipped (results exist)", b.skipped);
    }
    eprintln!(
        "{counts}, {:.2} s, {:.1} megapixels/s, {}",
        summary.seconds,
        summary.megapixels_per_s,
        match b.gpus {
            [] => "cpu-par on the CPU".to_string(),
            [g] => format!("{} on {}", b.engine.name(), g.info().name),
            [g, ..] => format!("{} on {} GPUs ({})", b.engine.name(), b.gpus.len(), g.info().name),
        }
    );
}
