//! `cargo xtask build-ptx`: the kernels' PTX, and ptxas's report of each kernel's resources.

use crate::args::Args;
use crate::ptxas_report::{self, Resources};
use crate::shell::workspace;
use crate::tools::find_ptxas;
use anyhow::{Context, Result, bail};
use std::process::Command;

/// `cargo xtask build-ptx [--arch sm_90]`.
pub fn run(mut args: Args) -> Result<()> {
    let arch = args
        .value::<String>("--arch")?
        .unwrap_or_else(|| ptx_builder::DEFAULT_ARCH.to_string());
    args.finish()?;
    build_ptx(&arch, false)
}

/// Builds the PTX into target/ptx/, lists its kernels, and checks it with ptxas when available
/// (`require_ptxas` makes a missing ptxas an error). Fails on any register spill that
/// xtask/src/allowed_spills.txt does not allow, naming the function, a line each.
pub fn build_ptx(arch: &str, require_ptxas: bool) -> Result<()> {
    let ws = workspace();
    let out_dir = ws.join("target").join("ptx");
    std::fs::create_dir_all(&out_dir)?;
    let ptx_path = out_dir.join("kernels.ptx");
    let target_dir = ws.join("target").join("ptx-build");
    ptx_builder::build(&ws, &target_dir, arch, &ptx_path)?;
    let ptx = std::fs::read_to_string(&ptx_path)?;
    let entries = ptx_builder::entry_names(&ptx);
    println!(
        "wrote {} ({} bytes): kernels {}",
        ptx_path.display(),
        ptx.len(),
        entries.join(", ")
    );

    let Some(ptxas) = find_ptxas() else {
        if require_ptxas {
            bail!("ptxas not found (set PTXAS, put it on PATH, or run `cargo xtask install-ptxas`)");
        }
        println!("ptxas not found: skipping the resource report (`cargo xtask install-ptxas` installs it)");
        return Ok(());
    };
    let cubin = out_dir.join("kernels.cubin");
    let output = Command::new(&ptxas)
        .args(["-arch", arch, "-v", "-o"])
        .arg(&cubin)
        .arg(&ptx_path)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    let log = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("ptxas rejected the PTX:\n{log}");
    }
    let report = ptxas_report::parse(&log);
    print_report(arch, &report);
    let kernels = report.iter().filter(|f| f.entry).count();
    if kernels != entries.len() {
        bail!(
            "ptxas reported {kernels} kernels but the PTX has {}:\n{log}",
            entries.len()
        );
    }
    let allowed = ptxas_report::parse_allowed(ptxas_report::ALLOWED_SPILLS).map_err(anyhow::Error::msg)?;
    let less = ptxas_report::spilling_less(&report, &allowed);
    if !less.is_empty() {
        println!(
            "spilling less than {} allows (lower its figures): {}",
            ptxas_report::ALLOWED_SPILLS_FILE,
            less.join("; ")
        );
    }
    let errors = ptxas_report::check_spills(&report, &allowed);
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    let spilling = report.iter().filter(|f| f.spills()).count();
    println!(
        "ptxas {arch}: {spilling} functions spill, each at most as much as {} allows",
        ptxas_report::ALLOWED_SPILLS_FILE
    );
    Ok(())
}

/// Prints ptxas's figures, a line per function (device functions that were not inlined marked).
fn print_report(arch: &str, report: &[Resources]) {
    let w = report
        .iter()
        .map(|k| k.name.len() + if k.entry { 0 } else { " (function)".len() })
        .max()
        .unwrap_or(0)
        .max("kernel".len());
    println!(
        "ptxas {arch}:\n{:<w$} {:>5} {:>10} {:>7} {:>12}",
        "kernel", "regs", "shared B", "stack B", "spill st/ld"
    );
    for k in report {
        let name = if k.entry {
            k.name.clone()
        } else {
            format!("{} (function)", k.name)
        };
        println!(
            "{name:<w$} {:>5} {:>10} {:>7} {:>7}/{:<4}",
            k.registers, k.shared, k.stack, k.spill_stores, k.spill_loads
        );
    }
}
