//! `host verify`: every variant against the f64 CPU reference over the standard ladder, or over
//! the sizes, filters, borders, channel counts and sample types given.

use super::names;
use super::values::{check_shape, parse_shape, parse_size, parse_variant};
use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::Variant;
use ferroconv::{Border, DType};
use host_tools::verify::jobs::{self, Case, VerifyPlan};

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Image sizes as WIDTHxHEIGHT, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_size)]
    sizes: Option<Vec<(usize, usize)>>,
    /// Filter shapes, comma-separated: K (K×K) or RxC (rows × columns), e.g. 3,17,3x7.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape)]
    filters: Option<Vec<(usize, usize)>>,
    /// Border modes, comma-separated (`constant` checks three quarters of full scale: 0.75 in
    /// f32 images, 191 in 8-bit ones, 49151 in 16-bit ones).
    #[arg(long, value_delimiter = ',', value_parser = names::border())]
    borders: Option<Vec<Border>>,
    /// Channel counts, comma-separated.
    #[arg(long, value_delimiter = ',')]
    channels: Option<Vec<usize>>,
    /// Sample types, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = names::dtype())]
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
}

/// Runs the verification; fails if any case fails.
pub fn run(args: VerifyArgs) -> Result<()> {
    let plans = plans(&args)?;
    let variants = args.variants.unwrap_or_else(|| Variant::ALL.to_vec());
    let gpu = super::gpu::open_for_variants(args.cpu_only);
    println!(
        "Verifying against the f64 CPU reference: random images, a general and a rank-1 random filter per case, \
         GPU output poisoned before each run (NaN for f32; 0x00 and 0xFF for integers); f32 tolerance \
         2·n·2⁻²⁴·Σ|f|·max|in| + 2⁻²⁴ (n = kh·kw taps, at least 9 past 1×1; kh + kw for two passes), integers exact after rounding or one level off within it of a boundary."
    );
    let started = std::time::Instant::now();
    let (cases, skipped) = jobs::verify_with_progress(
        &plans,
        &variants,
        args.seed,
        gpu.as_ref(),
        |c| {
            if args.verbose || !c.check.passed() {
                print_case(c);
            }
        },
        |p| {
            // On stderr, so that stdout keeps the cases and the summary only.
            eprintln!(
                "verify: {}/{} case sets done ({}), {} checks, {} failed, {:.1} s",
                p.done,
                p.total,
                p.what,
                p.checks,
                p.failed,
                started.elapsed().as_secs_f64()
            );
        },
    )
    .context("running the verification")?;
    let failed = cases.iter().filter(|c| !c.check.passed()).count();
    let worst = cases
        .iter()
        .filter(|c| c.dtype == DType::F32)
        .map(|c| c.check.max_error / c.check.tolerance)
        .fold(0.0, f64::max);
    println!(
        "{} passed, {} failed (worst f32 error {:.3} of its tolerance; {} valid-border combinations skipped: \
         filter larger than the image, or not its square){}",
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

/// The verification plans: the standard ones, or one built from the options given (each option
/// not given takes its widest value).
fn plans(args: &VerifyArgs) -> Result<Vec<VerifyPlan>> {
    for &(w, h) in args.sizes.iter().flatten() {
        ferroconv::model::image::check_dims(w, h).context("--sizes")?;
    }
    for &(rows, cols) in args.filters.iter().flatten() {
        check_shape((rows, cols)).context("--filters")?;
        ferroconv::Filter::rect(rows, cols, vec![1.0; rows * cols]).context("--filters")?;
    }
    for &c in args.channels.iter().flatten() {
        ferroconv::model::image::check_channels(c).context("--channels")?;
    }
    let given = [
        args.sizes.is_some(),
        args.filters.is_some(),
        args.borders.is_some(),
        args.channels.is_some(),
        args.dtypes.is_some(),
    ];
    if !given.contains(&true) {
        return Ok(VerifyPlan::standard());
    }
    Ok(vec![VerifyPlan::widest(
        args.sizes.clone(),
        args.filters.clone(),
        // `constant` checks the constant of the standard plan, which a kernel reading 0 fails.
        args.borders.as_ref().map(|b| {
            b.iter()
                .map(|&b| match b {
                    Border::Constant(_) => Border::Constant(Border::CHECKED_CVAL),
                    b => b,
                })
                .collect()
        }),
        args.channels.clone(),
        args.dtypes.clone(),
    )])
}

/// One line for a case: PASS or FAIL, the variant, size, layout, border and filter, the check.
fn print_case(c: &Case) {
    let mark = if c.check.passed() { "PASS" } else { "FAIL" };
    println!("{mark} {c}");
}
