//! `cargo xtask cpu-bench`: the CPU engine against OpenCV on the CPU, both in-process and warm,
//! compute time only, interleaved rounds; writes the table as markdown too.

use crate::args::Args;
use crate::shell::{cargo, workspace};
use crate::tools::pip_install;
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// OpenCV and numpy from PyPI, installed under target/tools/opencv-5.0.0.93 (pinned: the same table on
/// every machine comes from the same OpenCV).
const OPENCV_WHEELS: [&str; 2] = ["opencv-python-headless==5.0.0.93", "numpy==2.1.3"];
/// Where they go: one folder per pin, so a changed pin installs afresh.
const OPENCV_DIR: &str = "target/tools/opencv-5.0.0.93";

/// Untimed calls per process on each side before the timed ones.
const WARMUPS: usize = 3;

/// One row of the table.
struct Case {
    /// `host cpu-time --filter` and the script's `--case`.
    filter: &'static str,
    k: usize,
    sigma: Option<f64>,
    dtype: &'static str,
    channels: usize,
    /// The OpenCV call, for the table.
    opencv: &'static str,
}

impl Case {
    fn label(&self) -> String {
        let what = match self.filter {
            "random" => format!("general {0}x{0}", self.k),
            "gaussian" => format!("Gaussian k={} sigma {}", self.k, self.sigma.unwrap_or(0.0)),
            "sobel-x" => format!("Sobel-x k={}", self.k),
            other => format!("{other} k={}", self.k),
        };
        let layout = match self.channels {
            1 => "",
            3 => ", RGB",
            _ => ", RGBA",
        };
        format!("{what}, {}{layout}", self.dtype)
    }

    /// The arguments both sides take (the script ignores `--sigma` 0).
    fn args(&self, size: usize) -> Vec<String> {
        let mut a = vec![
            format!("--size={size}"),
            format!("--k={}", self.k),
            format!("--dtype={}", self.dtype),
            format!("--channels={}", self.channels),
        ];
        if let Some(s) = self.sigma {
            a.push(format!("--sigma={s}"));
        }
        a
    }
}

fn cases() -> Vec<Case> {
    let case = |filter, k, sigma, dtype, channels, opencv| Case {
        filter,
        k,
        sigma,
        dtype,
        channels,
        opencv,
    };
    let mut v = Vec::new();
    for k in [3, 5, 7] {
        for dtype in ["f32", "u8"] {
            v.push(case("random", k, None, dtype, 1, "filter2D"));
        }
    }
    for dtype in ["f32", "u8"] {
        v.push(case("gaussian", 7, Some(1.4), dtype, 1, "GaussianBlur"));
    }
    v.push(case("box", 5, None, "f32", 1, "sepFilter2D"));
    v.push(case("sobel-x", 3, None, "f32", 1, "sepFilter2D"));
    for channels in [3, 4] {
        for dtype in ["f32", "u8"] {
            v.push(case("random", 5, None, dtype, channels, "filter2D"));
        }
    }
    v
}

/// Options of the task.
struct Options {
    size: usize,
    rounds: usize,
    runs: usize,
    opencv: bool,
}

fn parse(args: &mut Args) -> Result<Options> {
    let mut number = |name: &str, default: usize| -> Result<usize> {
        Ok(args
            .value::<NonZeroUsize>(name)?
            .map_or(default, NonZeroUsize::get))
    };
    let (size, rounds, runs) = (
        number("--size", 4096)?,
        number("--rounds", 3)?,
        number("--runs", 5)?,
    );
    Ok(Options {
        size,
        rounds,
        runs,
        opencv: !args.flag("--no-opencv"),
    })
}

