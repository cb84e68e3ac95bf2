//! Batches of files: one bad file fails alone while the others are written, the JSON report,
//! `--force` and globs, strips through the CLI, and shards of a folder whose reports merge.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{assert_matches_reference, builtin, save_with_image_crate};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::filter::FilterKind;
use ferroconv::{Border, DType, Image};

#[test]
fn a_batch_with_one_bad_file_completes_the_others_and_fails() {
    let dir = TempDir::new("batch");
    let input = TempDir::new("batch-in");
    let images: Vec<Image> = (0..4)
        .map(|n| Image::random(20 + n, 12, 1 + 2 * (n % 2), DType::U8, n as u64).unwrap())
        .collect();
    for (n, im) in images.iter().enumerate() {
        save_with_image_crate(im, &input.path(&format!("img{n}.png")));
    }
    std::fs::write(input.path("broken.png"), b"this is not a PNG").unwrap();
    std::fs::write(input.path("notes.txt"), b"not an image: ignored").unwrap();
    let o = host(&["-i", s(&input.0), "-o", s(&dir.0), "--mask", "3", "--json"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        err.contains("broken.png") && err.contains("Invalid PNG signature"),
        "{err}"
    );
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("error: 1 of 5 image(s) failed"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(dir.names(), ["img0.png", "img1.png", "img2.png", "img3.png"]);
    for (n, im) in images.iter().enumerate() {
        assert_matches_reference(
            im,
            &dir.path(&format!("img{n}.png")),
            &builtin(FilterKind::Box, 3),
            Border::Zero,
            DType::U8,
        );
    }
    // Stdout is exactly one JSON document.
    let doc: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON");
    let list = doc["images"].as_array().unwrap();
    assert_eq!(list.len(), 5);
    assert_eq!(doc["summary"]["images"], 5);
    assert_eq!(doc["summary"]["failed"], 1);
    let broken = list
        .iter()
        .find(|i| i["input"].as_str().unwrap().ends_with("broken.png"))
        .unwrap();
    assert!(broken["error"].as_str().unwrap().contains("PNG"), "{broken}");
    let good = list
        .iter()
        .find(|i| i["input"].as_str().unwrap().ends_with("img1.png"))
        .unwrap();
    assert!(good["error"].is_null());
    assert_eq!(
        (good["width"].as_u64(), good["channels"].as_u64()),
        (Some(21), Some(3))
    );
    assert!(good["variant"].is_string() && good["compute_ms"].is_number());

    // A second run refuses to replace the results; --force does, and a glob picks the inputs.
    let pattern = input.path("img*.png");
    let o = host(&["-i", s(&pattern), "-o", s(&dir.0), "--mask", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("already exists (use --force"),
        "{}",
        text(&o).1
    );
    let (_, err) = run_ok(&[
        "-i",
        s(&pattern),
        "-o",
        s(&dir.0),
        "--mask",
        "3",
        "--force",
        "--format",
        "tif",
    ]);
    assert!(err.contains("4 image(s), 0 failed"), "{err}");
    assert_eq!(dir.names().len(), 8, "{:?}", dir.names());
    let (_, err) = run_ok(&[
        "-i",
        s(&pattern),
        "-o",
        s(&dir.0),
        "--mask",
        "3",
        "--force",
        "--quiet",
    ]);
    assert_eq!(err, "");
}

#[test]
fn strips_through_the_cli_give_the_whole_image_result() {
    let dir = TempDir::new("strips");
    let image = Image::random(40, 200, 3, DType::U16, 11).unwrap();
    save_with_image_crate(&image, &dir.path("tall.png"));
    let i = dir.path("tall.png");
    for border in Border::CHECKED {
        let whole = dir.path(&format!("whole-{}.png", border.name()));
        let strips = dir.path(&format!("strips-{}.png", border.name()));
        // The constant in the 16-bit image's own levels (three quarters of 65535).
        let cval = Border::checked_cval(DType::U16).to_string();
        let mut common = vec![
            "--filter",
            "gaussian",
            "--mask",
            "9",
            "--border",
            border.name(),
            "--variant",
            "cpu",
        ];
        if let Border::Constant(_) = border {
            common.extend(["--cval", &cval]);
        }
        run_ok(&[&["-i", s(&i), "-o", s(&whole)][..], &common].concat());
        let (out, _) = run_ok(
            &[
                &["-i", s(&i), "-o", s(&strips), "--max-gpu-mem", "16K", "--json"][..],
                &common,
            ]
            .concat(),
        );
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(doc["images"][0]["strips"].as_u64().unwrap() > 3, "{doc}");
        let raw = RawLayout::default();
        assert_eq!(
            files::read(&whole, &raw).unwrap(),
            files::read(&strips, &raw).unwrap(),
            "{border:?}"
        );
    }
}

/// A folder split into shards (by `--shard` and by a Slurm array's variables): every image is
/// written by exactly one shard, and `report merge` puts the shards' documents back together.
#[test]
fn shards_split_a_folder_and_their_reports_merge() {
    let input = TempDir::new("shard-in");
    let names: Vec<String> = (0..12).map(|n| format!("scan{n:02}.png")).collect();
    for (n, name) in names.iter().enumerate() {
        let im = Image::random(9, 7, 1, DType::U8, n as u64).unwrap();
        save_with_image_crate(&im, &input.path(name));
    }
    let count = 3;
    let report_dir = TempDir::new("shard-reports");
    let mut reports = Vec::new();
    let mut written = Vec::new();
    for i in 0..count {
        let out = TempDir::new(&format!("shard-out{i}"));
        let args = [
            "-i",
            s(&input.0),
            "-o",
            s(&out.0),
            "--mask",
            "3",
            "--variant",
            "cpu",
            "--json",
        ];
        // Shard 0 by the flag, the others as tasks 1 and 2 of a Slurm array `--array=1-3`.
        let o = if i == 0 {
            host(&[&args[..], &["--shard", "0/3"]].concat())
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_host"))
                .args(args)
                .env("SLURM_ARRAY_TASK_ID", (i + 1).to_string())
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .env("SLURM_ARRAY_TASK_MAX", "3")
                .output()
                .unwrap()
        };
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "shard {i}: {stderr}");
        assert!(
            stderr.contains(&format!("shard {i}/{count}")),
            "shard {i}: {stderr}"
        );
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(doc["shard"]["index"], i);
        assert_eq!(doc["shard"]["inputs_total"], names.len());
        for e in std::fs::read_dir(&out.0).unwrap() {
            written.push(e.unwrap().file_name().to_string_lossy().into_owned());
        }
        let report = report_dir.path(&format!("shard{i}.json"));
        std::fs::write(&report, &stdout).unwrap();
        reports.push(report);
    }
    written.sort();
    assert_eq!(written, names, "every image written by exactly one shard");

    let paths: Vec<&str> = reports.iter().map(|p| s(p)).collect();
    let (merged, _) = run_ok(&[&["report", "merge"][..], &paths].concat());
    let doc: serde_json::Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(doc["summary"]["images"], names.len());
    assert_eq!(doc["summary"]["written"], names.len());
    assert_eq!(doc["shard"]["count"], count);
    assert_eq!(doc["images"].as_array().unwrap().len(), names.len());
    // One shard's document alone is an incomplete batch: printed, and a failure.
    let o = host(&["report", "merge", paths[1]]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("shard(s) 0, 2 of 3 missing"), "{err}");
    assert!(out.contains("\"schema\""), "{out}");
    // A shard run with another setting that changes results (here the sample type) is not of
    // the batch: the documents record every such setting, and merge compares them.
    let other_out = TempDir::new("shard-other");
    let o = host(&[
        "-i",
        s(&input.0),
        "-o",
        s(&other_out.0),
        "--mask",
        "3",
        "--variant",
        "cpu",
        "--json",
        "--shard",
        "1/3",
        "--dtype",
        "u16",
    ]);
    let (stdout, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["settings"]["dtype"], "u16", "{doc}");
    assert_eq!(doc["settings"]["taps"].as_array().unwrap().len(), 9, "{doc}");
    let other = report_dir.path("other.json");
    std::fs::write(&other, &stdout).unwrap();
    let o = host(&["report", "merge", paths[0], s(&other), paths[2]]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("were made with different settings"), "{err}");
}

/// A file whose name is not UTF-8 (the bytes `\xff\xfe.png`), in a folder and alone, through
/// `--json`: written, reported with its name as lossy text plus its bytes in base64, no panic.
#[test]
fn names_that_are_not_utf8_are_reported_in_the_json() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let input = TempDir::new("non-utf8-in");
    let name = OsStr::from_bytes(b"\xff\xfe.png");
    let image = Image::random(9, 7, 3, DType::U8, 3).unwrap();
    save_with_image_crate(&image, &input.0.join(name));
    for (what, source) in [("folder", input.0.clone()), ("file", input.0.join(name))] {
        let output = TempDir::new("non-utf8-out");
        let out_arg = if what == "folder" {
            output.0.clone()
        } else {
            output.0.join(name)
        };
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_host"))
            .arg("-q")
            .arg("--json")
            .arg("-i")
            .arg(&source)
            .arg("-o")
            .arg(&out_arg)
            .arg("--force")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{what}: {out}\n{err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON");
        let entry = &doc["images"][0];
        assert_eq!(entry["status"], "written", "{what}: {entry}");
        assert!(
            entry["input"].as_str().unwrap().ends_with("\u{fffd}\u{fffd}.png"),
            "{entry}"
        );
        let bytes = |key: &str| unbase64(entry[key].as_str().unwrap_or_else(|| panic!("{key}: {entry}")));
        assert_eq!(
            bytes("input_bytes"),
            input.0.join(name).as_os_str().as_bytes(),
            "{entry}"
        );
        assert!(bytes("output_bytes").ends_with(b"\xff\xfe.png"), "{entry}");
        assert!(
            out_arg.is_file() || output.0.join(name).is_file(),
            "{what}: nothing written"
        );
    }
}

/// Decodes standard base64 (test helper, independent of the encoder under test).
fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {text}"),
    };
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let digits: Vec<u8> = quad.iter().filter(|&&c| c != b'=').map(|&c| value(c)).collect();
        let n = digits
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend((0..digits.len() - 1).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    out
}
