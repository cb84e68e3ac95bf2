//! Unusual input files: truncated JPEGs, corrupt TIFFs and empty files are errors that say so,
//! gray BMPs stay gray, a filter file with a byte order mark is read, an input named twice is
//! processed once, and two inputs clashing on one output are refused.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{fails_with, gray, save};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::filter::FilterKind;
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image, engine::cpu};
use std::path::Path;

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
