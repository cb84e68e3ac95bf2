//! `cargo xtask build-ptx`: the kernels' PTX, and ptxas's report of each kernel's resources.

use crate::args::Args;
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
/// (`require_ptxas` makes a missing ptxas an error). Fails on any register spill.
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
    let report = ptxas_report(&log);
    let w = report
        .iter()
        .map(|k| k.name.len())
        .max()
        .unwrap_or(0)
        .max("kernel".len());
    println!(
        "ptxas {arch}:\n{:<w$} {:>5} {:>10} {:>7} {:>12}",
        "kernel", "regs", "shared B", "stack B", "spill st/ld"
    );
    for k in &report {
        println!(
            "{:<w$} {:>5} {:>10} {:>7} {:>7}/{:<4}",
            k.name, k.registers, k.shared, k.stack, k.spill_stores, k.spill_loads
        );
    }
    if report.len() != entries.len() {
        bail!(
            "ptxas reported {} kernels but the PTX has {}:\n{log}",
            report.len(),
            entries.len()
        );
    }
    let spilling: Vec<_> = report
        .iter()
        .filter(|k| k.spill_stores + k.spill_loads > 0)
        .map(|k| k.name.as_str())
        .collect();
    if !spilling.is_empty() {
        bail!("register spills in {}", spilling.join(", "));
    }
    Ok(())
}

/// One kernel's line of `ptxas -v`.
#[derive(Debug, Default, PartialEq)]
struct KernelResources {
    name: String,
    registers: u32,
    shared: u32,
    stack: u32,
    spill_stores: u32,
    spill_loads: u32,
}

/// Parses `ptxas -v` output into one entry per compiled kernel.
fn ptxas_report(log: &str) -> Vec<KernelResources> {
    let number_before = |line: &str, unit: &str| -> Option<u32> {
        let end = line.find(unit)?;
        line[..end].split_whitespace().last()?.parse().ok()
    };
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            kernels.push(KernelResources {
                name,
                ..Default::default()
            });
        } else if let Some(k) = kernels.last_mut() {
            if line.contains("bytes stack frame") {
                k.stack = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used") && line.contains("registers") {
                k.registers = number_before(line, "registers").unwrap_or(0);
                k.shared = number_before(line, "bytes smem").unwrap_or(0);
            }
        }
    }
    kernels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ptxas_verbose_output() {
        let log = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'conv_tiled' for 'sm_90'
ptxas info    : Function properties for conv_tiled
    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 16 bytes cumulative stack size, 4096 bytes smem
ptxas info    : Compiling entry function 'conv_naive' for 'sm_90'
ptxas info    : Function properties for conv_naive
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, used 0 barriers
";
        let r = ptxas_report(log);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            KernelResources {
                name: "conv_tiled".into(),
                registers: 30,
                shared: 4096,
                stack: 16,
                spill_stores: 4,
                spill_loads: 8
            }
        );
        assert_eq!(
            (r[1].name.as_str(), r[1].registers, r[1].spill_stores),
            ("conv_naive", 20, 0)
        );
    }
}
