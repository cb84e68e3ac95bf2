//! `cargo xtask doctor`: checks what building, running and `ci` need, and says how to fix each.

use crate::args::Args;
use crate::ci::AARCH64;
use crate::shell::{first_line, stdout_of, workspace};
use crate::tools::{CARGO_FUZZ_VERSION, NVCC_WHEEL, cargo_fuzz_version, find_ptxas, installed_cargo_fuzz};
use anyhow::{Context, Result, bail};

/// The toolchain channel rust-toolchain.toml pins.
fn pinned_channel() -> Result<String> {
    let text = std::fs::read_to_string(workspace().join("rust-toolchain.toml"))
        .context("reading rust-toolchain.toml")?;
    text.lines()
        .find_map(|l| {
            let value = l.trim().strip_prefix("channel")?.trim().strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_string())
        })
        .context("rust-toolchain.toml names no channel")
}

/// How one `doctor` check went.
enum Check {
    Ok(String),
    /// Not a failure (no GPU is normal on CI): what it means and how to get it.
    Warn(String),
    /// What is wrong and how to fix it.
    Fail(String),
}

/// Checks everything building and running needs, prints a checklist with fixes; fails if anything
/// but the GPU is missing.
pub fn run(args: Args) -> Result<()> {
    args.finish()?;
    let mut checks: Vec<(&'static str, Check)> = Vec::new();
    toolchain_checks(&mut checks)?;
    tool_checks(&mut checks);
    build_checks(&mut checks)?;
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

/// The pinned toolchain, its components and aarch64 target, and the stable toolchain.
fn toolchain_checks(checks: &mut Vec<(&'static str, Check)>) -> Result<()> {
    let channel = pinned_channel()?;
    let has_pinned = stdout_of("rustup", &["toolchain", "list"])
        .lines()
        .any(|l| l.starts_with(&channel));
    checks.push((
        "pinned toolchain",
        if has_pinned {
            Check::Ok(format!("{channel} (rust-toolchain.toml)"))
        } else {
            Check::Fail(format!(
                "{channel} is not installed: run `rustup toolchain install` in the project folder \
                 (rustup older than 1.28: `rustup toolchain install {channel} --profile minimal \
                 --component rust-src,rustfmt,clippy --target {AARCH64}`)"
            ))
        },
    ));
    let components = stdout_of(
        "rustup",
        &["component", "list", "--installed", "--toolchain", &channel],
    );
    for (component, why) in [
        ("rust-src", "-Zbuild-std for the nvptx target"),
        ("rustfmt", "the formatting check"),
        ("clippy", "the lint check"),
    ] {
        checks.push((
            component,
            if components.lines().any(|l| l.starts_with(component)) {
                Check::Ok(format!("installed (needed by {why})"))
            } else {
                Check::Fail(format!(
                    "missing (needed by {why}): run `rustup component add {component} --toolchain {channel}`"
                ))
            },
        ));
    }
    let targets = stdout_of(
        "rustup",
        &["target", "list", "--installed", "--toolchain", &channel],
    );
    checks.push((
        AARCH64,
        if targets.lines().any(|l| l.trim() == AARCH64) {
            Check::Ok("installed (ci checks the host for aarch64)".to_string())
        } else {
            Check::Fail(format!(
                "missing (ci checks the host for aarch64): run `rustup target add {AARCH64} --toolchain {channel}`"
            ))
        },
    ));
    checks.push((
        "stable toolchain",
        match first_line("rustup", &["run", "stable", "cargo", "--version"]) {
            Ok(v) => Check::Ok(format!("{v} (builds cargo-fuzz)")),
            Err(e) => Check::Fail(format!(
                "{e}: cargo-fuzz is built with it: run `rustup toolchain install stable`"
            )),
        },
    ));
    Ok(())
}

/// The tools beyond the toolchains: a C compiler, ptxas, cargo-fuzz.
fn tool_checks(checks: &mut Vec<(&'static str, Check)>) {
    checks.push((
        "cc",
        match first_line("cc", &["--version"]) {
            Ok(v) => Check::Ok(format!("{v} (builds the CUDA driver shim)")),
            Err(e) => Check::Fail(format!(
                "{e}: install a C compiler (Debian/Ubuntu: `apt-get install gcc`)"
            )),
        },
    ));
    let ptxas = match find_ptxas() {
        Some(p) => match first_line(&p.to_string_lossy(), &["--version"]) {
            Ok(_) => Check::Ok(p.display().to_string()),
            Err(e) => Check::Fail(format!(
                "{} does not run ({e}): run `cargo xtask install-ptxas`",
                p.display()
            )),
        },
        None => match first_line("python3", &["-m", "pip", "--version"]) {
            Ok(_) => Check::Warn(format!(
                "not installed yet; `cargo xtask ci` installs it ({NVCC_WHEEL}), or run \
                 `cargo xtask install-ptxas` now"
            )),
            Err(e) => Check::Fail(format!(
                "not found, and python3 -m pip cannot install it ({e}): install python3 and pip \
                 (Debian/Ubuntu: `apt-get install python3-pip`), or set PTXAS"
            )),
        },
    };
    checks.push(("ptxas", ptxas));
    let fuzz = installed_cargo_fuzz();
    checks.push((
        "cargo-fuzz",
        match cargo_fuzz_version(&fuzz) {
            Some(v) if v == CARGO_FUZZ_VERSION => Check::Ok(fuzz.display().to_string()),
            Some(v) => Check::Warn(format!(
                "{} is {v}, not {CARGO_FUZZ_VERSION}: `cargo xtask install-tools` replaces it",
                fuzz.display()
            )),
            None => Check::Warn(format!(
                "not installed yet; `cargo xtask ci` installs {CARGO_FUZZ_VERSION} under \
                 target/tools/ with the stable toolchain, or run `cargo xtask install-tools` now"
            )),
        },
    ));
}

/// The PTX build, and the GPU with the driver loading that PTX (`host info`).
fn build_checks(checks: &mut Vec<(&'static str, Check)>) -> Result<()> {
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
    Ok(())
}
