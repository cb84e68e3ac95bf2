//! Runs the real `host` binary: the main job, verification, GPU skipping and bad input.

mod common;
use common::{MAIN_JOB_CASES, VERIFY_LADDER, host, host_without_gpu, row, text};
use ferroconv::DType;
use ferroconv::engine::gpu::Variant;
use std::process::Command;

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
fn main_job_without_a_gpu_runs_every_option_on_the_cpu() {
    // The GPU rows of the same options: `gpu`'s `main_job_gpu_rows_pass_for_every_option`.
    for (args, _) in MAIN_JOB_CASES {
        let o = host_without_gpu(&[args, &["--runs", "2", "--cpu-runs", "1"][..]].concat());
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}\n{err}");
        assert!(out.contains("GPU variants skipped"), "{args:?}: {out}");
        for name in ["cpu-naive", "cpu-seq", "cpu-par"] {
            assert!(row(&out, name).ends_with("PASS"), "{args:?}: {out}");
        }
    }
}

#[test]
fn verify_without_a_gpu_passes_its_cpu_cases_on_a_small_ladder() {
    // With a GPU: `gpu`'s `verify_passes_on_a_small_ladder_on_the_gpu`.
    let o = host_without_gpu(&VERIFY_LADDER);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(out.contains("GPU variants were skipped"), "{out}");
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
    let o = host_without_gpu(&["soak", "--small", "1", "--large", "0"]);
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

/// `host info` takes its largest filters from the library: 127x127 for any filter, 1023x1023
/// for a rank-1 one (not the 31x31 that most GPU variants stop at), in text and JSON.
#[test]
fn info_names_the_largest_filters_the_library_takes() {
    use ferroconv::model::filter::{MAX_GENERAL_SIZE, MAX_SEPARABLE_SIZE};
    let (general, rank1) = (MAX_GENERAL_SIZE, MAX_SEPARABLE_SIZE);
    let o = host(&["info"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("largest filter: "))
        .unwrap_or_else(|| panic!("no largest filter line:\n{out}"));
    assert!(
        line.starts_with(&format!("largest filter: {general}x{general}")),
        "{line}"
    );
    assert!(line.contains(&format!("{rank1}x{rank1} rank-1")), "{line}");
    let o = host(&["info", "--json"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["largest_filter"], general, "{doc}");
    assert_eq!(doc["largest_rank1_filter"], rank1, "{doc}");
    assert_eq!(
        doc["largest_filter_every_variant"],
        gpu_kernels::launch::MAX_FILTER_SIZE,
        "{doc}"
    );
}

/// `host verify` says how far it is as it runs: a line on stderr per finished case set, with
/// the count done of all, so a long verification is never silent.
#[test]
fn verify_prints_progress_as_it_runs() {
    let o = host(&[
        "verify",
        "--cpu-only",
        "--sizes",
        "7x5,9x9",
        "--filters",
        "3",
        "--borders",
        "zero,constant",
        "--channels",
        "1",
        "--dtypes",
        "u8,f32",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("verify: ")).collect();
    assert_eq!(progress.len(), 4, "{err}");
    for (n, line) in progress.iter().enumerate() {
        assert!(line.contains(&format!("{}/4 case sets", n + 1)), "{line}");
        assert!(line.contains("checks"), "{line}");
    }
}

/// The sanitizer suite's case sets, listed without running them: one per tool, verify run and
/// variant; `--variants` narrows them, and `--shard K/N` runs every case set in exactly one of
/// the N shards. Bad values are one-line usage errors (exit 2).
#[test]
fn sanitize_case_sets_split_into_shards_and_variants() {
    let sanitize = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_host"))
            .arg("sanitize")
            .args(args)
            .env("COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer")
            .output()
            .expect("run host")
    };
    let list = |args: &[&str]| -> Vec<String> {
        let o = sanitize(&[&["--list"][..], args].concat());
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}\n{err}");
        out.lines().map(str::to_string).collect()
    };
    let base = ["--tools", "racecheck,synccheck", "--sizes", "7x5,257x129"];
    let all = list(&base);
    // Every variant of the CLI's sample types (`host verify`'s; not `tensor-f16`'s f16) has its
    // own case sets under every tool.
    for variant in Variant::ALL
        .into_iter()
        .filter(|v| DType::ALL.iter().any(|&d| v.supports_dtype(d)))
    {
        for tool in ["racecheck", "synccheck"] {
            assert!(
                all.iter()
                    .any(|l| l.starts_with(tool) && l.contains(&format!("--variants {} ", variant.name()))),
                "no {tool} case set for {}:\n{}",
                variant.name(),
                all.join("\n")
            );
        }
    }
    let mut sets = all.clone();
    sets.sort();
    sets.dedup();
    assert_eq!(sets.len(), all.len(), "a case set is listed twice");
    for n in [1, 3, 7] {
        let mut seen = Vec::new();
        for k in 0..n {
            let shard = list(&[&base[..], &["--shard", &format!("{k}/{n}")]].concat());
            assert!(!shard.is_empty() || all.len() < n, "shard {k}/{n} is empty");
            seen.extend(shard);
        }
        seen.sort();
        assert_eq!(
            seen, sets,
            "the {n} shards do not hold every case set exactly once"
        );
    }
    let tiled = list(&[&base[..], &["--variants", "tiled,warp-rows"]].concat());
    assert!(!tiled.is_empty());
    for line in &tiled {
        assert!(
            line.contains("--variants tiled ") || line.contains("--variants warp-rows "),
            "{line}"
        );
    }
    for (args, needle) in [
        (&["--shard", "3/3"][..], "--shard"),
        (&["--shard", "1"], "--shard"),
        (&["--shard", "0/0"], "--shard"),
        (&["--variants", "nope"], "unknown variant 'nope'"),
    ] {
        let o = sanitize(&[&base[..], args].concat());
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}\n{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }
    // Running (not listing) still needs compute-sanitizer: one line, exit 1.
    let o = sanitize(&[&base[..], &["--shard", "0/4"]].concat());
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("compute-sanitizer not found"), "{err}");
}
