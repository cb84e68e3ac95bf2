//! Binary PGM and PPM files streamed in strips of rows (past `--max-image-mem`, or 256 MiB):
//! the same bytes as the image filtered whole, in every border; failures leave no file.

use crate::assert_fails;
use crate::common::{TempDir, run_ok, s};
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Image};
use std::path::Path;

/// Writes `image` (gray or RGB, 8- or 16-bit) as a binary PGM or PPM, by hand: the `image`
/// crate writes PAM for these extensions.
fn save_pnm(image: &Image, path: &Path) {
    let magic = if image.channels() == 1 { "P5" } else { "P6" };
    let maxval = if image.dtype() == DType::U8 { 255 } else { 65535 };
    let mut bytes = format!(
        "{magic}\n# made by a test\n{} {}\n{maxval}\n",
        image.width(),
        image.height()
    )
    .into_bytes();
    match image.samples() {
        Samples::U8(v) => bytes.extend(v),
        Samples::U16(v) => bytes.extend(v.iter().flat_map(|x| x.to_be_bytes())),
        _ => panic!("8- or 16-bit samples"),
    }
    std::fs::write(path, bytes).unwrap();
}

/// The JSON report's strip count of the one image of a run.
fn strips_of(report: &str) -> u64 {
    let doc: serde_json::Value = serde_json::from_str(report).unwrap();
    doc["images"][0]["strips"].as_u64().unwrap()
}

#[test]
fn streamed_pnm_results_are_the_bytes_of_the_whole_image() {
    let dir = TempDir::new("stream");
    // Gray 8-bit and RGB 16-bit (big-endian in the file), of a width and height no strip divides.
    for (name, ch, dtype, bound) in [
        ("gray.pgm", 1, DType::U8, "100K"),
        ("rgb.ppm", 3, DType::U16, "1M"),
    ] {
        let input = dir.path(name);
        save_pnm(&Image::random(301, 700, ch, dtype, 5).unwrap(), &input);
        let cval = Border::checked_cval(dtype).to_string();
        for border in Border::CHECKED {
            for (filter, mask) in [("gaussian", "9"), ("box", "31")] {
                let context = format!("{name} {} {filter} {mask}", border.name());
                let mut common = vec![
                    "--filter",
                    filter,
                    "--mask",
                    mask,
                    "--border",
                    border.name(),
                    "--variant",
                    "cpu",
                    "--json",
                ];
                if let Border::Constant(_) = border {
                    common.extend(["--cval", &cval]);
                }
                let whole = dir.path(&format!("whole-{name}"));
                let streamed = dir.path(&format!("streamed-{name}"));
                let (report, _) =
                    run_ok(&[&["-i", s(&input), "-o", s(&whole), "--force"][..], &common].concat());
                assert_eq!(strips_of(&report), 1, "{context}: {report}");
                let args = [
                    "-i",
                    s(&input),
                    "-o",
                    s(&streamed),
                    "--force",
                    "--max-image-mem",
                    bound,
                ];
                let (report, _) = run_ok(&[&args[..], &common].concat());
                assert!(strips_of(&report) >= 9, "{context}: not streamed: {report}");
                assert!(
                    std::fs::read(&whole).unwrap() == std::fs::read(&streamed).unwrap(),
                    "{context}: the streamed result differs"
                );
            }
        }
    }
}

#[test]
fn a_streamed_file_that_fails_leaves_no_result() {
    let dir = TempDir::new("stream-fail");
    let input = dir.path("rgb.ppm");
    save_pnm(&Image::random(64, 300, 3, DType::U8, 2).unwrap(), &input);
    let bound = ["--max-image-mem", "10K", "--variant", "cpu"];
    let gray = dir.path("gray.pgm");
    let args = [&["-i", s(&input), "-o", s(&gray)][..], &bound].concat();
    assert_fails(&args, "PGM stores gray images, not 3 channels", &gray);
    // A filter wider than the image's valid region.
    let out = dir.path("valid.ppm");
    let args = [
        &[
            "-i",
            s(&input),
            "-o",
            s(&out),
            "--border",
            "valid",
            "--mask",
            "65",
        ][..],
        &bound,
    ]
    .concat();
    assert_fails(&args, "65", &out);
}