/// Installs the pinned OpenCV under target/tools/opencv-5.0.0.93 if needed and returns that folder (for
/// PYTHONPATH), or says why it cannot.
fn opencv_path() -> Result<PathBuf, String> {
    let dest = workspace().join(OPENCV_DIR);
    let works = |dest: &Path| {
        Command::new("python3")
            .args(["-c", "import cv2, numpy"])
            .env("PYTHONPATH", dest)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works(&dest) {
        return Ok(dest);
    }
    println!("installing {} into {}", OPENCV_WHEELS.join(" "), dest.display());
    let status = pip_install(&dest, &OPENCV_WHEELS).map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if !status.success() {
        return Err(format!(
            "pip could not install {} ({status})",
            OPENCV_WHEELS.join(" ")
        ));
    }
    if !works(&dest) {
        return Err(format!("`import cv2` fails with PYTHONPATH={}", dest.display()));
    }
    Ok(dest)
}

/// Runs a program that prints `#` lines and then one number (ms) per line; returns the numbers
/// and the `#` lines.
fn timed(cmd: &mut Command, what: &str) -> Result<(Vec<f64>, Vec<String>)> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut ms, mut notes) = (Vec::new(), Vec::new());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.strip_prefix('#') {
            Some(note) => notes.push(note.trim().to_string()),
            None => ms.push(
                line.parse::<f64>()
                    .with_context(|| format!("{what} printed '{line}', not milliseconds"))?,
            ),
        }
    }
    Ok((ms, notes))
}

fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let mid = s.len() / 2;
    if s.len() % 2 == 1 {
        s[mid]
    } else {
        (s[mid - 1] + s[mid]) / 2.0
    }
}

/// Today's date, `YYYY-MM-DD` (UTC).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The 1-minute load average (Linux), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// The CPU's model name and the number of cores this process may use.
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} core(s) available")
}

