//! `cargo xtask python`: the Python package built and tested as a user installs it, on the CPU:
//! a virtual environment in `target/python-venv` with the pinned requirements of
//! `python/requirements-test.txt`, `pip install ./python` (the extension built by the pinned
//! toolchain into `target/python`), a check that the extension does not link a CUDA library, and
//! the package's pytest suite against scipy.

use crate::outside::check_no_libcuda;
use crate::shell::workspace;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `program args` in the workspace with `envs`, and fails if it fails.
fn run(program: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Result<()> {
    println!("$ {} {}", program.display(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(workspace())
        .status()
        .with_context(|| format!("running {}", program.display()))?;
    if !status.success() {
        bail!("`{} {}` failed ({status})", program.display(), args.join(" "));
    }
    Ok(())
}

/// Builds, installs and tests the package; see the module's documentation.
pub fn run_all() -> Result<()> {
    let ws = workspace();
    let venv = ws.join("target/python-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        let venv_arg = venv.to_string_lossy().into_owned();
        run(Path::new("python3"), &["-m", "venv", &venv_arg], &[])?;
    }
    // The build backend (maturin, from the requirements) runs from the environment's bin/.
    let mut path = std::ffi::OsString::from(venv.join("bin"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let path = PathBuf::from(path);
    let pip = |args: &[&str]| -> Result<()> {
        let mut all = vec!["-m", "pip", "--disable-pip-version-check", "install", "--quiet"];
        all.extend_from_slice(args);
        run(
            &python,
            &all,
            &[("CARGO_TARGET_DIR", &ws.join("target/python")), ("PATH", &path)],
        )
    };
    pip(&["-r", "python/requirements-test.txt"])?;
    pip(&[
        "--no-build-isolation",
        "--no-deps",
        "--force-reinstall",
        "./python",
    ])?;
    let found = Command::new(&python)
        .args(["-c", "import ferroconv._native as m; print(m.__file__)"])
        .current_dir(ws.join("target"))
        .output()
        .context("importing the installed package")?;
    if !found.status.success() {
        bail!(
            "the installed package does not import: {}",
            String::from_utf8_lossy(&found.stderr).trim()
        );
    }
    let extension = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    check_no_libcuda(&extension)?;
    run(&python, &["-m", "pytest", "-q", "-rs", "python/tests"], &[])
}
