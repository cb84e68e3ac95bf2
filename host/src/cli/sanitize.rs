//! `host sanitize`: re-runs this binary's `verify` under each compute-sanitizer tool, one case set
//! (a tool's verify run of one variant; see [`host_tools::verify::sanitize::case_sets`]) at a time,
//! one PASS/FAIL line per case set as soon as it ends; `--variants` and `--shard K/N` split the
//! suite into parts that each run in minutes.

use super::values::{parse_size, parse_variant};
use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::Variant;
use host_tools::verify::sanitize::{self, CaseSet};
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SanitizeArgs {
    /// Tools to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "memcheck,racecheck,synccheck,initcheck",
          value_parser = clap::builder::PossibleValuesParser::new(sanitize::TOOLS))]
    tools: Vec<String>,
    /// Image sizes every tool checks, as WIDTHxHEIGHT, comma-separated.
    #[arg(long, default_value = sanitize::SIZES)]
    sizes: String,
    /// GPU variants to check, comma-separated (default: all); each is a case set of its own.
    #[arg(long, value_delimiter = ',', value_parser = parse_variant)]
    variants: Option<Vec<Variant>>,
    /// Run only part K of N of the case sets (0-based, e.g. 2/8): case set i when i mod N = K,
    /// so the N parts hold every case set once; for a suite longer than one job's time limit.
    #[arg(long, value_parser = parse_part)]
    shard: Option<(usize, usize)>,
    /// Print the case sets (of this shard) that would run, one per line, and run none.
    #[arg(long)]
    list: bool,
}

/// Parses `--shard K/N`: whole numbers, `K < N`.
fn parse_part(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected K/N with 0 <= K < N (e.g. 0/8), not '{s}'");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n) = (
        k.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Runs every tool over every case set (of the shard), printing each one's line as it ends;
/// fails if any reported an error.
pub fn run(args: &SanitizeArgs) -> Result<()> {
    let sizes = args
        .sizes
        .split(',')
        .map(|size| {
            let (w, h) = parse_size(size).map_err(anyhow::Error::msg).context("--sizes")?;
            ferroconv::model::image::check_dims(w, h).context("--sizes")?;
            Ok((w, h))
        })
        .collect::<Result<Vec<_>>>()?;
    let variants = args.variants.clone().unwrap_or_else(|| Variant::ALL.to_vec());
    let all = sanitize::case_sets(&args.tools, &sizes, &variants);
    let total = all.len();
    if total == 0 {
        bail!("--variants: no case set runs these variants on the suite's sample types");
    }
    let (k, n) = args.shard.unwrap_or((0, 1));
    let sets = sanitize::shard(all, k, n);
    if args.list {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        for (_, set) in &sets {
            // A reader that stops early (`| head`) ends the listing, not a panic.
            if writeln!(out, "{}", set.describe()).is_err() {
                break;
            }
        }
        return Ok(());
    }
    let Some(sanitizer) = sanitize::find_sanitizer() else {
        bail!(
            "compute-sanitizer not found (set COMPUTE_SANITIZER, put it on PATH, or install the CUDA toolkit)"
        );
    };
    let exe = std::env::current_exe().context("locating this binary")?;
    println!(
        "{} of {total} case set(s){}, one line each as it ends",
        sets.len(),
        args.shard
            .map_or(String::new(), |(k, n)| format!(" (shard {k}/{n})"))
    );
    let mut failed = Vec::new();
    for (i, set) in &sets {
        if !run_one(&sanitizer, &exe, set, (i + 1, total))? {
            failed.push(format!("{} {}", set.tool, set.variant.name()));
        }
    }
    if !failed.is_empty() {
        bail!("compute-sanitizer reported errors with: {}", failed.join(", "));
    }
    Ok(())
}

/// Runs `exe verify` with the case set's arguments under its tool and prints its line (case set
/// `number` of `total`); whether it passed (no error reported, exit 0). A failure's whole output
/// is kept in a log file.
fn run_one(sanitizer: &Path, exe: &Path, set: &CaseSet, (number, total): (usize, usize)) -> Result<bool> {
    let tool = set.tool.as_str();
    let started = Instant::now();
    let output = std::process::Command::new(sanitizer)
        .args(["--tool", tool, "--error-exitcode", "9", "--print-limit", "20"])
        .arg(exe)
        .arg("verify")
        .args(&set.args)
        .output()
        .with_context(|| format!("running {}", sanitizer.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if text.contains("GPU variants skipped") || text.contains("GPU variants were skipped") {
        bail!("{tool}: the GPU variants were skipped under compute-sanitizer: no usable GPU");
    }
    let errors = sanitize::error_count(&text);
    let pass = output.status.success() && errors == Some(0);
    let cases = text
        .lines()
        .find(|l| l.contains(" passed, "))
        .unwrap_or("no verify summary");
    println!(
        "[{number}/{total}] {tool:<10} {:<18} {}  {} errors  exit {}  {:.1} s  sizes {}: {cases}",
        set.variant.name(),
        if pass { "PASS" } else { "FAIL" },
        errors.map_or("?".to_string(), |n| n.to_string()),
        output
            .status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        started.elapsed().as_secs_f64(),
        set.args[1],
    );
    if !pass {
        // The sanitizer's reports (at most 20 errors) and the verify summary, for the record.
        let log = std::env::temp_dir().join(format!("conv-sanitize-{tool}-{}.log", set.variant.name()));
        std::fs::write(&log, &text).with_context(|| format!("writing {}", log.display()))?;
        println!("           full output: {}", log.display());
    }
    let _ = std::io::stdout().flush();
    Ok(pass)
}
