//! Project tasks, run as `cargo xtask <task>`: build-ptx, install-ptxas, verify, bench, sanitize,
//! plot, soak, fuzz, ci, doctor.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The NVIDIA wheel that provides `ptxas`; pinned to 13.0.x so the PTX it checks matches what
/// driver 580 (PTX ISA <= 9.0) accepts.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";

/// The cargo-fuzz release `cargo xtask fuzz` installs when it is missing.
const CARGO_FUZZ_VERSION: &str = "0.13.1";
/// The fuzz targets in fuzz/fuzz_targets/.
const FUZZ_TARGETS: [&str; 2] = ["filter_file", "image_decode"];
/// Seconds per fuzz target in `cargo xtask ci`.
const CI_FUZZ_SECONDS: u64 = 20;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  build-ptx [--arch sm_90]   compile gpu-kernels to target/ptx/kernels.ptx and, when ptxas is
                             available, print each kernel's registers, shared memory, stack and
                             spills (fails on any spill)
  install-ptxas              install ptxas from PyPI ({NVCC_WHEEL}) under target/tools/
  verify [ARGS...]           build the host in release mode and run `host verify ARGS...`
  bench [ARGS...]            build the host in release mode and run `host bench ARGS...` (needs a
                             GPU; writes target/bench/bench*.csv and bench.md), then plot them
  plot [DIR]                 SVG plots (time vs size, % roofline, speed-up over the CPU) from a
                             bench run's CSV files in DIR (default target/bench)
  sanitize [ARGS...]         build the host in release mode and run `host sanitize ARGS...`
                             (needs a GPU and compute-sanitizer)
  soak [ARGS...]             build the host in release mode and run `host soak ARGS...` (GPU)
  fuzz [--seconds N]         run each cargo-fuzz target for N seconds (default 30); installs
                             cargo-fuzz {CARGO_FUZZ_VERSION} if missing
  ci                         everything CI checks: formatting, clippy (host and nvptx), tests,
                             PTX build + ptxas check, the main job on the CPU, and fuzzing
                             (20 s per target)
  doctor                     check the toolchain, rust-src, ptxas, the PTX build, the CUDA driver
                             and the PTX load, and say what to fix";

mod plot;

/// `cargo xtask plot DIR`.
fn plot_task(dir: &Path) -> Result<()> {
    for path in plot::plot(dir)? {
        println!("wrote {path}");
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("build-ptx") => {
            let arch = match args.get(1).map(String::as_str) {
                Some("--arch") => args.get(2).context("--arch needs a value such as sm_90")?.clone(),
                Some(other) => bail!("unknown argument {other}\n{}", usage()),
                None => ptx_builder::DEFAULT_ARCH.to_string(),
            };
            build_ptx(&arch, false).map(|_| ())
        }
        Some("install-ptxas") => install_ptxas().map(|_| ()),
        Some("verify") => cargo(
            &[
                &["run", "--release", "--package", "host", "--", "verify"],
                &strs(&args[1..])[..],
            ]
            .concat(),
        ),
        Some("bench") => {
            cargo(
                &[
                    &["run", "--release", "--package", "host", "--", "bench"],
                    &strs(&args[1..])[..],
                ]
                .concat(),
            )?;
            let out = args
                .iter()
                .position(|a| a == "--out")
                .and_then(|i| args.get(i + 1))
                .map_or_else(|| workspace().join("target/bench"), PathBuf::from);
            plot_task(&out)
        }
        Some("plot") => plot_task(
            &args
                .get(1)
                .map_or_else(|| workspace().join("target/bench"), PathBuf::from),
        ),
        Some(task @ ("sanitize" | "soak")) => cargo(
            &[
                &["run", "--release", "--package", "host", "--", task],
                &strs(&args[1..])[..],
            ]
            .concat(),
        ),
        Some("fuzz") => {
            let seconds = match args.get(1).map(String::as_str) {
                Some("--seconds") => args
                    .get(2)
                    .and_then(|s| s.parse().ok())
                    .context("--seconds needs a whole number")?,
                Some(other) => bail!("unknown argument {other}\n{}", usage()),
                None => 30,
            };
            fuzz(seconds)
        }
        Some("ci") => ci(),
        Some("doctor") => doctor(),
        _ => bail!("{}", usage()),
    }
}

