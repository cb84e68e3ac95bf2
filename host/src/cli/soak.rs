//! `host soak`: the long run, many small and some large random images through the batch engine
//! (the GPU's, or the CPU's with `--cpu`); checks re-runs, device memory and throughput decay.

use super::values::parse_variant;
use anyhow::{Result, bail};
use ferroconv::engine::gpu::Variant;
use ferroconv::{Border, Filter};
use host_tools::batch;
use host_tools::verify::soak::{SoakConfig, SoakReport};

#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    /// Small images (64x64 to 256x256, random layouts).
    #[arg(long, default_value_t = 2000)]
    small: usize,
    /// Large square images.
    #[arg(long, default_value_t = 20)]
    large: usize,
    /// Side of the large images.
    #[arg(long, default_value_t = 4096)]
    large_side: usize,
    /// GPU variant (default: blocked-4x4).
    #[arg(long, value_parser = parse_variant)]
    variant: Option<Variant>,
    /// Run on the CPU engine instead (no device memory check).
    #[arg(long)]
    cpu: bool,
    /// Seed of the random images.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs the soak; fails on any problem, or without a GPU unless `--cpu`.
pub fn run(args: &SoakArgs) -> Result<()> {
    let config = SoakConfig {
        small: args.small,
        large: args.large,
        large_side: args.large_side,
        recheck_every: 25,
        seed: args.seed,
    };
    let variant = args.variant.unwrap_or(Variant::Blocked4x4);
    let filter = Filter::random_normalized(5, config.seed)?;
    if variant.needs_rank1() && filter.rank1().is_none() {
        bail!("the soak's 5x5 filter is not rank-1: use another --variant");
    }
    if let Some(e) = ferroconv::DType::ALL
        .into_iter()
        .find_map(|d| variant.check_supports(d, filter.radius()).err())
    {
        bail!("the soak uses u8, u16 and f32 images, and {e}: use another --variant");
    }
    let gpu = if args.cpu {
        None
    } else {
        super::gpu::open_or(|e| {
            println!("SKIPPED: the soak run needs a GPU ({e}); --cpu soaks the CPU engine");
            bail!("soak SKIPPED: no usable GPU");
        })?
    };
    let mut engine = match &gpu {
        Some(gpu) => batch::Engine::gpu(gpu, batch::Choice::Fixed(variant)),
        None => batch::Engine::Cpu,
    };
    let settings = batch::Settings {
        max_image_bytes: ferroconv::io::files::default_max_image_bytes(),
        ..batch::Settings::in_memory(filter, Border::Reflect)
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
        || -> ferroconv::Result<Option<usize>> { gpu.as_ref().map(|g| g.memory().map(|m| m.0)).transpose() };
    let report = host_tools::verify::soak::run(&mut engine, &settings, &config, &free, |done, total| {
        if done % 500 == 0 || done == total {
            println!("  {done}/{total} images");
        }
    })?;
    print_report(&report);
    if !report.passed() {
        bail!("soak failed: {} problem(s)", report.problems.len());
    }
    println!("soak PASS");
    Ok(())
}

/// The soak's summary line and a line per problem.
fn print_report(report: &SoakReport) {
    let mib = |b: Option<usize>| b.map_or("-".to_string(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
    let decay = report.decay.map_or(
        format!(
            "throughput decay not checked (fewer than {} small images)",
            10 * host_tools::verify::soak::DECAY_MIN_PER_TENTH
        ),
        |d| {
            format!(
                "small-image throughput first tenth {:.1} MP/s, last tenth {:.1} MP/s (limit {}x decay)",
                d.first_tenth_mpx_s,
                d.last_tenth_mpx_s,
                host_tools::verify::soak::DECAY_FACTOR
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
        host_tools::verify::soak::MEMORY_SLACK >> 20,
    );
    for p in &report.problems {
        println!("FAIL {p}");
    }
}
