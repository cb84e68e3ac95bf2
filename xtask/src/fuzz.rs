//! `cargo xtask fuzz`: the fuzz targets under fuzz/, randomly for a while or CI's deterministic pass.

use crate::args::Args;
use crate::shell::workspace;
use crate::tools::install_cargo_fuzz;
use anyhow::{Context, Result, bail};
use std::process::Command;

/// The fuzz targets in fuzz/fuzz_targets/; each has committed seeds in fuzz/seeds/<target>/.
const FUZZ_TARGETS: [&str; 2] = ["filter_file", "image_decode"];
/// The deterministic fuzzing pass of `cargo xtask ci`: libFuzzer's seed and number of runs per
/// target (the committed seeds are replayed first).
pub const CI_FUZZ_SEED: u32 = 1;
pub const CI_FUZZ_RUNS: u32 = 200_000;

/// How `fuzz` runs the targets.
pub enum FuzzMode {
    /// CI: replay the committed seeds, then a fixed number of runs from a fixed seed.
    Deterministic,
    /// A person's search for new inputs: random, for this long per target.
    Random { seconds: u64 },
}

/// `cargo xtask fuzz [--seconds N]` or `cargo xtask fuzz --ci`.
pub fn run(mut args: Args) -> Result<()> {
    let ci = args.flag("--ci");
    let seconds = args.value::<u64>("--seconds")?;
    args.finish()?;
    let mode = match (ci, seconds) {
        (true, Some(_)) => bail!("fuzz takes --ci or --seconds N, not both"),
        (true, None) => FuzzMode::Deterministic,
        (false, seconds) => FuzzMode::Random {
            seconds: seconds.unwrap_or(30),
        },
    };
    fuzz(mode)
}

/// Runs every fuzz target with the committed seeds (fuzz/seeds/<target>/) as its corpus, after
/// installing cargo-fuzz if needed. A crash fails the task; libFuzzer leaves the input under
/// fuzz/artifacts/<target>/.
pub fn fuzz(mode: FuzzMode) -> Result<()> {
    let cargo_fuzz = install_cargo_fuzz()?;
    let dir = workspace().join("fuzz");
    for target in FUZZ_TARGETS {
        let seeds = dir.join("seeds").join(target);
        // New inputs go to the first folder: a scratch copy for CI, the ignored corpus otherwise.
        let (corpus, options) = match mode {
            FuzzMode::Deterministic => {
                let scratch = workspace().join("target/fuzz-corpus").join(target);
                let _ = std::fs::remove_dir_all(&scratch);
                (
                    scratch,
                    vec![format!("-seed={CI_FUZZ_SEED}"), format!("-runs={CI_FUZZ_RUNS}")],
                )
            }
            FuzzMode::Random { seconds } => (
                dir.join("corpus").join(target),
                vec![format!("-max_total_time={seconds}")],
            ),
        };
        std::fs::create_dir_all(&corpus)?;
        let mut args = vec!["fuzz".to_string(), "run".into(), "-O".into(), target.into()];
        args.push(corpus.to_string_lossy().into_owned());
        args.push(seeds.to_string_lossy().into_owned());
        args.push("--".into());
        args.extend(options);
        args.push("-max_len=65536".into());
        // Called directly (as `cargo fuzz` would), so no other cargo-fuzz on PATH is picked.
        println!("$ (cd fuzz && {} {})", cargo_fuzz.display(), args.join(" "));
        let status = Command::new(&cargo_fuzz)
            .args(&args)
            .current_dir(&dir)
            .status()
            .context("running cargo fuzz")?;
        if !status.success() {
            bail!(
                "fuzz target {target} failed ({status}): see the output above; an input that \
                 crashed it is left under fuzz/artifacts/{target}/: fix the cause, then add the \
                 input to fuzz/seeds/{target}/ and to a test"
            );
        }
    }
    Ok(())
}