fn usage() -> String {
    USAGE
        .replace("{NVCC_WHEEL}", NVCC_WHEEL)
        .replace("{CARGO_FUZZ_VERSION}", CARGO_FUZZ_VERSION)
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is in the workspace")
        .to_path_buf()
}

/// Runs `cargo ARGS` in the workspace and fails if it fails.
fn cargo(args: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .current_dir(workspace())
        .status()
        .context("running cargo")?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

/// Builds the PTX into target/ptx/, lists its kernels, and checks it with ptxas when available
/// (`require_ptxas` makes a missing ptxas an error). Fails on any register spill.
fn build_ptx(arch: &str, require_ptxas: bool) -> Result<()> {
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
    println!(
        "ptxas {arch}:\n{:<16} {:>5} {:>10} {:>7} {:>12}",
        "kernel", "regs", "shared B", "stack B", "spill st/ld"
    );
    for k in &report {
        println!(
            "{:<22} {:>5} {:>10} {:>7} {:>7}/{:<4}",
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

/// `PTXAS`, then `ptxas` on PATH, then the copy `install-ptxas` puts under target/tools/.
fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(p.into());
    }
    if Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("ptxas".into());
    }
    let local = installed_ptxas();
    local.is_file().then_some(local)
}

fn installed_ptxas() -> PathBuf {
    workspace().join("target/tools/nvcc/nvidia/cu13/bin/ptxas")
}

/// Installs the pinned wheel under target/tools/nvcc and returns the ptxas path.
fn install_ptxas() -> Result<PathBuf> {
    let ptxas = installed_ptxas();
    if ptxas.is_file() {
        println!("ptxas already installed at {}", ptxas.display());
        return Ok(ptxas);
    }
    let dest = workspace().join("target/tools/nvcc");
    println!("installing ptxas from {NVCC_WHEEL} into {}", dest.display());
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(&dest)
        .arg(NVCC_WHEEL)
        .status()
        .context("running python3 -m pip (ptxas comes from PyPI)")?;
    if !status.success() || !ptxas.is_file() {
        bail!("installing {NVCC_WHEEL} failed ({status})");
    }
    Ok(ptxas)
}

/// Everything CI runs, in order; stops at the first failure.
fn ci() -> Result<()> {
    cargo(&["fmt", "--all", "--check"])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    cargo(&[
        "clippy",
        "--package",
        "gpu-kernels",
        "--target",
        ptx_builder::TARGET,
        "-Zbuild-std=core",
        "--target-dir",
        "target/ptx-clippy",
        "--",
        "-D",
        "warnings",
    ])?;
    cargo(&["test", "--workspace"])?;
    let ptxas = install_ptxas()?;
    // SAFETY: xtask is single-threaded here; no other thread reads the environment.
    unsafe { std::env::set_var("PTXAS", &ptxas) };
    build_ptx(ptx_builder::DEFAULT_ARCH, true)?;
    cargo(&[
        "run",
        "--release",
        "--package",
        "host",
        "--",
        "--size",
        "512",
        "--mask",
        "5",
    ])?;
    fuzz(CI_FUZZ_SECONDS)?;
    println!("ci: all checks passed");
    Ok(())
}

/// Runs every fuzz target for `seconds` (libFuzzer's `-max_total_time`), installing cargo-fuzz
/// if missing. A crash fails the task; libFuzzer leaves the input under fuzz/artifacts/.
fn fuzz(seconds: u64) -> Result<()> {
    let has_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        cargo(&[
            "install",
            "cargo-fuzz",
            "--locked",
            "--version",
            CARGO_FUZZ_VERSION,
        ])?;
    }
    let dir = workspace().join("fuzz");
    for target in FUZZ_TARGETS {
        let corpus = dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus)?;
        let time = format!("-max_total_time={seconds}");
        let args = ["fuzz", "run", "-O", target, "--", &time, "-max_len=65536"];
        println!("$ (cd fuzz && cargo {})", args.join(" "));
        let status = Command::new("cargo")
            .args(args)
            .current_dir(&dir)
            .status()
            .context("running cargo fuzz")?;
        if !status.success() {
            bail!(
                "fuzz target {target} failed ({status}); the crashing input is under fuzz/artifacts/{target}/"
            );
        }
    }
    Ok(())
}