/// `cargo xtask cpu-bench [--size N] [--rounds R] [--runs N] [--no-opencv]`.
pub fn run(mut args: Args) -> Result<()> {
    let o = parse(&mut args)?;
    let given = args.as_given();
    args.finish()?;
    cargo(&["build", "--release", "--package", "host", "--bin", "host"])?;
    let ws = workspace();
    let host = ws.join("target/release/host");
    let script = ws.join("xtask/cpu_bench.py");
    let opencv = if o.opencv {
        match opencv_path() {
            Ok(p) => Some(p),
            Err(why) => {
                println!("OpenCV SKIPPED ({why}): only the host column is measured");
                None
            }
        }
    } else {
        println!("OpenCV SKIPPED (--no-opencv): only the host column is measured");
        None
    };
    let python = |mode: &str, case: &Case, extra: &[String]| {
        let mut c = Command::new("python3");
        c.arg(&script)
            .arg(mode)
            .arg(format!("--case={}", case.filter))
            .args(extra)
            .env("PYTHONPATH", opencv.as_ref().expect("only called with OpenCV"));
        c
    };
    let host_cmd = |case: &Case, extra: &[String]| {
        let mut c = Command::new(&host);
        c.arg("cpu-time")
            .arg(format!("--filter={}", case.filter))
            .args(extra);
        c
    };

    // Agreement first, on a small odd-sized image (a wrong border or a flipped filter shows here).
    if opencv.is_some() {
        let dir = ws.join("target/cpu-bench/check");
        for case in &cases() {
            let mut a = case.args(67);
            a.push(format!("--dump={}", dir.display()));
            timed(
                &mut host_cmd(
                    case,
                    &[a.clone(), vec!["--runs=1".into(), "--warmups=0".into()]].concat(),
                ),
                "host cpu-time --dump",
            )?;
            a.pop();
            a.push(format!("--dir={}", dir.display()));
            let out = python("check", case, &a)
                .output()
                .context("running cpu_bench.py check")?;
            print!("{}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                bail!(
                    "host and OpenCV disagree on {}: {}",
                    case.label(),
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
        }
    }

    let load_before = load_average();
    let mut rows = Vec::new();
    let mut opencv_note = String::new();
    let mut host_threads = String::from("?");
    for case in cases() {
        let a = case.args(o.size);
        let timing = [format!("--runs={}", o.runs), format!("--warmups={WARMUPS}")];
        let (mut host_ms, mut cv_ms) = (Vec::new(), Vec::new());
        for _ in 0..o.rounds {
            let (ms, notes) = timed(
                &mut host_cmd(&case, &[a.clone(), timing.to_vec()].concat()),
                "host cpu-time",
            )?;
            host_ms.extend(ms);
            if let Some(n) = notes
                .iter()
                .find_map(|n| n.split(" on ").nth(1)?.split(' ').next())
            {
                host_threads = n.to_string();
            }
            if opencv.is_some() {
                let (ms, notes) = timed(
                    &mut python("time", &case, &[a.clone(), timing.to_vec()].concat()),
                    "cpu_bench.py time",
                )?;
                cv_ms.extend(ms);
                opencv_note = notes.join(" ");
            }
        }
        let host = median(&host_ms);
        let cv = (!cv_ms.is_empty()).then(|| median(&cv_ms));
        println!(
            "{:<32} host {host:8.2} ms{}",
            case.label(),
            cv.map_or(String::new(), |c| format!(
                "   OpenCV {c:8.2} ms   {:.2}x",
                host / c
            ))
        );
        rows.push((case, host, cv));
    }

    let measured = Measured {
        rows,
        host_threads,
        opencv_note: opencv.is_some().then_some(opencv_note),
        load_before,
    };
    let md = report(&o, &given, &measured)?;
    println!("\n{md}");
    // Under target/, which git ignores: a report worth keeping is copied into bench/results/.
    let dir = ws.join("target/cpu-bench").join(today());
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("cpu-bench.md");
    std::fs::write(&path, format!("# CPU engine vs OpenCV\n\n{md}"))
        .with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// What a run of `cpu-bench` measured, for [`report`].
struct Measured {
    /// Each case with the host's and OpenCV's median ms (`None`: OpenCV skipped).
    rows: Vec<(Case, f64, Option<f64>)>,
    /// The rayon threads the host said it ran on.
    host_threads: String,
    /// What OpenCV said about itself (`None`: OpenCV skipped).
    opencv_note: Option<String>,
    /// The 1-minute load average before the timing.
    load_before: String,
}

/// The markdown report of what `m` measured, run as `cargo xtask cpu-bench {given}` with `o`.
fn report(o: &Options, given: &str, m: &Measured) -> Result<String> {
    let mut md = String::new();
    let runs = o.rounds * o.runs;
    writeln!(
        md,
        "`cargo xtask cpu-bench` ({size}x{size}, replicate border, compute time only, median of {runs} runs per \
         side in {} interleaved rounds of {}, both sides warm and in-process, each writing into an output \
         allocated once: OpenCV's `dst`, the host's `cpu::parallel_into`)\n",
        o.rounds,
        o.runs,
        size = o.size
    )?;
    let rev = Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .current_dir(workspace())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let command = format!("cargo xtask cpu-bench {given}");
    writeln!(md, "Command: `{}`, revision {rev}.\n", command.trim())?;
    writeln!(
        md,
        "Machine: {}. Host: `host cpu-time` (`ferroconv::engine::cpu::parallel_into`, {} rayon \
         thread(s), {} warm-up(s) per process).",
        machine(),
        m.host_threads,
        WARMUPS
    )?;
    writeln!(
        md,
        "Load average (1 min) before and after the timing: {} and {} (other work on the \
         machine slows both sides; the interleaved rounds share it out).",
        m.load_before,
        load_average()
    )?;
    if let Some(note) = &m.opencv_note {
        writeln!(md, "OpenCV: {note} (opencv-python-headless from PyPI).")?;
    }
    writeln!(
        md,
        "\n| case | host ms | OpenCV ms | ratio | host per sample vs gray |"
    )?;
    writeln!(md, "|---|---|---|---|---|")?;
    for (case, host, cv) in &m.rows {
        let gray = m
            .rows
            .iter()
            .find(|(g, ..)| {
                g.channels == 1 && g.filter == case.filter && g.k == case.k && g.dtype == case.dtype
            })
            .map(|(_, ms, _)| *ms);
        let per_sample = match gray {
            Some(g) if case.channels > 1 => format!("{:.2}x", host / case.channels as f64 / g),
            _ => "-".into(),
        };
        let (cv_text, ratio) = match cv {
            Some(c) => (format!("`{}` {c:.2}", case.opencv), format!("{:.2}x", host / c)),
            None => ("skipped".into(), "-".into()),
        };
        writeln!(
            md,
            "| {} | {host:.2} | {cv_text} | {ratio} | {per_sample} |",
            case.label()
        )?;
    }
    Ok(md)
}
