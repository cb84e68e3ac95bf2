//! Project tasks, run as `cargo xtask <task>`: build-ptx, install-ptxas, verify, bench, sanitize,
//! plot, soak, cpu-bench, fuzz, ci, doctor.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The NVIDIA wheel that provides `ptxas`; pinned to 13.0.x so the PTX it checks matches what
/// driver 580 (PTX ISA <= 9.0) accepts.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";

/// The cargo-fuzz release installed under target/tools/ (with the stable toolchain: its
/// dependencies do not compile on the pinned nightly).
const CARGO_FUZZ_VERSION: &str = "0.13.1";
/// The fuzz targets in fuzz/fuzz_targets/; each has committed seeds in fuzz/seeds/<target>/.
const FUZZ_TARGETS: [&str; 2] = ["filter_file", "image_decode"];
/// The deterministic fuzzing pass of `cargo xtask ci`: libFuzzer's seed and number of runs per
/// target (the committed seeds are replayed first).
const CI_FUZZ_SEED: u32 = 1;
const CI_FUZZ_RUNS: u32 = 200_000;
/// The second CPU architecture CI builds the host for (`cargo check`: GH200 hosts are aarch64).
const AARCH64: &str = "aarch64-unknown-linux-gnu";

const USAGE: &str = "usage: cargo xtask <task> [ARGS...]

tasks:
  build-ptx [--arch sm_90]   compile gpu-kernels to target/ptx/kernels.ptx and, when ptxas is
                             available, print each kernel's registers, shared memory, stack and
                             spills (fails on any spill)
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
                             and writes bench/results/cpu-<date>/cpu-bench.md
  fuzz [--seconds N]         random fuzzing: each target for N seconds (default 30) from its
                             seeds; a crashing input lands in fuzz/artifacts/<target>/ and belongs
                             in fuzz/seeds/<target>/ and a test once fixed
  fuzz --ci                  only the deterministic fuzzing pass of `ci`
  ci                         everything CI checks: formatting, clippy (host and nvptx), `cargo
                             check` of the host for aarch64-unknown-linux-gnu, tests,
                             PTX build + ptxas check, the main job on the CPU, and deterministic
                             fuzzing (each target replays its seeds, then {CI_FUZZ_RUNS} runs with
                             -seed={CI_FUZZ_SEED})
  doctor                     check what building, running and `ci` need (pinned toolchain, its
                             components and aarch64 target, stable toolchain, cc, python3/pip,
                             ptxas, cargo-fuzz, the PTX build, the CUDA driver) and say how to
                             fix each
  help, --help, -h           this list";

mod cpu_bench;
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
            let mode = match args.get(1).map(String::as_str) {
                Some("--seconds") => FuzzMode::Random {
                    seconds: args
                        .get(2)
                        .and_then(|s| s.parse().ok())
                        .context("--seconds needs a whole number")?,
                },
                Some("--ci") => FuzzMode::Deterministic,
                Some(other) => bail!("unknown argument {other}\n{}", usage()),
                None => FuzzMode::Random { seconds: 30 },
            };
            fuzz(mode)
        }
        Some("install-tools") => {
            install_ptxas()?;
            install_cargo_fuzz().map(|_| ())
        }
        Some("cpu-bench") => cpu_bench::run(&args[1..]),
        Some("ci") => ci(),
        Some("doctor") => doctor(),
        Some("help" | "--help" | "-h") => {
            println!("{}", usage());
            Ok(())
        }
        Some(other) => bail!("unknown task '{other}'\n{}", usage()),
        None => bail!("no task given\n{}", usage()),
    }
}

