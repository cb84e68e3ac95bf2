//! The CLI as a new user meets it, through the real `host` binary (CPU path): options that do
//! nothing are refused, argument errors say what is wrong (exit 2 for the parser's, 1 for the
//! rest, one `error:` line each), `--json` is always one document, `-v` lines come as images are
//! written, truncated JPEGs and corrupt TIFFs are errors that say so, gray BMPs stay gray, and
//! the Gaussian's taps, the main job's warm-ups and the progress bar are as documented, and
//! filters of any shape are placed as scipy places them.
//!
//! One test binary: the tests are in the modules below, by topic; this file holds the helpers
//! they share.

#[path = "../common/mod.rs"]
mod common;
use common::{host, text};

mod arguments;
mod defaults;
mod inputs;
mod output;
mod shapes;

use ferroconv::{DType, Image};
use std::path::Path;

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