/// How one `doctor` check went.
enum Check {
    Ok(String),
    /// Not a failure (no GPU is normal on CI): what it means and how to get it.
    Warn(String),
    /// What is wrong and how to fix it.
    Fail(String),
}

/// The first line of a command's output (stdout, else stderr), or why it did not run.
fn first_line(program: &str, args: &[&str]) -> Result<String, String> {
    let o = Command::new(program)
        .args(args)
        .current_dir(workspace())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let text = if o.stdout.is_empty() { &o.stderr } else { &o.stdout };
    let line = String::from_utf8_lossy(text)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    if o.status.success() { Ok(line) } else { Err(line) }
}

/// Checks everything building and running needs, prints a checklist with fixes; fails if anything
/// but the GPU is missing.
fn doctor() -> Result<()> {
    let mut checks: Vec<(&str, Check)> = Vec::new();
    checks.push((
        "toolchain",
        match first_line("rustup", &["show", "active-toolchain"]) {
            Ok(t) => Check::Ok(t),
            Err(e) => Check::Fail(format!(
                "{e}: install rustup (rustup.rs); rust-toolchain.toml pins the nightly"
            )),
        },
    ));
    let components = Command::new("rustup")
        .args(["component", "list", "--installed"])
        .current_dir(workspace())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    checks.push((
        "rust-src",
        if components.lines().any(|l| l.starts_with("rust-src")) {
            Check::Ok("installed (needed by -Zbuild-std for the nvptx target)".into())
        } else {
            Check::Fail("missing: run `rustup component add rust-src`".into())
        },
    ));
    checks.push((
        "ptxas",
        match find_ptxas() {
            Some(p) => match first_line(&p.to_string_lossy(), &["--version"]) {
                Ok(_) => Check::Ok(p.display().to_string()),
                Err(e) => Check::Fail(format!(
                    "{} does not run ({e}): run `cargo xtask install-ptxas`",
                    p.display()
                )),
            },
            None => Check::Fail("not found: run `cargo xtask install-ptxas` (or set PTXAS)".into()),
        },
    ));
    let ws = workspace();
    let ptx_path = ws.join("target/ptx/kernels.ptx");
    std::fs::create_dir_all(ws.join("target/ptx"))?;
    checks.push((
        "PTX build",
        match ptx_builder::build(
            &ws,
            &ws.join("target/ptx-build"),
            ptx_builder::DEFAULT_ARCH,
            &ptx_path,
        ) {
            Ok(_) => {
                let ptx = std::fs::read_to_string(&ptx_path)?;
                Check::Ok(format!(
                    "{} kernels for {}",
                    ptx_builder::entry_names(&ptx).len(),
                    ptx_builder::DEFAULT_ARCH
                ))
            }
            Err(e) => Check::Fail(format!("{e}: check the toolchain and rust-src above")),
        },
    ));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    checks.push((
        "GPU",
        match first_line(&cargo, &["run", "--quiet", "--package", "host", "--", "info"])
            .map(|l| l.trim_start_matches("GPU: ").to_string())
        {
            Ok(line) if line.contains("could not load the kernels' PTX") => Check::Fail(format!(
                "{line}\n      fix: update the NVIDIA driver (the PTX needs ISA 7.8: R520 or newer)"
            )),
            Ok(line) if line.starts_with("none") => Check::Warn(format!(
                "{line}\n      the GPU variants are skipped; to run them install the NVIDIA driver (R520+) \
                 on a machine with a compute capability 9.0+ GPU"
            )),
            Ok(line) => Check::Ok(format!("{line}; the driver loaded the PTX")),
            Err(e) => Check::Fail(format!("`host info` failed: {e}")),
        },
    ));
    let mut failed = 0;
    for (name, check) in &checks {
        let (mark, text) = match check {
            Check::Ok(t) => ("ok  ", t),
            Check::Warn(t) => ("warn", t),
            Check::Fail(t) => {
                failed += 1;
                ("FAIL", t)
            }
        };
        println!("[{mark}] {name}: {text}");
    }
    if failed > 0 {
        bail!("{failed} check(s) failed: see the fixes above");
    }
    println!("doctor: everything needed is in place");
    Ok(())
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
