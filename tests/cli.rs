//! Runs the real `host` binary: the main job, verification, GPU skipping and bad input.

use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .output()
        .expect("run host")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn main_job_prints_cpu_rows_and_says_why_gpu_rows_are_missing() {
    let o = host(&[
        "--size",
        "64",
        "--mask",
        "3",
        "--runs",
        "2",
        "--cpu-runs",
        "1",
        "--cpu-only",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("GPU variants skipped: --cpu-only was given"),
        "{out}"
    );
    for row in ["cpu-seq", "cpu-par"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("no {row} row:\n{out}"));
        assert!(line.ends_with("PASS"), "{line}");
    }
}

#[test]
fn main_job_runs_with_or_without_a_gpu() {
    let o = host(&[
        "--width",
        "33",
        "--height",
        "17",
        "--mask",
        "5",
        "--runs",
        "2",
        "--cpu-runs",
        "1",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    if out.contains("GPU variants skipped") {
        eprintln!(
            "SKIPPED GPU rows (no usable GPU here): {}",
            out.lines().find(|l| l.contains("skipped")).unwrap()
        );
    } else {
        for row in ["naive", "constant", "tiled"] {
            let line = out
                .lines()
                .find(|l| l.starts_with(row))
                .unwrap_or_else(|| panic!("no {row} row:\n{out}"));
            assert!(line.ends_with("PASS"), "{line}");
        }
    }
}

#[test]
fn verify_passes_on_small_ladder() {
    let o = host(&["verify", "--sizes", "1x1,1x7,7x1,31x17", "--filters", "1,3,17"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    if out.contains("GPU variants were skipped") {
        eprintln!("SKIPPED GPU verification (no usable GPU here); CPU cases ran");
    }
}

#[test]
fn bad_arguments_get_one_line_errors_and_nonzero_exit() {
    for (args, needle) in [
        (&["--mask", "4"][..], "size 4 is not supported"),
        (&["--mask", "33"][..], "size 33 is not supported"),
        (&["--size", "0"][..], "has no pixels"),
        (&["--width", "600000", "--height", "4"][..], "too large"),
        (&["verify", "--filters", "2"][..], "size 2 is not supported"),
        (&["verify", "--sizes", "0x5"][..], "has no pixels"),
    ] {
        let o = host(args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {out}\n{err}");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
