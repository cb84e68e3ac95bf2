//! Project tasks, run as `cargo xtask <task>`: the list is in [`USAGE`]; each task lives in its
//! own module, and all of them read their arguments with [`args::Args`].

mod args;
mod ci;
mod cpu_bench;
mod doctor;
mod fuzz;
mod host;
mod outside;
mod plot;
mod ptx;
mod ptxas_report;
mod python;
mod sass;
mod sass_diff;
mod shell;
mod size;
mod tools;

use anyhow::{Result, bail};
use args::Args;

const USAGE: &str = "usage: cargo xtask <task> [ARGS...]

tasks:
  build-ptx [--arch sm_90]   compile gpu-kernels to target/ptx/kernels.ptx and, when ptxas is
                             available, print each kernel's registers, shared memory, stack and
                             spills (fails on a spill xtask/src/allowed_spills.txt does not
                             allow)
  install-ptxas              install ptxas from PyPI ({NVCC_WHEEL}) under target/tools/
  install-tools              install everything `ci` needs beyond the pinned toolchain, under
                             target/tools/: ptxas and cargo-fuzz {CARGO_FUZZ_VERSION} (built with
                             the stable toolchain)
  verify [ARGS...]           build the host in release mode and run `host verify ARGS...`
  bench [ARGS...]            build the host in release mode and run `host bench ARGS...` (needs a
                             GPU; writes target/bench/bench*.csv and bench.md), then plot them
  plot [DIR]                 SVG plots (time vs size, % roofline, speed-up over the CPU) from a
                             bench run's CSV files in DIR (default target/bench)
  sanitize [ARGS...]         build the host in release mode and run `host sanitize ARGS...`
                             (needs a GPU and compute-sanitizer)
  soak [ARGS...]             build the host in release mode and run `host soak ARGS...` (GPU)
  cpu-bench [--size N] [--rounds R] [--runs N] [--no-opencv]
                             the CPU engine against OpenCV (filter2D, GaussianBlur, sepFilter2D;
                             opencv-python-headless from PyPI under target/tools/opencv-5.0.0.93, skipped
                             when pip cannot install it): 4096x4096 by default, replicate border,
                             median of 3 interleaved rounds of 5 runs per side; prints the table
                             and writes target/cpu-bench/<date>/cpu-bench.md
  fuzz [--seconds N]         random fuzzing: each target for N seconds (default 30) from its
                             seeds; a crashing input lands in fuzz/artifacts/<target>/ and belongs
                             in fuzz/seeds/<target>/ and a test once fixed
  fuzz --ci                  only the deterministic fuzzing pass of `ci`
  size                       the size rules (fails listing each breach): no tracked Rust or Python
                             file over 500 lines (but those xtask/src/oversized.txt allows), no
                             Python function over 150 lines; Rust functions are held to 150
                             lines by clippy's too_many_lines (clippy.toml) in `ci`
  ci                         everything CI checks: formatting, the size rules (`size`), clippy
                             (host, with too_many_lines; nvptx), `cargo check` of the host for
                             aarch64-unknown-linux-gnu, tests, PTX build + ptxas check, the main job on the CPU (its binary must
                             not link libcuda), tests/outside built from a copy outside the
                             checkout on Rust {STABLE} with a cleared environment, the Python
                             package built, installed and tested (see `python`), and
                             deterministic fuzzing (each target replays its seeds, then
                             {CI_FUZZ_RUNS} runs with -seed={CI_FUZZ_SEED})
  outside                    only the tests/outside step of `ci` (Rust {STABLE}, installed if
                             missing)
  python                     only the Python step of `ci`: target/python-venv with
                             python/requirements-test.txt, `pip install ./python`, the extension
                             checked not to link libcuda, pytest python/tests (CPU)
  doctor                     check what building, running and `ci` need (pinned toolchain, its
                             components and aarch64 target, stable toolchain, cc, python3/pip,
                             ptxas, cargo-fuzz, the PTX build, the CUDA driver) and say how to
                             fix each
  sass-diff REV              compare the SASS of every kernel entry point built from git revision
                             REV with the working tree's (renamed kernels paired by name); fails
                             listing the entries that differ. Each tree's PTX comes from its own
                             `build-ptx` (REV's in a temporary git worktree, built under
                             target/sass-diff/); ptxas and nvdisasm are installed under
                             target/tools/ (nvdisasm from {NVDISASM_WHEEL})
  help, --help, -h           this list";

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

/// Runs the task the first argument names, with the others.
fn run() -> Result<()> {
    let mut all = std::env::args().skip(1);
    let Some(task) = all.next() else {
        bail!("no task given\n{}", usage());
    };
    let args = Args::new(&task, all.collect());
    match task.as_str() {
        "build-ptx" => ptx::run(args),
        "install-ptxas" => tools::install_ptxas_task(args),
        "install-tools" => tools::install_tools_task(args),
        "verify" | "sanitize" | "soak" => host::run(&task, args),
        "bench" => host::bench(args),
        "plot" => plot::run(args),
        "cpu-bench" => cpu_bench::run(args),
        "fuzz" => fuzz::run(args),
        "ci" => ci::run(args),
        "outside" => args.finish().and_then(|()| outside::run()),
        "python" => args.finish().and_then(|()| python::run_all()),
        "size" => size::run(args),
        "doctor" => doctor::run(args),
        "sass-diff" => sass_diff::run(args),
        "help" | "--help" | "-h" => {
            args.finish()?;
            println!("{}", usage());
            Ok(())
        }
        other => bail!("unknown task '{other}'\n{}", usage()),
    }
}

/// [`USAGE`] with the pinned versions and CI's fuzzing settings filled in.
fn usage() -> String {
    USAGE
        .replace("{NVCC_WHEEL}", tools::NVCC_WHEEL)
        .replace("{NVDISASM_WHEEL}", tools::NVDISASM_WHEEL)
        .replace("{CARGO_FUZZ_VERSION}", tools::CARGO_FUZZ_VERSION)
        .replace("{CI_FUZZ_RUNS}", &fuzz::CI_FUZZ_RUNS.to_string())
        .replace("{CI_FUZZ_SEED}", &fuzz::CI_FUZZ_SEED.to_string())
        .replace("{STABLE}", outside::STABLE)
}
