//! The workspace's path, and running programs: cargo in the workspace, or any command for its
//! output.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root folder (the parent of xtask/).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is in the workspace")
        .to_path_buf()
}

/// Runs `cargo ARGS` in the workspace and fails if it fails.
pub fn cargo(args: &[&str]) -> Result<()> {
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

/// A command's whole standard output, empty if it cannot run.
pub fn stdout_of(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The first line of a command's output (stdout, else stderr), or why it did not run.
pub fn first_line(program: &str, args: &[&str]) -> Result<String, String> {
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
