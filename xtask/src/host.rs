//! The tasks that run the host program in release mode with the task's arguments: `verify`,
//! `bench` (then plots its results), `sanitize` and `soak`.

use crate::args::Args;
use crate::plot;
use crate::shell::{cargo, workspace};
use anyhow::Result;
use std::path::PathBuf;

/// `cargo xtask TASK ARGS...` for TASK = verify, sanitize or soak: `host TASK ARGS...`.
pub fn run(task: &str, args: Args) -> Result<()> {
    run_host(task, &args.forward())
}

/// `cargo xtask bench ARGS...`: `host bench ARGS...`, then the plots of what it wrote (in
/// `--out DIR`, default target/bench).
pub fn bench(mut args: Args) -> Result<()> {
    let out = args.value::<PathBuf>("--out")?;
    let mut host_args = args.forward();
    if let Some(out) = &out {
        host_args.extend(["--out".to_string(), out.to_string_lossy().into_owned()]);
    }
    run_host("bench", &host_args)?;
    plot::write_plots(&out.unwrap_or_else(|| workspace().join("target/bench")))
}

/// Builds the host in release mode and runs `host TASK ARGS...`.
fn run_host(task: &str, args: &[String]) -> Result<()> {
    let mut cargo_args = vec!["run", "--release", "--package", "host", "--", task];
    cargo_args.extend(args.iter().map(String::as_str));
    cargo(&cargo_args)
}
