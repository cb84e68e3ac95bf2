//! Interruptions and the write path, through the real `host` binary on the CPU path: SIGINT and
//! SIGTERM sent to a real single-file write and a real batch at several points leave no temporary
//! file and no partial image and exit 130 or 143; a second signal stops at once, still removing
//! the temporary file; temporary files have unpredictable names and never follow a planted
//! symlink; outputs that are not regular files are refused even with --force.

mod common;
use common::{TempDir, s};

use ferroconv::io::files::{self, RawLayout};
use ferroconv::{DType, Image};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Starts `host` with `args` on the CPU engine, stdout and stderr captured.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .args(["--variant", "cpu", "--mask", "3"])
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start host")
}

/// Waits until the process `pid` catches SIGINT and SIGTERM (its `SigCgt` mask in
/// `/proc/PID/status`), so that an early signal meets the tool's handler, not the default action.
fn wait_for_handler(pid: u32) {
    let start = Instant::now();
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        let (int, term) = (1 << (2 - 1), 1 << (15 - 1));
        if caught & int != 0 && caught & term != 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no signal handler in {pid}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Sends `signal` (`INT` or `TERM`) to the process `pid`, once it catches it.
fn send(signal: &str, pid: u32) {
    wait_for_handler(pid);
    let status = Command::new("kill")
        .args(["-s", signal, &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -s {signal} {pid}");
}

/// Names in `dir` that are temporary (hidden) files.
fn hidden(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.ends_with(".tmp"))
        .collect();
    names.sort();
    names
}

/// Waits until `dir` holds a result's temporary file, `.NAME.XXXXXX.tmp` (returns its name), or
/// `child` ends (returns `None`). The output folder's writability probe does not count.
fn wait_for_temporary(dir: &Path, child: &mut Child) -> Option<String> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        if let Some(name) = hidden(dir).into_iter().find(|n| n.ends_with(".tmp")) {
            return Some(name);
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("no temporary file appeared in {}", dir.display());
}

fn finish(child: Child) -> (Option<i32>, String) {
    let o: Output = child.wait_with_output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A random RGB PNG of `side`², written by the library, and its pixels.
fn random_png(path: &Path, side: usize, seed: u64) -> Image {
    let image = Image::random(side, side, 3, DType::U8, seed).unwrap();
    files::write(&image, path).unwrap();
    image
}

fn code_of(signal: &str) -> i32 {
    match signal {
        "INT" => 130,
        _ => 143,
    }
}

/// Asserts that `path` is absent or the complete result `want`.
fn absent_or_whole(path: &Path, want: &Image, context: &str) -> bool {
    if !path.exists() {
        return false;
    }
    let got = files::read(path, &RawLayout::default())
        .unwrap_or_else(|e| panic!("{context}: {} is partial: {e}", path.display()));
    assert!(
        &got == want,
        "{context}: {} differs from the whole result",
        path.display()
    );
    true
}

/// Waits for `child`, sent `signal`, and checks what it left in `dir`: no temporary file, and
/// `target` either the whole result `want` (exit 0: `None`) or absent, with the signal's exit
/// code and message (then its stderr).
fn signalled(
    child: Child,
    signal: &str,
    dir: &Path,
    target: &Path,
    want: &Image,
    context: &str,
) -> Option<String> {
    let (code, err) = finish(child);
    assert!(!err.contains("panicked"), "{context}: {err}");
    assert_eq!(
        hidden(dir),
        Vec::<String>::new(),
        "{context}: temporary files left"
    );
    let whole = absent_or_whole(target, want, context);
    let _ = std::fs::remove_file(target);
    if code == Some(0) {
        // Finished before the signal arrived: then the result is there, whole.
        assert!(whole, "{context}: exit 0 without a result: {err}");
        return None;
    }
    assert_eq!(code, Some(code_of(signal)), "{context}: {err}");
    assert!(!whole, "{context}: an interrupted run left a result");
    assert!(
        err.contains(&format!("interrupted by SIG{signal}"))
            && err.lines().last().unwrap().starts_with("error: interrupted"),
        "{context}: {err}"
    );
    Some(err)
}

#[test]
fn signals_during_a_single_write_leave_no_temporary_and_no_partial_file() {
    let dir = TempDir::new("sig-single");
    let input = dir.path("big.png");
    random_png(&input, 1600, 1);
    let out = TempDir::new("sig-single-out");
    // The whole result, from an uninterrupted run.
    let reference = dir.path("reference.png");
    let (code, err) = finish(spawn(&["-i", s(&input), "-o", s(&reference)]));
    assert_eq!(code, Some(0), "{err}");
    let want = files::read(&reference, &RawLayout::default()).unwrap();
    let target = out.path("o.png");
    let mut interrupted_writes = 0;
    for signal in ["INT", "TERM"] {
        // Before the write (decoding or convolving), as soon as the temporary file appears, and
        // later into the write.
        for (when, extra_ms) in [
            ("early", None),
            ("at the write", Some(0)),
            ("into the write", Some(150)),
        ] {
            let context = format!("SIG{signal} {when}");
            let mut child = spawn(&["-i", s(&input), "-o", s(&target), "--force"]);
            let pid = child.id();
            match extra_ms {
                None => std::thread::sleep(Duration::from_millis(150)),
                Some(ms) => {
                    if wait_for_temporary(&out.0, &mut child).is_none() {
                        panic!("{context}: the run ended before its write was seen");
                    }
                    std::thread::sleep(Duration::from_millis(ms));
                }
            }
            send(signal, pid);
            let Some(err) = signalled(child, signal, &out.0, &target, &want, &context) else {
                continue;
            };
            if err.contains("1 discarded") {
                interrupted_writes += 1;
            } else {
                // Only a signal sent before the write may find the image not yet written
                // (how far a run got in 150 ms depends on the machine's load).
                assert!(
                    extra_ms.is_none() && err.contains("1 not processed"),
                    "{context}: {err}"
                );
            }
        }
    }
    assert!(
        interrupted_writes >= 2,
        "no write was interrupted: {interrupted_writes}"
    );
}

/// A PGM streamed in strips (past `--max-image-mem`): its result's temporary file exists from
/// the first strip, and a signal between strips leaves neither it nor a partial result.
#[test]
fn signals_while_a_pgm_streams_leave_no_temporary_and_no_partial_file() {
    let dir = TempDir::new("sig-stream");
    let input = dir.path("big.pgm");
    let side = 3000;
    let mut bytes = format!("P5\n{side} {side}\n255\n").into_bytes();
    bytes.extend((0..side * side).map(|i| (i * 7 % 251) as u8));
    std::fs::write(&input, bytes).unwrap();
    let reference = dir.path("reference.pgm");
    let (code, err) = finish(spawn(&["-i", s(&input), "-o", s(&reference)]));
    assert_eq!(code, Some(0), "{err}");
    let want = files::read(&reference, &RawLayout::default()).unwrap();
    let out = TempDir::new("sig-stream-out");
    let target = out.path("o.pgm");
    let mut discarded = 0;
    for (signal, ms) in [("INT", 0), ("TERM", 20), ("INT", 60)] {
        let context = format!("SIG{signal} {ms} ms into the stream");
        let mut child = spawn(&[
            "-i",
            s(&input),
            "-o",
            s(&target),
            "--force",
            "--max-image-mem",
            "1M",
        ]);
        let pid = child.id();
        assert!(
            wait_for_temporary(&out.0, &mut child).is_some(),
            "{context}: ended first"
        );
        std::thread::sleep(Duration::from_millis(ms));
        send(signal, pid);
        if let Some(err) = signalled(child, signal, &out.0, &target, &want, &context) {
            assert!(err.contains("1 discarded"), "{context}: {err}");
            discarded += 1;
        }
    }
    assert!(discarded >= 2, "no stream was interrupted: {discarded}");
}

#[test]
fn a_second_signal_stops_at_once_and_still_removes_the_temporary_file() {
    let dir = TempDir::new("sig-twice");
    let input = dir.path("big.png");
    random_png(&input, 2000, 2);
    let out = TempDir::new("sig-twice-out");
    let target = out.path("o.png");
    let mut child = spawn(&["-i", s(&input), "-o", s(&target)]);
    let pid = child.id();
    // The PNG encoder compresses the whole image before its first write: the temporary file sits
    // there meanwhile, and the first signal alone would only be noticed at that write.
    assert!(wait_for_temporary(&out.0, &mut child).is_some());
    send("INT", pid);
    std::thread::sleep(Duration::from_millis(30));
    send("INT", pid);
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(
        hidden(&out.0),
        Vec::<String>::new(),
        "temporary files left: {err}"
    );
    assert!(!target.exists(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Either the second signal ended it at once, or the first one had already been acted on.
    assert!(
        err.contains("second signal") || err.contains("1 discarded"),
        "{err}"
    );
}

#[test]
fn signals_during_a_batch_keep_finished_results_whole_and_report_the_rest() {
    const IMAGES: usize = 12;
    let input = TempDir::new("sig-batch-in");
    for n in 0..IMAGES {
        random_png(&input.path(&format!("img{n}.png")), 700, 10 + n as u64);
    }
    let reference = TempDir::new("sig-batch-ref");
    let (code, err) = finish(spawn(&["-i", s(&input.0), "-o", s(&reference.0), "-q"]));
    assert_eq!(code, Some(0), "{err}");
    let want: Vec<Image> = (0..IMAGES)
        .map(|n| files::read(&reference.path(&format!("img{n}.png")), &RawLayout::default()).unwrap())
        .collect();
    let mut stopped_midway = 0;
    for signal in ["INT", "TERM"] {
        for when in ["early", "at the first write", "after the first result"] {
            let context = format!("SIG{signal} {when}");
            let out = TempDir::new(&format!("sig-batch-{signal}-{}", when.len()));
            let mut child = spawn(&["-i", s(&input.0), "-o", s(&out.0), "-v"]);
            let pid = child.id();
            match when {
                "early" => std::thread::sleep(Duration::from_millis(100)),
                "at the first write" => {
                    assert!(wait_for_temporary(&out.0, &mut child).is_some(), "{context}");
                }
                _ => {
                    let start = Instant::now();
                    while !out
                        .names()
                        .iter()
                        .any(|n| n.ends_with(".png") && !n.starts_with('.'))
                    {
                        assert!(start.elapsed() < Duration::from_secs(120), "{context}: no result");
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
            }
            send(signal, pid);
            let (code, err) = finish(child);
            if when == "early" && code == Some(0) {
                // The whole batch finished before the signal was sent (a loaded machine can
                // delay this thread by more than the batch takes): then every result is whole.
                for (n, image) in want.iter().enumerate() {
                    let path = out.path(&format!("img{n}.png"));
                    assert!(
                        absent_or_whole(&path, image, &context) && path.exists(),
                        "{context}: {err}"
                    );
                }
                continue;
            }
            assert_eq!(code, Some(code_of(signal)), "{context}: {err}");
            assert!(!err.contains("panicked"), "{context}: {err}");
            assert_eq!(
                hidden(&out.0),
                Vec::<String>::new(),
                "{context}: temporary files left"
            );
            let written: Vec<usize> = (0..IMAGES)
                .filter(|n| absent_or_whole(&out.path(&format!("img{n}.png")), &want[*n], &context))
                .collect();
            assert!(written.len() < IMAGES, "{context}: the batch did not stop: {err}");
            if when == "after the first result" {
                assert!(!written.is_empty(), "{context}");
                stopped_midway += 1;
            }
            let report = err
                .lines()
                .find(|l| {
                    l.starts_with(&format!("interrupted by SIG{signal}: ")) && l.contains("written whole")
                })
                .unwrap_or_else(|| panic!("{context}: no report of what was done:\n{err}"));
            assert!(
                report.contains(&format!("{} image(s) written whole", written.len())),
                "{context}: {report}"
            );
            assert!(report.contains("not processed"), "{context}: {report}");
        }
    }
    assert_eq!(stopped_midway, 2);
}

#[test]
fn temporary_names_are_unpredictable_and_planted_symlinks_are_not_followed() {
    let dir = TempDir::new("hijack");
    let input = dir.path("in.png");
    random_png(&input, 1200, 3);
    let victim = dir.path("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = TempDir::new("hijack-out");
    let target = out.path("o.png");
    let mut child = spawn(&["-i", s(&input), "-o", s(&target)]);
    // The name the tool used to write through: `.o.png.<pid>.tmp`.
    let planted = out.path(&format!(".o.png.{}.tmp", child.id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let mut seen = Vec::new();
    while child.try_wait().unwrap().is_none() {
        for name in hidden(&out.0) {
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let (code, err) = finish(child);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"precious",
        "the symlink was followed"
    );
    let meta = std::fs::symlink_metadata(&target).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the result is not a regular file: {meta:?}"
    );
    files::read(&target, &RawLayout::default()).unwrap();
    let planted_name = planted.file_name().unwrap().to_string_lossy().into_owned();
    // Besides the planted link: the writability probe and the result's temporary file.
    let temporaries: Vec<&String> = seen
        .iter()
        .filter(|n| **n != planted_name && !n.starts_with(".conv-write-probe."))
        .collect();
    assert!(
        !temporaries.is_empty(),
        "the temporary file was never seen: {seen:?}"
    );
    for name in temporaries {
        assert!(
            name.starts_with(".o.png.") && name.ends_with(".tmp"),
            "unexpected hidden file {name}"
        );
    }
    // Only the planted link is left, untouched.
    assert_eq!(hidden(&out.0), vec![planted_name]);
    assert_eq!(std::fs::read_link(&planted).unwrap(), victim);
}

#[test]
fn outputs_that_are_not_regular_files_are_refused_even_with_force() {
    let dir = TempDir::new("special");
    let input = dir.path("in.png");
    random_png(&input, 8, 4);
    let fifo = dir.path("fifo.png");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let link = dir.path("null.png");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for (output, force) in [
        ("/dev/full", false),
        ("/dev/full", true),
        ("/dev/null", true),
        (s(&fifo), true),
        (s(&link), true),
    ] {
        let mut args = vec!["-i", s(&input), "-o", output];
        if force {
            args.push("--force");
        }
        let (code, err) = finish(spawn(&args));
        assert_eq!(code, Some(1), "{args:?}: {err}");
        let last = err.lines().last().unwrap_or("");
        assert!(
            last.starts_with("error: ") && last.contains("not a regular file") && last.contains(output),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("unknown output extension") && !err.contains("already exists"),
            "{err}"
        );
    }
    use std::os::unix::fs::FileTypeExt as _;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(hidden(&dir.0), Vec::<String>::new());
}
