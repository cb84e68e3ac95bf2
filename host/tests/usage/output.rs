//! What the CLI prints: `-v` lines as each image is written, `--json` as one document with a
//! schema, the progress bar's rate, and the soak summary.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{fails_with, gray, save};
use ferroconv::io::files;
use ferroconv::{DType, Image};
use std::io::BufRead as _;
use std::process::{Command, Stdio};

#[test]
fn verbose_lines_come_as_each_image_is_written() {
    let input = TempDir::new("verbose-in");
    for n in 0..6 {
        let image = Image::random(500, 500, 3, DType::U8, n).unwrap();
        files::write(&image, &input.path(&format!("img{n}.png"))).unwrap();
    }
    let out = TempDir::new("verbose-out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "-i",
            s(&input.0),
            "-o",
            s(&out.0),
            "-v",
            "--variant",
            "cpu",
            "--mask",
            "5",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    // The first line arrives while the batch is still running.
    let written = out
        .names()
        .iter()
        .filter(|n| n.ends_with(".png") && !n.starts_with('.'))
        .count();
    let running = child.try_wait().unwrap().is_none();
    assert!(first.contains(" -> ") && first.contains("500x500 x3"), "{first}");
    assert!(
        running && written < 6,
        "first line after the batch: {written} written"
    );
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(child.wait().unwrap().success());
    assert_eq!(rest.len(), 5, "{rest:?}");
}

/// The keys of a JSON object, sorted.
fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn json_is_always_one_document_with_a_schema() {
    let dir = TempDir::new("json");
    let good = dir.path("good.png");
    save(&gray(10, 8, 6), &good);
    // An up-front failure: the output folder does not exist.
    let nowhere = dir.path("missing/");
    let out = fails_with(
        &["-i", s(&good), "-i", s(&good), "-o", s(&nowhere), "--json"],
        1,
        &["does not exist"],
    );
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["schema"], 3, "{doc}");
    assert!(doc["error"].as_str().unwrap().contains("does not exist"), "{doc}");
    assert_eq!(doc["images"], serde_json::json!([]));
    // A parser error with --json.
    let out = fails_with(&["-i", s(&good), "--json", "--bogus"], 2, &["--bogus"]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert!(doc["error"].as_str().unwrap().contains("--bogus"), "{doc}");

    // A batch with a broken file: every entry has every field; failures name no output and do not
    // repeat their input in the error.
    let input = TempDir::new("json-in");
    save(&gray(10, 8, 7), &input.path("a.png"));
    std::fs::write(input.path("broken.png"), b"not a PNG at all").unwrap();
    let results = TempDir::new("json-out");
    let o = host(&[
        "-i",
        s(&input.0),
        "-o",
        s(&results.0),
        "--json",
        "--variant",
        "cpu",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["schema"], 3);
    assert!(doc["error"].is_null() && doc["interrupted"].is_null(), "{doc}");
    let images = doc["images"].as_array().unwrap();
    let (ok, bad) = (&images[0], &images[1]);
    assert!(bad["input"].as_str().unwrap().ends_with("broken.png"), "{doc}");
    assert_eq!(keys(ok), keys(bad));
    assert_eq!(ok["status"], "written");
    assert!(ok["output"].as_str().unwrap().ends_with("a.png"));
    assert_eq!(bad["status"], "failed");
    assert!(
        bad["output"].is_null() && bad["width"].is_null() && bad["compute_ms"].is_null(),
        "{bad}"
    );
    let error = bad["error"].as_str().unwrap();
    assert!(error.contains("PNG") && !error.contains("broken.png"), "{error}");
    let summary = &doc["summary"];
    assert_eq!(
        (summary["written"].as_u64(), summary["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(summary["not_processed"], 0);
}

/// Reads the lines an indicatif bar draws.
#[derive(Debug, Default, Clone)]
struct Screen(std::sync::Arc<std::sync::Mutex<String>>);

impl indicatif::TermLike for Screen {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        self.write_str(&format!("{line}\n"))
    }
    fn write_str(&self, text: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().push_str(text);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_progress_bar_shows_a_rate_with_one_decimal() {
    let screen = Screen::default();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(300),
        indicatif::ProgressDrawTarget::term_like(Box::new(screen.clone())),
    );
    bar.set_style(host_tools::batch::progress_style());
    for _ in 0..3 {
        std::thread::sleep(std::time::Duration::from_millis(30));
        bar.inc(7);
    }
    bar.force_draw();
    let drawn = screen.0.lock().unwrap().clone();
    let line = drawn
        .lines()
        .rev()
        .find(|l| l.contains("images"))
        .expect("a drawn bar");
    assert!(line.contains("21/300 images"), "{line}");
    let rate = line
        .split_whitespace()
        .find(|w| w.ends_with("/s"))
        .unwrap_or_else(|| panic!("no rate: {line}"));
    let number = rate.trim_end_matches("/s");
    let (whole, decimals) = number.split_once('.').unwrap_or((number, ""));
    assert!(
        whole.parse::<u64>().is_ok() && decimals.len() == 1,
        "rate {rate} in: {line}"
    );
}

#[test]
fn the_soak_summary_has_no_run_of_spaces() {
    let (out, _) = run_ok(&[
        "soak",
        "--cpu",
        "--small",
        "3",
        "--large",
        "1",
        "--large-side",
        "64",
    ]);
    let summary = out
        .lines()
        .find(|l| l.starts_with("images "))
        .expect("a summary line");
    assert!(!summary.contains("  "), "{summary}");
}

/// `--json`'s settings list a small filter's taps, and summarize a large one (its shape, tap
/// count, sum and a digest of its taps) instead of listing them: a Gaussian of sigma 127 is over
/// a million taps. Two large filters that differ have different digests, so `report merge` still
/// tells their shards apart.
#[test]
fn json_settings_summarize_a_large_filter() {
    let dir = TempDir::new("json-large-filter");
    let input = dir.path("in.png");
    save(&gray(12, 10, 1), &input);
    let run = |extra: &[&str], name: &str| -> serde_json::Value {
        let out = dir.path(name);
        let args = [
            &["-i", s(&input), "-o", s(&out), "--json", "--variant", "cpu"][..],
            extra,
        ]
        .concat();
        let (json, _) = run_ok(&args);
        assert!(json.len() < 20_000, "{} bytes of JSON for {extra:?}", json.len());
        serde_json::from_str(&json).unwrap()
    };
    let small = run(&["--mask", "3"], "small.png");
    let taps = small["settings"]["taps"]
        .as_array()
        .unwrap_or_else(|| panic!("{small}"));
    assert_eq!(taps.len(), 9);
    let large = run(&["--filter", "gaussian", "--sigma", "20"], "large.png");
    let summary = &large["settings"]["taps"];
    assert_eq!(summary["shape"], serde_json::json!([161, 161]), "{large}");
    assert_eq!(summary["count"], 161 * 161, "{large}");
    let sum = summary["sum"].as_f64().unwrap_or_else(|| panic!("{large}"));
    assert!((sum - 1.0).abs() < 1e-3, "{sum}");
    let digest = summary["fnv1a64"].as_str().unwrap_or_else(|| panic!("{large}"));
    assert_eq!(digest.len(), 16, "{digest}");
    let other = run(&["--filter", "gaussian", "--sigma", "21"], "other.png");
    assert_ne!(other["settings"]["taps"]["fnv1a64"], summary["fnv1a64"]);
    let again = run(&["--filter", "gaussian", "--sigma", "20"], "again.png");
    assert_eq!(again["settings"]["taps"], *summary);
}
