//! Runs the real `host` binary on image files the tests make (gray, RGB, RGBA, 16-bit, float TIFF,
//! PGM ASCII and binary, JPEG, BMP, RAW f32) and compares the results with the CPU reference;
//! checks batches, strips, JSON, results in counts, the constant border's value, and that every kind of bad input gets a one-line error, exit
//! code 1 and no output file. Without a GPU the CLI falls back to the CPU; nothing here needs one.
//!
//! One test binary: the tests are in the modules below, by topic; this file holds the helpers
//! they share.

#[path = "../common/mod.rs"]
mod common;
use common::{host, text};

mod batch;
mod counts;
mod cval;
mod encoding;
mod errors;
mod formats;
mod limits;
mod metadata;
mod names;
mod resume;
mod stream;
mod tiff;
mod trees;

use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::filter::FilterKind;
use ferroconv::{Border, DType, Filter, Image, engine::cpu};
use host_tools::verify::check;
use std::path::Path;
use std::process::Output;

/// Writes `image` with the `image` crate's own encoders (not the code under test).
fn save_with_image_crate(image: &Image, path: &Path) {
    let (w, h) = (image.width() as u32, image.height() as u32);
    let color = match (image.channels(), image.dtype()) {
        (1, DType::U8) => image::ExtendedColorType::L8,
        (3, DType::U8) => image::ExtendedColorType::Rgb8,
        (4, DType::U8) => image::ExtendedColorType::Rgba8,
        (1, DType::U16) => image::ExtendedColorType::L16,
        (3, DType::U16) => image::ExtendedColorType::Rgb16,
        (4, DType::U16) => image::ExtendedColorType::Rgba16,
        other => panic!("no image-crate layout for {other:?}"),
    };
    image::save_buffer(path, image.samples().as_bytes(), w, h, color).unwrap();
}

/// Checks the file at `result` against the reference of `input` under `filter` and `border`.
fn assert_matches_reference(input: &Image, result: &Path, filter: &Filter, border: Border, dtype: DType) {
    let got = files::read(result, &RawLayout::default()).unwrap();
    assert_eq!(got.dtype(), dtype, "{}", result.display());
    let expected = cpu::reference(input, filter, border).unwrap();
    let tol = check::tolerance(input, filter, filter.rank1().as_ref());
    let c = check::compare(&got, &expected, tol, false);
    assert!(c.passed(), "{}: {c}", result.display());
}

fn builtin(kind: FilterKind, k: usize) -> Filter {
    Filter::builtin(kind, k, None).unwrap()
}

/// A PNG whose header claims `width × height` pixels, with a valid CRC, and a tiny data chunk.
fn png_header_only(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        let crc = crc32(&out[start..]);
        out.extend(crc.to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(
        &mut png,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Runs `host` expecting failure: exit code 1, exactly one `error: ` line on stderr (the last),
/// containing `needle`, no panic, and no file named `output` left behind.
fn assert_fails(args: &[&str], needle: &str, output: &Path) {
    failed(args, &host(args), needle, output);
}

/// [`assert_fails`] on the run `o` of `args`.
fn failed(args: &[&str], o: &Output, needle: &str, output: &Path) {
    let (out, err) = text(o);
    assert_eq!(o.status.code(), Some(1), "{args:?}\nstdout: {out}\nstderr: {err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{args:?}: {err}");
    assert_eq!(err.lines().last(), Some(errors[0]), "{args:?}: {err}");
    assert!(
        errors[0].contains(needle),
        "{args:?}: wanted '{needle}' in: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    assert!(!output.exists(), "{args:?}: {} was left", output.display());
    if let Some(parent) = output.parent().filter(|p| p.is_dir()) {
        let leftovers: Vec<_> = std::fs::read_dir(parent)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{args:?}: temporary files left: {leftovers:?}"
        );
    }
}
