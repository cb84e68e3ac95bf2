//! The checks that ferroconv works as a user's dependency: `tests/outside` built and run on the
//! pinned stable toolchain from a copy outside the checkout, and binaries that never link a CUDA
//! library.

use crate::shell::workspace;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// The stable toolchain that builds `tests/outside` (installed by [`run`] if missing).
pub const STABLE: &str = "1.99.1";

/// Variables of the caller's environment that reach the outside build: where the tools are, and
/// nothing that configures cargo, rustc or CUDA.
const KEPT_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "CARGO_BUILD_JOBS",
    "TMPDIR",
];

/// Copies `tests/outside` (its manifest pointing at this checkout's ferroconv) into a temporary
/// folder, which no `.cargo/config.toml` of the checkout reaches, and runs it with `cargo +STABLE
/// run --locked` in an environment cleared of all but [`KEPT_ENV`]; its build goes to
/// `target/outside`. Then checks its binary as [`check_no_libcuda`] does.
pub fn run() -> Result<()> {
    let ws = workspace();
    println!("$ rustup toolchain install {STABLE} --profile minimal");
    let status = Command::new("rustup")
        .args(["toolchain", "install", STABLE, "--profile", "minimal"])
        .status()
        .context("running rustup")?;
    if !status.success() {
        bail!("installing the Rust toolchain {STABLE} failed ({status})");
    }
    let src = ws.join("tests/outside");
    let tmp = std::env::temp_dir().join(format!("ferroconv-outside-{}", std::process::id()));
    let copy = tmp.join("outside");
    std::fs::create_dir_all(copy.join("src")).with_context(|| format!("creating {}", copy.display()))?;
    let manifest =
        std::fs::read_to_string(src.join("Cargo.toml")).context("reading tests/outside/Cargo.toml")?;
    let relative = "path = \"../../ferroconv\"";
    if !manifest.contains(relative) {
        bail!("tests/outside/Cargo.toml has no `{relative}`");
    }
    let absolute = format!("path = {:?}", ws.join("ferroconv").to_string_lossy());
    std::fs::write(copy.join("Cargo.toml"), manifest.replace(relative, &absolute))?;
    for file in ["Cargo.lock", "src/main.rs"] {
        std::fs::copy(src.join(file), copy.join(file))
            .with_context(|| format!("copying tests/outside/{file}"))?;
    }
    let target = ws.join("target/outside");
    let args = ["run", "--locked", "--target-dir", &target.to_string_lossy()].map(str::to_string);
    println!("$ (cd {} && cargo +{STABLE} {})", copy.display(), args.join(" "));
    let mut cmd = Command::new("cargo");
    cmd.arg(format!("+{STABLE}"))
        .args(&args)
        .current_dir(&copy)
        .env_clear();
    for var in KEPT_ENV {
        if let Some(value) = std::env::var_os(var) {
            cmd.env(var, value);
        }
    }
    let status = cmd.status().context("running cargo");
    let _ = std::fs::remove_dir_all(&tmp);
    let status = status?;
    if !status.success() {
        bail!(
            "the outside crate failed on the Rust toolchain {STABLE} ({status}); if cargo asked to \
             update its lock file, run `cargo tree` in tests/outside"
        );
    }
    check_no_libcuda(&target.join("debug/ferroconv-outside"))
}

/// Fails unless `binary`'s dynamic section (`readelf -d`) lists its libraries and none is a CUDA
/// library: the driver is only ever `dlopen`ed at run time, by the shim.
pub fn check_no_libcuda(binary: &Path) -> Result<()> {
    let output = Command::new("readelf")
        .arg("-d")
        .arg(binary)
        .output()
        .context("running readelf (binutils)")?;
    if !output.status.success() {
        bail!(
            "readelf -d {} failed: {}",
            binary.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let needed: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split_once('[')?.1.split_once(']').map(|(name, _)| name))
        .collect();
    if needed.is_empty() {
        bail!("readelf -d {} lists no NEEDED library", binary.display());
    }
    if let Some(cuda) = needed.iter().find(|name| name.starts_with("libcuda")) {
        bail!(
            "{} links {cuda}: the CUDA driver must only be loaded at run time",
            binary.display()
        );
    }
    println!(
        "{}: links {} and no CUDA library",
        binary.display(),
        needed.join(", ")
    );
    Ok(())
}
