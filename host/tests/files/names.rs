//! File names as people have them: long ones (the temporary name stays within the file system's
//! limit), ones with line breaks and escapes (messages escape them, so no name forges a line),
//! and macOS's AppleDouble companions (not images).

use crate::common::{TempDir, host, run_ok, s, text};
use crate::save_with_image_crate;
use ferroconv::{DType, Image};

#[test]
fn an_output_name_of_250_bytes_is_written_through_a_temporary_that_fits() {
    let dir = TempDir::new("long-names");
    let input = dir.path("in.png");
    save_with_image_crate(&Image::random(9, 7, 3, DType::U8, 5).unwrap(), &input);
    let out_dir = TempDir::new("long-names-out");
    // 246 bytes of stem, 4 of extension: 250 bytes, 12 bytes from the usual limit of 255.
    let name = format!("{}.png", "é".repeat(123));
    assert_eq!(name.len(), 250);
    run_ok(&["-i", s(&input), "-o", s(&out_dir.path(&name)), "--quiet"]);
    assert_eq!(out_dir.names(), [name], "the result alone: no temporary left");
}

#[test]
fn a_name_with_a_line_break_cannot_split_or_forge_an_error_line() {
    let dir = TempDir::new("control-names");
    save_with_image_crate(
        &Image::random(9, 7, 1, DType::U8, 6).unwrap(),
        &dir.path("good.png"),
    );
    let forged = "bad\nerror: forged\u{1b}[2K.png";
    std::fs::write(dir.path(forged), b"not a PNG").unwrap();
    let out = TempDir::new("control-names-out");
    let o = host(&["-i", s(&dir.0), "-o", s(&out.0)]);
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 2, "the bad file's line and the count's:\n{err}");
    assert!(errors[1].contains("1 of 2 image(s) failed"), "{err}");
    assert!(
        errors[0].contains("bad\\nerror: forged\\u{1b}[2K.png"),
        "the name escaped: {}",
        errors[0]
    );
    assert!(
        !err.contains('\u{1b}'),
        "no raw escape reaches the terminal: {err:?}"
    );
    assert_eq!(out.names(), ["good.png"]);
}

#[test]
fn apple_double_files_beside_images_are_not_inputs() {
    let dir = TempDir::new("apple-double");
    save_with_image_crate(&Image::random(9, 7, 3, DType::U8, 7).unwrap(), &dir.path("x.png"));
    // What macOS writes beside `x.png` on a file system without extended attributes.
    std::fs::write(dir.path("._x.png"), b"\0\x05\x16\x07\0\x02\0\0Mac OS X").unwrap();
    for input in [s(&dir.0).to_string(), format!("{}/*.png", s(&dir.0))] {
        let out = TempDir::new("apple-double-out");
        run_ok(&["-i", &input, "-o", s(&out.0), "--quiet"]);
        assert_eq!(out.names(), ["x.png"], "{input}");
    }
}

/// Names as they come (not UTF-8, line breaks, terminal escapes, a leading dash, 250 bytes)
/// through every output mode: quiet, default, verbose and JSON. Each run exits 0, writes every
/// result, never panics, and the JSON is one document with an entry a name.
#[test]
fn every_output_mode_takes_every_kind_of_name() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let input = TempDir::new("names-in");
    let long = format!("{}.png", "n".repeat(246));
    let names: Vec<&OsStr> = vec![
        OsStr::from_bytes(b"\xff\xfe.png"),
        OsStr::new("line\nbreak.png"),
        OsStr::new("\u{1b}[31mred.png"),
        OsStr::new("-dash.png"),
        OsStr::new(&long),
    ];
    for (n, name) in names.iter().enumerate() {
        let image = Image::random(7, 5, 1, DType::U8, n as u64).unwrap();
        save_with_image_crate(&image, &input.0.join(name));
    }
    for mode in [&["-q"][..], &[], &["-v"], &["--json"]] {
        let out = TempDir::new("names-out");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_host"))
            .args(["-i", s(&input.0), "-o", s(&out.0)])
            .args(mode)
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .output()
            .unwrap();
        let (stdout, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{mode:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains('\u{1b}'),
            "{mode:?}: {err:?}"
        );
        assert_eq!(
            std::fs::read_dir(&out.0).unwrap().count(),
            names.len(),
            "{mode:?}"
        );
        if mode == ["--json"] {
            let doc: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
            assert_eq!(doc["images"].as_array().unwrap().len(), names.len());
        }
    }
}
