//! Bad input of every kind (missing, unreadable, corrupt, bad filters, unwritable outputs) gets a
//! one-line error, exit code 1 and no output; and what `info` and `--variant` do without a GPU.

use crate::common::{TempDir, host, host_without_gpu, run_ok, run_ok_without_gpu, s, text};
use crate::{assert_fails, failed, png_header_only, save_with_image_crate};
use ferroconv::{DType, Image};
use std::path::{Path, PathBuf};

#[test]
fn info_works_without_a_gpu() {
    let (out, _) = run_ok(&["info"]);
    assert!(out.contains("PTX target: sm_"), "{out}");
    assert!(out.contains("largest filter: 127x127, 1023x1023 rank-1"), "{out}");
    assert!(out.lines().next().unwrap().starts_with("GPU: "), "{out}");
    let (json, _) = run_ok(&["info", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("one JSON document");
    assert_eq!(doc["largest_filter"], 127, "{doc}");
    assert!(doc["ptx"]["kernels"].as_u64().unwrap() > 100, "{doc}");
    assert!(
        doc["variants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == "blocked-4x4")
    );
    // No GPU here: none is listed, and the reason is.
    assert!(doc["gpus"].as_array().unwrap().is_empty() == doc["gpu_unavailable"].is_string());
}

#[test]
fn missing_arguments_are_named() {
    for (args, needle) in [
        (&["-o", "x.png"][..], "not provided: --input"),
        (&["--force"], "not provided: --input"),
        (&["report", "merge"], "not provided: <REPORTS>"),
    ] {
        let o = host(args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().count() == 1 && err.contains(needle),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn bad_input_gets_a_one_line_error_and_no_output() {
    let dir = TempDir::new("errors");
    let good = dir.path("good.png");
    save_with_image_crate(&Image::random(6, 6, 1, DType::U8, 1).unwrap(), &good);
    let out = dir.path("out.png");
    let truncated = bad_inputs(&dir, &good, &out);
    bad_filters(&dir, &good, &out);
    bad_outputs(&dir, &good, &out, &truncated);
}

/// Missing, unreadable, corrupt and unsupported inputs of `good`'s run into `out`; returns the
/// truncated PNG made of `good`.
fn bad_inputs(dir: &TempDir, good: &Path, out: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let g = s(good);
    let o = s(out);

    assert_fails(
        &["-i", s(&dir.path("missing.png")), "-o", o],
        "does not exist",
        out,
    );
    assert_fails(
        &["-i", s(&dir.path("nothing-*.png")), "-o", o],
        "no file matches",
        out,
    );
    assert_fails(&["-i", g], "--input needs --output", out);

    // Unreadable: a file without read permission (or, for root, a file the kernel refuses to read).
    let locked = dir.path("locked.png");
    std::fs::copy(good, &locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let unreadable = if std::fs::read(&locked).is_err() {
        locked.clone()
    } else {
        PathBuf::from("/proc/self/mem")
    };
    assert_fails(&["-i", s(&unreadable), "-o", o], "cannot read", out);

    // Corrupt or unsupported images.
    let png = std::fs::read(good).unwrap();
    let truncated = dir.path("truncated.png");
    std::fs::write(&truncated, &png[..png.len() / 2]).unwrap();
    assert_fails(
        &["-i", s(&truncated), "-o", o],
        "truncated.png: the file is truncated",
        out,
    );
    let wide = dir.path("wide.pgm");
    std::fs::write(&wide, b"P5\n300000 4\n255\n0000").unwrap();
    assert_fails(
        &["-i", s(&wide), "-o", o],
        "exceeds limit (at most 262144 pixels per side",
        out,
    );
    let magic = dir.path("magic.png");
    std::fs::write(&magic, b"just some text, no image magic").unwrap();
    assert_fails(&["-i", s(&magic), "-o", o], "Invalid PNG signature", out);
    let unknown = dir.path("mystery.dat");
    std::fs::write(&unknown, b"just some text, no image magic").unwrap();
    assert_fails(&["-i", s(&unknown), "-o", o], "not a supported image", out);
    let pgm = dir.path("header.pgm");
    std::fs::write(&pgm, b"P5\nabc 4\n255\n0000").unwrap();
    assert_fails(&["-i", s(&pgm), "-o", o], "header.pgm", out);
    let bomb = dir.path("bomb.png");
    std::fs::write(&bomb, png_header_only(100_000, 100_000)).unwrap();
    assert_fails(
        &["-i", s(&bomb), "-o", o, "--max-image-mem", "1G"],
        "more than the limit",
        out,
    );
    assert_fails(
        &["-i", g, "-o", s(&dir.path("out.gif"))],
        "unknown output extension",
        &dir.path("out.gif"),
    );
    let f32_png = dir.path("f.png");
    assert_fails(
        &["-i", g, "-o", s(&f32_png), "--dtype", "f32"],
        "PNG cannot store f32",
        &f32_png,
    );
    assert_fails(&["-i", s(&dir.path("x.raw")), "-o", o], "does not exist", out);
    std::fs::write(dir.path("x.raw"), [0u8; 12]).unwrap();
    assert_fails(
        &["-i", s(&dir.path("x.raw")), "-o", o],
        "needs --width and --height",
        out,
    );
    assert_fails(
        &[
            "-i",
            s(&dir.path("x.raw")),
            "-o",
            o,
            "--width",
            "2",
            "--height",
            "2",
        ],
        "has 12 bytes",
        out,
    );
    truncated
}

/// Bad filters: sizes and filter files.
fn bad_filters(dir: &TempDir, good: &Path, out: &Path) {
    let g = s(good);
    let o = s(out);
    // Filters.
    for (args, needle) in [
        (
            &["--mask", "4", "--filter", "sharpen"][..],
            "size 4 is not supported",
        ),
        (&["--mask", "1025"][..], "a 1025x1025 filter is not supported"),
        (
            &["--mask", "129", "--filter", "edge"][..],
            "size 129 is not supported",
        ),
    ] {
        assert_fails(&[&["-i", g, "-o", o][..], args].concat(), needle, out);
    }
    for (name, content, needle) in [
        (
            "ragged.txt",
            "1 2 3\n4 5\n6 7 8\n",
            "line 2 has 2 numbers but line 1 has 3",
        ),
        ("words.txt", "1 2 3\n4 x 6\n7 8 9\n", "'x' is not a number"),
        ("nan.txt", "1 2 3\n4 NaN 6\n7 8 9\n", "NaN is not a finite number"),
        ("inf.txt", "1 2 3\n4 inf 6\n7 8 9\n", "inf is not a finite number"),
        (
            "wide.txt",
            concat!(
                "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128 129\n",
                "129 128 127 126 125 124 123 122 121 120 119 118 117 116 115 114 113 112 111 110 109 108 107 106 105 104 103 102 101 100 99 98 97 96 95 94 93 92 91 90 89 88 87 86 85 84 83 82 81 80 79 78 77 76 75 74 73 72 71 70 69 68 67 66 65 64 63 62 61 60 59 58 57 56 55 54 53 52 51 50 49 48 47 46 45 44 43 42 41 40 39 38 37 36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1\n"
            ),
            "for a filter that is not rank-1",
        ),
    ] {
        let f = dir.path(name);
        std::fs::write(&f, content).unwrap();
        assert_fails(&["-i", g, "-o", o, "--filter-file", s(&f)], needle, out);
    }
}

/// Outputs that cannot be written (and the result's shape refused) for `good`, `out` and
/// `truncated` (an input that fails).
fn bad_outputs(dir: &TempDir, good: &Path, out: &Path, truncated: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let g = s(good);
    let o = s(out);
    // Outputs.
    let nowhere = dir.path("no-such-folder/out.png");
    assert_fails(&["-i", g, "-o", s(&nowhere)], "does not exist", &nowhere);
    let slash = format!("{}/", s(&dir.path("no-such-folder")));
    assert_fails(&["-i", g, "-o", &slash], "output folder", &nowhere);
    assert_fails(
        &["-i", g, "-i", s(truncated), "-o", s(&dir.path("no-such-folder"))],
        "does not exist",
        &nowhere,
    );
    let readonly = dir.path("readonly");
    std::fs::create_dir(&readonly).unwrap();
    std::fs::set_permissions(&readonly, std::fs::Permissions::from_mode(0o555)).unwrap();
    let readonly = if std::fs::write(readonly.join("probe"), b"").is_err() {
        readonly
    } else {
        PathBuf::from("/proc") // root writes anywhere it may; nobody creates files in /proc
    };
    let blocked = readonly.join("out.png");
    assert_fails(&["-i", g, "-o", s(&blocked)], "is not writable", &blocked);
    assert_fails(
        &["-i", g, "-o", g, "--force"],
        "refusing to overwrite the input",
        out,
    );
    std::fs::write(out, b"keep me").unwrap();
    let o2 = host(&["-i", g, "-o", o]);
    assert_eq!(o2.status.code(), Some(1));
    assert!(text(&o2).1.contains("already exists (use --force"));
    assert_eq!(std::fs::read(out).unwrap(), b"keep me");
    std::fs::remove_file(out).unwrap();

    // The valid border with a filter larger than the image.
    assert_fails(
        &["-i", g, "-o", o, "--border", "valid", "--mask", "7"],
        "at least as large as the 7x7 filter",
        out,
    );
    // The separable variant with a filter that is not rank-1.
    assert_fails(
        &["-i", g, "-o", o, "--variant", "separable", "--filter", "sharpen"],
        "rank-1",
        out,
    );
}

#[test]
fn asking_for_a_gpu_variant_without_a_gpu_is_an_error() {
    // As on a machine without a GPU, on every machine.
    let (info, _) = run_ok_without_gpu(&["info"]);
    assert!(info.starts_with("GPU: none"), "{info}");
    let dir = TempDir::new("nogpu");
    let good = dir.path("good.png");
    save_with_image_crate(&Image::random(6, 6, 1, DType::U8, 1).unwrap(), &good);
    let out = dir.path("out.png");
    let args = ["-i", s(&good), "-o", s(&out), "--variant", "tiled"];
    failed(
        &args,
        &host_without_gpu(&args),
        "--variant tiled needs a usable GPU",
        &out,
    );
    // Without --variant, or with the default auto given, the CPU takes over with a one-line notice
    // (tests/usage/defaults.rs checks both).
    let (_, err) = run_ok_without_gpu(&["-i", s(&good), "-o", s(&out)]);
    assert!(err.starts_with("note: no usable GPU"), "{err}");
}

#[test]
fn format_applies_to_output_folders_only() {
    let dir = TempDir::new("format-option");
    let input = dir.path("in.png");
    save_with_image_crate(&Image::random(6, 5, 3, DType::U8, 2).unwrap(), &input);
    let file = dir.path("e.png");
    assert_fails(
        &["-i", s(&input), "-o", s(&file), "--format", "tif"],
        "--format tif names the results in an output folder",
        &file,
    );
    // A file without an extension: the advice is to name it, since --format does not apply.
    let bare = dir.path("result");
    let o = host(&["-i", s(&input), "-o", s(&bare)]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("name it with one") && !err.contains("--format"),
        "{err}"
    );
    // In a folder, an extension no format has is refused before anything is written.
    let out = TempDir::new("format-option-out");
    let o = host(&[
        "-i",
        s(&input),
        "-o",
        &format!("{}/", s(&out.0)),
        "--format",
        "gif",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown output extension 'gif'"), "{err}");
    assert!(out.names().is_empty());
}
