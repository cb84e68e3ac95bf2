//! `cargo xtask ci`: everything CI checks, in order.

use crate::args::Args;
use crate::fuzz::{FuzzMode, fuzz};
use crate::outside;
use crate::ptx::build_ptx;
use crate::shell::{cargo, workspace};
use crate::size;
use crate::tools::{install_cargo_fuzz, install_ptxas};
use anyhow::Result;

/// The second CPU architecture CI builds the host for (`cargo check`: GH200 hosts are aarch64).
pub const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// clippy's settings after `--` in every run: warnings fail, and so do Rust functions over 150
/// lines (the threshold is in clippy.toml).
const DENY: [&str; 5] = ["--", "-D", "warnings", "-W", "clippy::too_many_lines"];

/// Everything CI runs, in order; stops at the first failure.
pub fn run(args: Args) -> Result<()> {
    args.finish()?;
    // The tools first: every build below then embeds SASS made by the pinned ptxas.
    let ptxas = install_ptxas()?;
    // SAFETY: xtask is single-threaded here; no other thread reads the environment.
    unsafe { std::env::set_var("PTXAS", &ptxas) };
    install_cargo_fuzz()?;
    cargo(&["fmt", "--all", "--check"])?;
    // Files up to 500 lines, Python functions up to 150 (`cargo xtask size`).
    size::check()?;
    cargo(&[&["clippy", "--workspace", "--all-targets"][..], &DENY].concat())?;
    // The kernels for the GPU (the bodies `#[kernel]` writes out are held to the same limit by
    // the attribute itself).
    let kernels = [
        "clippy",
        "--package",
        "gpu-kernels",
        "--target",
        ptx_builder::TARGET,
        "-Zbuild-std=core",
        "--target-dir",
        "target/ptx-clippy",
    ];
    cargo(&[&kernels[..], &DENY].concat())?;
    // The Python extension's crate, outside the workspace: the same lints, its own build directory.
    let python = [
        "clippy",
        "--manifest-path",
        "python/Cargo.toml",
        "--all-targets",
        "--target-dir",
        "target/python",
    ];
    cargo(&[&python[..], &DENY].concat())?;
    // The host for aarch64: type-checked and compiled (no link, so no aarch64 C compiler needed).
    cargo(&["check", "--package", "host", "--target", AARCH64])?;
    cargo(&["test", "--workspace"])?;
    // SAFETY: as above, single-threaded.
    unsafe { std::env::set_var("RUSTDOCFLAGS", "-D warnings") };
    cargo(&["doc", "--package", "ferroconv", "--package", "host", "--no-deps"])?;
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
    outside::check_no_libcuda(&workspace().join("target/release/host"))?;
    // The library as a user's dependency: stable toolchain, no project settings, no CUDA.
    outside::run()?;
    // The Python package as a user installs it, tested on the CPU against scipy.
    crate::python::run_all()?;
    fuzz(FuzzMode::Deterministic)?;
    println!("ci: all checks passed");
    Ok(())
}
