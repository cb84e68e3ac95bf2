//! The tools the tasks install under target/tools/ (ptxas and nvdisasm from PyPI, cargo-fuzz
//! with the stable toolchain), their pinned versions, and the `install-ptxas` and `install-tools`
//! tasks.

use crate::args::Args;
use crate::shell::{first_line, workspace};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The NVIDIA wheel that provides `ptxas`; pinned to 13.0.x so the PTX it checks matches what
/// driver 580 (PTX ISA <= 9.0) accepts.
pub const NVCC_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";
/// The NVIDIA wheel that provides `nvdisasm` (for `sass-diff`). PyPI has none of the 13.0 line
/// (the package starts at 13.2); this is the last release of the oldest line there. It only
/// reads the SASS that the pinned ptxas makes, so its version does not change what is compared.
pub const NVDISASM_WHEEL: &str = "nvidia-cuda-nvdisasm==13.2.86";

/// The cargo-fuzz release installed under target/tools/ (with the stable toolchain: its
/// dependencies do not compile on the pinned nightly).
pub const CARGO_FUZZ_VERSION: &str = "0.13.1";

/// `cargo xtask install-ptxas`.
pub fn install_ptxas_task(args: Args) -> Result<()> {
    args.finish()?;
    install_ptxas().map(|_| ())
}

/// `cargo xtask install-tools`: everything `ci` needs beyond the pinned toolchain.
pub fn install_tools_task(args: Args) -> Result<()> {
    args.finish()?;
    install_ptxas()?;
    install_cargo_fuzz().map(|_| ())
}

/// `ptxas`: the `PTXAS` variable, else `ptxas` on `PATH`, else the copy under target/tools/.
pub fn find_ptxas() -> Option<PathBuf> {
    ptx_builder::find_ptxas(&workspace())
}

/// `python3 -m pip install --target dest ARGS...`, quietly: the project-local installs of
/// tools from PyPI.
pub fn pip_install(dest: &Path, args: &[&str]) -> std::io::Result<std::process::ExitStatus> {
    Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(dest)
        .args(args)
        .status()
}

/// Installs `wheel` (no dependencies) into `dest` unless `program` is there already, and returns
/// `program`.
fn install_wheel(wheel: &str, dest: &Path, program: PathBuf) -> Result<PathBuf> {
    let name = program
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    if program.is_file() {
        println!("{name} already installed at {}", program.display());
        return Ok(program);
    }
    println!("installing {name} from {wheel} into {}", dest.display());
    let status = pip_install(dest, &["--no-deps", wheel])
        .with_context(|| format!("running python3 -m pip ({name} comes from PyPI)"))?;
    if !status.success() || !program.is_file() {
        bail!("installing {wheel} failed ({status})");
    }
    Ok(program)
}

/// Installs the pinned nvcc wheel under target/tools/nvcc and returns the ptxas path.
pub fn install_ptxas() -> Result<PathBuf> {
    let ws = workspace();
    install_wheel(
        NVCC_WHEEL,
        &ws.join("target/tools/nvcc"),
        ptx_builder::installed_ptxas(&ws),
    )
}

/// Installs the pinned nvdisasm wheel under target/tools/nvdisasm and returns the nvdisasm path.
pub fn install_nvdisasm() -> Result<PathBuf> {
    let dest = workspace().join("target/tools/nvdisasm");
    let program = dest.join("nvidia/cu13/bin/nvdisasm");
    install_wheel(NVDISASM_WHEEL, &dest, program)
}

/// The cargo-fuzz binary `install-tools` puts under target/tools/.
pub fn installed_cargo_fuzz() -> PathBuf {
    workspace().join("target/tools/bin/cargo-fuzz")
}

/// The version an installed cargo-fuzz reports, if it runs.
pub fn cargo_fuzz_version(path: &Path) -> Option<String> {
    let line = first_line(&path.to_string_lossy(), &["fuzz", "--version"]).ok()?;
    line.split_whitespace().last().map(str::to_string)
}

/// Installs the pinned cargo-fuzz under target/tools/ unless it is there already, and returns
/// its path. It is built by the stable toolchain from outside the workspace, so neither the
/// pinned nightly nor the workspace's settings apply to it.
pub fn install_cargo_fuzz() -> Result<PathBuf> {
    let path = installed_cargo_fuzz();
    if cargo_fuzz_version(&path).as_deref() == Some(CARGO_FUZZ_VERSION) {
        println!(
            "cargo-fuzz {CARGO_FUZZ_VERSION} already installed at {}",
            path.display()
        );
        return Ok(path);
    }
    let root = workspace().join("target/tools");
    let args = [
        "run",
        "stable",
        "cargo",
        "install",
        "--locked",
        "--root",
        &root.to_string_lossy(),
        "cargo-fuzz",
        "--version",
        CARGO_FUZZ_VERSION,
    ];
    println!("$ rustup {}", args.join(" "));
    let mut cmd = Command::new("rustup");
    cmd.args(args).current_dir(std::env::temp_dir());
    // What the outer cargo set for the pinned nightly must not reach the stable build.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if (key.starts_with("CARGO") && key != "CARGO_HOME")
            || key.starts_with("RUSTUP_TOOLCHAIN")
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || key == "RUSTFLAGS"
        {
            cmd.env_remove(key.as_ref());
        }
    }
    let status = cmd
        .status()
        .context("running rustup (cargo-fuzz is built with the stable toolchain)")?;
    if !status.success() {
        bail!(
            "installing cargo-fuzz {CARGO_FUZZ_VERSION} failed ({status}); it needs the stable \
             toolchain: `rustup toolchain install stable`"
        );
    }
    Ok(path)
}
