//! `host sanitize`: re-runs this binary's `verify` under each compute-sanitizer tool (see
//! [`host_tools::verify::sanitize::verify_runs`] for the cases), one PASS/FAIL line per tool and case set.

use super::values::parse_size;
use anyhow::{Context as _, Result, bail};
use std::path::Path;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SanitizeArgs {
    /// Tools to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "memcheck,racecheck,synccheck,initcheck",
          value_parser = clap::builder::PossibleValuesParser::new(host_tools::verify::sanitize::TOOLS))]
    tools: Vec<String>,
    /// Image sizes every tool checks, as WIDTHxHEIGHT, comma-separated.
    #[arg(long, default_value = host_tools::verify::sanitize::SIZES)]
    sizes: String,
}

/// Runs every tool over every case set; fails if any reported an error.
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
    let Some(sanitizer) = host_tools::verify::sanitize::find_sanitizer() else {
        bail!(
            "compute-sanitizer not found (set COMPUTE_SANITIZER, put it on PATH, or install the CUDA toolkit)"
        );
    };
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut failed = Vec::new();
    for tool in &args.tools {
        for verify_args in host_tools::verify::sanitize::verify_runs(&sizes) {
            if !run_one(&sanitizer, &exe, tool, &verify_args)? {
                failed.push(tool.as_str());
            }
        }
    }
    if !failed.is_empty() {
        bail!("compute-sanitizer reported errors with: {}", failed.join(", "));
    }
    Ok(())
}

/// Runs `exe verify verify_args` under `tool` and prints its line; whether it passed (no error
/// reported, exit 0). A failure's whole output is kept in a log file.
fn run_one(sanitizer: &Path, exe: &Path, tool: &str, verify_args: &[String]) -> Result<bool> {
    let started = Instant::now();
    let output = std::process::Command::new(sanitizer)
        .args(["--tool", tool, "--error-exitcode", "9", "--print-limit", "20"])
        .arg(exe)
        .arg("verify")
        .args(verify_args)
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
    let errors = host_tools::verify::sanitize::error_count(&text);
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
        verify_args[1],
    );
    if !pass {
        // The sanitizer's reports (at most 20 errors) and the verify summary, for the record.
        let log = std::env::temp_dir().join(format!("conv-sanitize-{tool}.log"));
        std::fs::write(&log, &text).with_context(|| format!("writing {}", log.display()))?;
        println!("           full output: {}", log.display());
    }
    Ok(pass)
}
