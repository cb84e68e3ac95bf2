//! Command-line arguments: options that do nothing are refused, errors from the parser (exit 2)
//! and from the checks after it (exit 1) say what is wrong in one line, for the main job and
//! `cpu-time`, and what a new user tried gets a clear answer.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{fails_with, gray, save};

#[test]
fn options_that_do_nothing_with_files_are_refused() {
    let dir = TempDir::new("no-op-options");
    let input = dir.path("in.png");
    save(&gray(12, 10, 1), &input);
    let out = dir.path("out.png");
    let files_args = ["-i", s(&input), "-o", s(&out)];
    for (extra, names) in [
        (&["--variants", "fast"][..], &["--variants", "--variant NAME"][..]),
        (&["--runs", "5"], &["--runs"]),
        (&["--cpu-runs", "5"], &["--cpu-runs"]),
        (&["--seed", "3"], &["--seed"]),
        (&["--size", "99"], &["--size", "--width and --height"]),
        (&["--separable", "on"], &["--separable", "--variant separable"]),
        (
            &["--sigma", "2", "--filter", "box"],
            &["--sigma applies only to --filter gaussian"],
        ),
        (&["--width", "5"], &["--width", "RAW"]),
        (&["--channels", "3"], &["--channels", "RAW"]),
        (
            &["--cpu-only", "--variant", "tiled"],
            &["--cpu-only", "--variant tiled"],
        ),
    ] {
        fails_with(&[&files_args[..], extra].concat(), 1, names);
        assert!(!out.exists(), "{extra:?}");
    }
    // --sigma without a gaussian is refused by the main job too.
    fails_with(
        &["--sigma", "2", "--size", "16"],
        1,
        &["--sigma applies only to --filter gaussian"],
    );
    // --cval belongs to --border constant, and is a finite number (the parser's error: exit 2).
    fails_with(
        &[&files_args[..], &["--cval", "0.5", "--border", "reflect"]].concat(),
        1,
        &["--cval sets the value of --border constant, not of --border reflect"],
    );
    fails_with(
        &["--size", "16", "--border", "constant", "--cval", "inf"],
        2,
        &["--cval", "finite"],
    );
    assert!(!out.exists());
    // --cpu-only with files means --variant cpu: no GPU is looked for, so none is missed.
    let (json, err) = run_ok(&[&files_args[..], &["--cpu-only", "--json"]].concat());
    assert!(!err.contains("no usable GPU"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["variant"], "cpu-par", "{doc}");
    assert_eq!(doc["images"][0]["variant"], "cpu-par", "{doc}");
}

#[test]
fn argument_errors_say_what_is_wrong_in_one_line() {
    // Values the parser rejects: exit 2, one line naming the option and the value.
    for (args, needles) in [
        (
            &["--mask", "-3"][..],
            &["invalid value '-3' for '--mask", "negative"][..],
        ),
        (
            &["--sigma", "-1", "--filter", "gaussian"],
            &["'--sigma", "positive"],
        ),
        (&["--size", "-5"], &["invalid value '-5' for '--size", "negative"]),
        (
            &["--width", "1.5"],
            &["invalid value '1.5' for '--width", "whole number"],
        ),
        (&["--seed", "-1"], &["invalid value '-1' for '--seed"]),
        (&["--variants", "fst"], &["unknown variant 'fst'"]),
        (&["--bogus"], &["unexpected argument '--bogus'"]),
        (
            &["--input", "x.png", "--variants", "fast", "--varient", "cpu"],
            &["--varient"],
        ),
    ] {
        let out = fails_with(args, 2, needles);
        assert!(out.is_empty(), "{args:?}: {out}");
        // A negative number is a value, not an unknown option.
        let (_, err) = text(&host(args));
        let negative_as_option = (0..10).any(|d| err.contains(&format!("unexpected argument '-{d}")));
        assert!(!negative_as_option, "{args:?}: {err}");
    }
    // Checked after parsing: exit 1.
    fails_with(
        &["--mask", "3", "info"],
        1,
        &["--mask applies to the main job", "host info"],
    );
    fails_with(
        &["--cpu-runs", "0", "--size", "16"],
        1,
        &["--cpu-runs must be at least 1"],
    );
    fails_with(
        &["--runs", "0", "--size", "16"],
        1,
        &["--runs must be at least 1"],
    );
    // A glob the shell expanded: every path after -i is an input.
    let dir = TempDir::new("shell-glob");
    let (a, b) = (dir.path("a.png"), dir.path("b.png"));
    save(&gray(9, 7, 2), &a);
    save(&gray(7, 9, 3), &b);
    let out = TempDir::new("shell-glob-out");
    let (_, err) = run_ok(&["-i", s(&a), s(&b), "-o", s(&out.0), "--variant", "cpu"]);
    assert!(err.contains("2 image(s), 0 failed"), "{err}");
    assert_eq!(out.names(), ["a.png", "b.png"]);
}

#[test]
fn cpu_time_refuses_bad_values_in_one_line() {
    for (args, needles) in [
        (
            &["cpu-time", "--runs", "0"][..],
            &["invalid value '0' for '--runs", "at least 1"][..],
        ),
        (
            &["cpu-time", "--k", "4"],
            &["invalid value '4' for '--k", "odd size"],
        ),
        (
            &["cpu-time", "--size", "-8"],
            &["invalid value '-8' for '--size", "negative"],
        ),
        (
            &["cpu-time", "--channels", "2"],
            &["invalid value '2' for '--channels", "RGBA"],
        ),
        (
            &["cpu-time", "--filter", "gauss"],
            &["unknown filter 'gauss'", "random or one of"],
        ),
        (
            &["cpu-time", "--dtype", "f64"],
            &["invalid value 'f64' for '--dtype"],
        ),
    ] {
        let out = fails_with(args, 2, needles);
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    // Checked after parsing: exit 1.
    fails_with(
        &["cpu-time", "--size", "8", "--sigma", "1", "--filter", "box"],
        1,
        &["--sigma applies only to --filter gaussian"],
    );
    // A good command line prints its case, then one time per run.
    let (out, _) = run_ok(&[
        "cpu-time",
        "--size",
        "16",
        "--k",
        "3",
        "--runs",
        "2",
        "--warmups",
        "0",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("# cpu-time: 16x16x1 f32, random filter 3x3"),
        "{out}"
    );
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.parse::<f64>().is_ok_and(|ms| ms >= 0.0)),
        "{out}"
    );
}

#[test]
fn what_a_new_user_tried_gets_a_clear_answer() {
    let dir = TempDir::new("new-user");
    let input = dir.path("in.png");
    save(&gray(8, 6, 1), &input);
    let out = TempDir::new("new-user-out");
    // `--format .png` means `--format png`, not `in..png`.
    run_ok(&[
        "-i",
        s(&input),
        "-o",
        s(&out.0),
        "--format",
        ".tif",
        "-q",
        "--variant",
        "cpu",
    ]);
    assert_eq!(out.names(), ["in.tif"]);
    // A second path after -o is not a subcommand.
    fails_with(
        &["-i", s(&input), "-o", s(&out.0), s(&input)],
        2,
        &["is not a subcommand", "put every input after -i"],
    );
    // An input without an extension, into a folder: say how to choose the format.
    let bare = dir.path("bare");
    std::fs::copy(&input, &bare).unwrap();
    fails_with(
        &["-i", s(&bare), "-o", s(&out.0), "--variant", "cpu"],
        1,
        &["no extension to choose its format", "--format"],
    );
    // A device as the input.
    fails_with(
        &["-i", "/dev/null", "-o", s(&out.path("x.png"))],
        1,
        &["/dev/null is not a regular file"],
    );
    assert_eq!(out.names(), ["in.tif"]);
}
