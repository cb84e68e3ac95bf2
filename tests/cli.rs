//! Runs the real `host` binary: the main job, verification, GPU skipping and bad input.

mod common;
use common::{host, text};
use ferroconv::DType;
use ferroconv::engine::gpu::Variant;
use std::process::Command;

fn row<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} row:\n{out}"))
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
    for name in ["cpu-naive", "cpu-seq", "cpu-par"] {
        assert!(row(&out, name).ends_with("PASS"), "{out}");
    }
}

#[test]
fn main_job_runs_every_option_with_or_without_a_gpu() {
    // Each case with whether its filter is rank-1 (box by default, gaussian; sharpen is not), which
    // decides whether the separable variants run.
    let cases: [(&[&str], bool); 3] = [
        (&["--width", "33", "--height", "17", "--mask", "5"], true),
        (
            &[
                "--size",
                "40",
                "--channels",
                "4",
                "--dtype",
                "u8",
                "--border",
                "reflect",
                "--filter",
                "gaussian",
                "--mask",
                "7",
            ],
            true,
        ),
        (
            &[
                "--size",
                "24",
                "--channels",
                "3",
                "--dtype",
                "u16",
                "--border",
                "valid",
                "--filter",
                "sharpen",
                "--flip",
            ],
            false,
        ),
    ];
    for (args, rank1) in cases {
        let o = host(&[args, &["--runs", "2", "--cpu-runs", "1"][..]].concat());
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}\n{err}");
        if out.contains("GPU variants skipped") {
            eprintln!("SKIPPED GPU rows for {args:?} (no usable GPU here)");
        } else {
            let after = |flag: &str| args.iter().position(|a| *a == flag).map(|i| args[i + 1]);
            let dtype = after("--dtype").map_or(DType::F32, |d| {
                *DType::ALL
                    .iter()
                    .find(|t| t.suffix() == d)
                    .expect("a sample type")
            });
            let radius = after("--mask").map_or(1, |m| m.parse::<usize>().expect("a mask size") / 2);
            for variant in Variant::ALL {
                let name = variant.name();
                if (variant.needs_rank1() && !rank1) || !variant.supports(dtype, radius) {
                    let present = out.lines().any(|l| l.split_whitespace().next() == Some(name));
                    assert!(
                        !present,
                        "{args:?}: {name} ran with a filter or sample type it does not take: {out}"
                    );
                } else {
                    assert!(row(&out, name).ends_with("PASS"), "{args:?}: {out}");
                }
            }
        }
    }
}

#[test]
fn verify_passes_on_a_small_ladder() {
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
    let dir = std::env::temp_dir().join(format!("conv-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ragged = dir.join("ragged.txt");
    std::fs::write(&ragged, "1 2 3\n4 5\n6 7 8\n").unwrap();
    let ragged = ragged.to_str().unwrap();
    let missing = dir.join("missing.txt");
    let missing = missing.to_str().unwrap();
    for (args, needle) in [
        (
            &["--mask", "4", "--filter", "sharpen"][..],
            "size 4 is not supported",
        ),
        (&["--mask", "1025"][..], "a 1025x1025 filter is not supported"),
        (
            &["--mask", "129", "--filter", "emboss"][..],
            "size 129 is not supported",
        ),
        (&["--size", "0"][..], "has no pixels"),
        (&["--width", "600000", "--height", "4"][..], "too large"),
        (&["--channels", "2"][..], "2 channels are not supported"),
        (
            &["--size", "8", "--border", "valid", "--mask", "9"][..],
            "at least as large as the 9x9 filter",
        ),
        (
            &["--filter", "sharpen", "--separable", "on"][..],
            "needs a rank-1 filter",
        ),
        (
            &["--filter-file", ragged][..],
            "line 2 has 2 numbers but line 1 has 3",
        ),
        (&["--filter-file", missing][..], "cannot read filter file"),
        (
            &["--filter", "sobel-x", "--mask", "1"][..],
            "sobel-x needs at least 3 taps along its derivative, got 1",
        ),
        (
            &["verify", "--filters", "1025"][..],
            "a 1025x1025 filter is not supported",
        ),
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn soak_on_the_cpu_engine_passes_and_reports_its_numbers() {
    let o = host(&[
        "soak",
        "--cpu",
        "--small",
        "40",
        "--large",
        "2",
        "--large-side",
        "300",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("images 42,"), "{out}");
    assert!(out.contains("re-run checks 4;"), "{out}");
    assert!(out.contains("soak PASS"), "{out}");
}

#[test]
fn soak_without_a_gpu_says_skipped() {
    if ferroconv::engine::gpu::Gpu::new().is_ok() {
        return;
    }
    let o = host(&["soak", "--small", "1", "--large", "0"]);
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(out.contains("SKIPPED: the soak run needs a GPU"), "{out}\n{err}");
}

#[test]
fn sanitize_without_compute_sanitizer_is_a_one_line_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["sanitize", "--tools", "memcheck"])
        .env("COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer")
        .output()
        .expect("run host");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("compute-sanitizer not found"), "{err}");
}
