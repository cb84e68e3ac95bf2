//! The CLI as a new user meets it, through the real `host` binary (CPU path): options that do
//! nothing are refused, argument errors say what is wrong (exit 2 for the parser's, 1 for the
//! rest, one `error:` line each), `--json` is always one document, `-v` lines come as images are
//! written, truncated JPEGs and corrupt TIFFs are errors that say so, gray BMPs stay gray, and
//! the Gaussian's taps, the main job's warm-ups and the progress bar are as documented.

mod common;
use common::{TempDir, host, run_ok, s, text};

use conv::io::files::{self, RawLayout};
use conv::model::filter::FilterKind;
use conv::model::image::Samples;
use conv::{Border, DType, Filter, Image, engine::cpu};
use std::io::BufRead as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `host`, expecting exit code `code` and exactly one line on stderr, an `error:` line
/// containing every needle; returns stdout.
fn fails_with(args: &[&str], code: i32, needles: &[&str]) -> String {
    let o = host(args);
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{args:?}\nstdout: {out}\nstderr: {err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
    for needle in needles {
        assert!(lines[0].contains(needle), "{args:?}: wanted '{needle}' in: {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    out
}

/// Writes `image` (8-bit) with the `image` crate's own encoders, format from the extension.
fn save(image: &Image, path: &Path) {
    let color = match image.channels() {
        1 => image::ExtendedColorType::L8,
        3 => image::ExtendedColorType::Rgb8,
        _ => image::ExtendedColorType::Rgba8,
    };
    let (w, h) = (image.width() as u32, image.height() as u32);
    image::save_buffer(path, image.samples().as_bytes(), w, h, color).unwrap();
}

fn gray(w: usize, h: usize, seed: u64) -> Image {
    Image::random(w, h, 1, DType::U8, seed).unwrap()
}

#[test]
fn a_truncated_jpeg_is_an_error() {
    let dir = TempDir::new("jpeg-cut");
    let smooth: Vec<u8> = (0..96 * 64 * 3)
        .map(|n| ((n / 3) % 96 + (n / 288)) as u8)
        .collect();
    let rgb = Image::new(96, 64, 3, Samples::U8(smooth)).unwrap();
    let whole = dir.path("whole.jpg");
    save(&rgb, &whole);
    let bytes = std::fs::read(&whole).unwrap();
    assert!(files::decode(&bytes).is_ok());
    for keep in [bytes.len() / 3, bytes.len() * 2 / 3, bytes.len() - 2] {
        let cut = dir.path(&format!("cut{keep}.jpg"));
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let out = dir.path("out.png");
        fails_with(
            &["-i", s(&cut), "-o", s(&out), "--variant", "cpu"],
            1,
            &[&format!("cut{keep}.jpg: the file is truncated"), "end marker"],
        );
        assert!(!out.exists());
        let e = files::decode(&bytes[..keep]).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }
    // The whole file still goes through.
    run_ok(&[
        "-i",
        s(&whole),
        "-o",
        s(&dir.path("ok.png")),
        "-q",
        "--variant",
        "cpu",
    ]);
}

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

#[test]
fn a_gray_bmp_stays_gray() {
    let dir = TempDir::new("gray-bmp");
    let image = gray(33, 21, 4);
    let input = dir.path("gray.bmp");
    save(&image, &input);
    assert_eq!(
        std::fs::read(&input).unwrap()[28],
        8,
        "the test wrote an 8-bit BMP"
    );
    let read = files::read(&input, &RawLayout::default()).unwrap();
    assert_eq!(read, image, "read as 8-bit gray");
    let output = dir.path("out.bmp");
    let (json, _) = run_ok(&[
        "-i",
        s(&input),
        "-o",
        s(&output),
        "--json",
        "--variant",
        "cpu",
        "--mask",
        "3",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["images"][0]["channels"], 1, "{doc}");
    let bytes = std::fs::read(&output).unwrap();
    assert_eq!(bytes[28], 8, "written as an 8-bit BMP");
    let got = files::read(&output, &RawLayout::default()).unwrap();
    let filter = Filter::builtin(FilterKind::Box, 3, None).unwrap();
    assert_eq!(got, cpu::parallel(&image, &filter, Border::Zero, false).unwrap());
    // A color BMP stays color.
    let rgb = Image::random(10, 8, 3, DType::U8, 5).unwrap();
    save(&rgb, &dir.path("rgb.bmp"));
    assert_eq!(
        files::read(&dir.path("rgb.bmp"), &RawLayout::default()).unwrap(),
        rgb
    );
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
    assert_eq!(doc["schema"], 2, "{doc}");
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
    assert_eq!(doc["schema"], 2);
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

/// A valid uncompressed 16x16 gray TIFF whose strip offset is moved near the end of the file, so
/// the strip cannot be read whole although the file is long enough for it.
fn corrupt_tiff(path: &Path) {
    let mut bytes = Vec::new();
    let mut enc = tiff::encoder::TiffEncoder::new(std::io::Cursor::new(&mut bytes)).unwrap();
    enc.write_image::<tiff::encoder::colortype::Gray8>(16, 16, &[7u8; 256])
        .unwrap();
    assert_eq!(&bytes[..2], b"II", "little-endian TIFF");
    let le32 = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let ifd = le32(&bytes, 4);
    let entries = u16::from_le_bytes([bytes[ifd], bytes[ifd + 1]]) as usize;
    let strip = (0..entries)
        .map(|n| ifd + 2 + 12 * n)
        .find(|&e| u16::from_le_bytes([bytes[e], bytes[e + 1]]) == 273)
        .expect("a StripOffsets tag");
    let near_end = (bytes.len() - 10) as u32;
    bytes[strip + 8..strip + 12].copy_from_slice(&near_end.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn error_messages_say_what_happened() {
    let dir = TempDir::new("wording");
    let out = dir.path("out.png");
    let o = s(&out);
    // A corrupt TIFF.
    let tif = dir.path("corrupt.tif");
    corrupt_tiff(&tif);
    fails_with(
        &["-i", s(&tif), "-o", o],
        1,
        &["corrupt.tif: the file is truncated or corrupt"],
    );
    // An empty file.
    let empty = dir.path("empty.png");
    std::fs::write(&empty, b"").unwrap();
    fails_with(&["-i", s(&empty), "-o", o], 1, &["empty.png: the file is empty"]);
    // A filter file saved with a UTF-8 byte order mark.
    let input = dir.path("in.png");
    let image = gray(14, 9, 8);
    save(&image, &input);
    let bom = dir.path("bom.txt");
    std::fs::write(&bom, "\u{feff}0 1 0\n1 1 1\n0 1 0\n").unwrap();
    run_ok(&[
        "-i",
        s(&input),
        "-o",
        o,
        "--filter-file",
        s(&bom),
        "-q",
        "--variant",
        "cpu",
    ]);
    let filter = Filter::new(3, vec![0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0]).unwrap();
    let want = cpu::parallel(&image, &filter, Border::Zero, false).unwrap();
    assert_eq!(files::read(&out, &RawLayout::default()).unwrap(), want);
    std::fs::remove_file(&out).unwrap();
    // The CPU path's memory budget is not device memory.
    let wide = dir.path("wide.png");
    save(&Image::random(5000, 6, 3, DType::U8, 9).unwrap(), &wide);
    let o2 = host(&[
        "-i",
        s(&wide),
        "-o",
        o,
        "--variant",
        "cpu",
        "--max-gpu-mem",
        "60K",
    ]);
    let (_, err) = text(&o2);
    assert_eq!(o2.status.code(), Some(1), "{err}");
    assert!(err.contains("--max-gpu-mem") && !err.contains("device"), "{err}");
    // An input named twice is processed once, not reported as a clash with itself.
    let (_, err) = run_ok(&["-i", s(&input), "-i", s(&input), "-o", o, "--variant", "cpu"]);
    assert!(err.contains("1 image(s), 0 failed"), "{err}");
    let twice = TempDir::new("wording-twice-in");
    let again = twice.path("in.png");
    save(&image, &again);
    save(&gray(4, 4, 2), &twice.path("other.png"));
    let folder = TempDir::new("wording-twice");
    let (_, err) = run_ok(&[
        "-i",
        s(&twice.0),
        "-i",
        s(&again),
        "-o",
        s(&folder.0),
        "--variant",
        "cpu",
        "--format",
        "tif",
        "--mask",
        "1",
    ]);
    assert!(err.contains("2 image(s), 0 failed"), "{err}");
    assert_eq!(folder.names(), ["in.tif", "other.tif"]);
    // Two different inputs that would give one output: the message says what to do.
    let other = TempDir::new("wording-other");
    save(&gray(5, 5, 1), &other.path("in.png"));
    fails_with(
        &[
            "-i",
            s(&input),
            "-i",
            s(&other.path("in.png")),
            "-o",
            s(&folder.0),
            "--force",
        ],
        1,
        &["would both be written to", "rename one"],
    );
}

#[test]
fn explicit_auto_falls_back_to_the_cpu_as_the_default_does() {
    let (info, _) = run_ok(&["info"]);
    if !info.starts_with("GPU: none") {
        eprintln!("SKIPPED: a GPU is present, so auto picks a GPU variant");
        return;
    }
    let dir = TempDir::new("auto");
    let input = dir.path("in.png");
    save(&gray(6, 6, 1), &input);
    for (n, extra) in [&[][..], &["--variant", "auto"]].iter().enumerate() {
        let out = dir.path(&format!("out{n}.png"));
        let (_, err) = run_ok(&[&["-i", s(&input), "-o", s(&out)][..], extra].concat());
        assert!(err.starts_with("note: no usable GPU"), "{extra:?}: {err}");
        assert!(out.exists());
    }
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
    bar.set_style(conv::engine::batch::progress_style());
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
fn gaussian_taps_are_opencvs() {
    // cv2.getGaussianKernel(k, 0): fixed tables for k <= 7, sigma 0.3((k-1)/2 - 1) + 0.8 above.
    let opencv: [(usize, &[f64]); 5] = [
        (1, &[1.0]),
        (3, &[0.25, 0.5, 0.25]),
        (5, &[0.0625, 0.25, 0.375, 0.25, 0.0625]),
        (
            7,
            &[0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125],
        ),
        (
            9,
            &[
                0.014_839_453_814_831_46,
                0.049_817_289_201_016_635,
                0.118_322_506_186_472_12,
                0.198_828_996_548_081_98,
                0.236_383_508_499_195_43,
                0.198_828_996_548_081_98,
                0.118_322_506_186_472_12,
                0.049_817_289_201_016_635,
                0.014_839_453_814_831_46,
            ],
        ),
    ];
    for (k, g) in opencv {
        let taps = Filter::builtin(FilterKind::Gaussian, k, None).unwrap();
        for (n, &t) in taps.taps().iter().enumerate() {
            let want = (g[n / k] * g[n % k]) as f32;
            assert!(
                (t - want).abs() <= f32::EPSILON * want,
                "k={k} tap {n}: {t} vs {want}"
            );
        }
    }
    // With --sigma the formula applies at every size.
    let sigma1 = Filter::builtin(FilterKind::Gaussian, 3, Some(1.0)).unwrap();
    let e = (-0.5f64).exp();
    let centre = 1.0 / (1.0 + 2.0 * e);
    assert!((f64::from(sigma1.taps()[4]) - centre * centre).abs() < 1e-7);
}

#[test]
fn the_main_jobs_cpu_rows_report_their_warmups() {
    let image = Image::random(24, 20, 1, DType::F32, 3).unwrap();
    let job = conv::verify::jobs::MainJob {
        image,
        filter: Filter::builtin(FilterKind::Box, 3, None).unwrap(),
        border: Border::Zero,
        clamp: false,
        variants: Vec::new(),
        runs: 1,
        cpu_runs: 2,
    };
    let report = conv::verify::jobs::main_job(&job, None).unwrap();
    let names: Vec<_> = report.rows.iter().map(|r| r.name).collect();
    assert_eq!(names, ["cpu-naive", "cpu-seq", "cpu-par"]);
    for row in &report.rows {
        assert_eq!(row.warmups, conv::verify::jobs::WARMUP_RUNS, "{}", row.name);
        assert!(row.warmups >= 1);
        assert_eq!(row.compute.runs, 2, "{}", row.name);
    }
    let (out, _) = run_ok(&["--size", "32", "--cpu-only", "--cpu-runs", "2", "--mask", "3"]);
    assert!(
        out.contains("CPU = whole call (2 runs after 3 warm-ups)"),
        "{out}"
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