fn usage() -> String {
    USAGE
        .replace("{NVCC_WHEEL}", NVCC_WHEEL)
        .replace("{CARGO_FUZZ_VERSION}", CARGO_FUZZ_VERSION)
        .replace("{CI_FUZZ_RUNS}", &CI_FUZZ_RUNS.to_string())
        .replace("{CI_FUZZ_SEED}", &CI_FUZZ_SEED.to_string())
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
    let w = report
        .iter()
        .map(|k| k.name.len())
        .max()
        .unwrap_or(0)
        .max("kernel".len());
    println!(
        "ptxas {arch}:\n{:<w$} {:>5} {:>10} {:>7} {:>12}",
        "kernel", "regs", "shared B", "stack B", "spill st/ld"
    );
    for k in &report {
        println!(
            "{:<w$} {:>5} {:>10} {:>7} {:>7}/{:<4}",
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

fn find_ptxas() -> Option<PathBuf> {
    ptx_builder::find_ptxas(&workspace())
}

fn installed_ptxas() -> PathBuf {
    ptx_builder::installed_ptxas(&workspace())
}

/// `python3 -m pip install --target dest ARGS...`, quietly: the project-local installs of
/// tools from PyPI.
fn pip_install(dest: &Path, args: &[&str]) -> std::io::Result<std::process::ExitStatus> {
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

/// Installs the pinned wheel under target/tools/nvcc and returns the ptxas path.
fn install_ptxas() -> Result<PathBuf> {
    let ptxas = installed_ptxas();
    if ptxas.is_file() {
        println!("ptxas already installed at {}", ptxas.display());
        return Ok(ptxas);
    }
    let dest = workspace().join("target/tools/nvcc");
    println!("installing ptxas from {NVCC_WHEEL} into {}", dest.display());
    let status = pip_install(&dest, &["--no-deps", NVCC_WHEEL])
        .context("running python3 -m pip (ptxas comes from PyPI)")?;
    if !status.success() || !ptxas.is_file() {
        bail!("installing {NVCC_WHEEL} failed ({status})");
    }
    Ok(ptxas)
}

/// Everything CI runs, in order; stops at the first failure.
fn ci() -> Result<()> {
    // The tools first: every build below then embeds SASS made by the pinned ptxas.
    let ptxas = install_ptxas()?;
    // SAFETY: xtask is single-threaded here; no other thread reads the environment.
    unsafe { std::env::set_var("PTXAS", &ptxas) };
    install_cargo_fuzz()?;
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
    // The host for aarch64: type-checked and compiled (no link, so no aarch64 C compiler needed).
    cargo(&["check", "--package", "host", "--target", AARCH64])?;
    cargo(&["test", "--workspace"])?;
    // SAFETY: as above, single-threaded.
    unsafe { std::env::set_var("RUSTDOCFLAGS", "-D warnings") };
    cargo(&["doc", "--package", "host", "--no-deps"])?;
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
    fuzz(FuzzMode::Deterministic)?;
    println!("ci: all checks passed");
    Ok(())
}

/// The cargo-fuzz binary `install-tools` puts under target/tools/.
fn installed_cargo_fuzz() -> PathBuf {
    workspace().join("target/tools/bin/cargo-fuzz")
}

/// The version an installed cargo-fuzz reports, if it runs.
fn cargo_fuzz_version(path: &Path) -> Option<String> {
    let line = first_line(&path.to_string_lossy(), &["fuzz", "--version"]).ok()?;
    line.split_whitespace().last().map(str::to_string)
}

/// Installs the pinned cargo-fuzz under target/tools/ unless it is there already, and returns
/// its path. It is built by the stable toolchain from outside the workspace, so neither the
/// pinned nightly nor the workspace's settings apply to it.
fn install_cargo_fuzz() -> Result<PathBuf> {
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

/// How `fuzz` runs the targets.
enum FuzzMode {
    /// CI: replay the committed seeds, then a fixed number of runs from a fixed seed.
    Deterministic,
    /// A person's search for new inputs: random, for this long per target.
    Random { seconds: u64 },
}

/// Runs every fuzz target with the committed seeds (fuzz/seeds/<target>/) as its corpus, after
/// installing cargo-fuzz if needed. A crash fails the task; libFuzzer leaves the input under
/// fuzz/artifacts/<target>/.
fn fuzz(mode: FuzzMode) -> Result<()> {
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

/// A command's whole standard output, empty if it cannot run.
fn stdout_of(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
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
