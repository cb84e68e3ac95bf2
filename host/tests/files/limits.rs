//! Size and memory limits on decoding: decompression bombs, headers larger than their files,
//! gigapixel images, and `--max-image-mem`.

use crate::common::{TempDir, s};
use crate::{assert_fails, png_header_only, save_with_image_crate};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::{DType, Image};

#[test]
fn decompression_bombs_are_refused_before_decoding() {
    let dir = TempDir::new("bomb");
    for (w, h, needle) in [
        (100_000, 100_000, "9.3 GiB"),
        (1 << 20, 1, "at most 262144 pixels per side"),
    ] {
        let p = dir.path(&format!("bomb-{w}.png"));
        std::fs::write(&p, png_header_only(w, h)).unwrap();
        let e = files::read_with_limit(&p, &RawLayout::default(), 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{w}x{h}: {e}");
    }
}

/// Images past 2^30 pixels are taken as far as the memory bound allows: the bound, not a pixel
/// count, refuses them, from the header or the RAW layout, saying how much memory they need.
#[test]
fn gigapixel_images_are_bounded_by_memory_not_by_pixels() {
    let dir = TempDir::new("giga");
    let (w, h) = (40_000, 30_000);
    let raw = dir.path("mosaic.f32");
    std::fs::write(&raw, [0u8; 16]).unwrap();
    let out = dir.path("out.f32");
    let (ws, hs) = (w.to_string(), h.to_string());
    let args = ["-i", s(&raw), "-o", s(&out), "--width", &ws, "--height", &hs];
    // 1.2 gigapixels of f32 take 4.5 GiB: over a 1 GiB bound, refused before reading.
    assert_fails(&[&args[..], &["--max-image-mem", "1G"]].concat(), "4.5 GiB", &out);
    // Under a larger bound the size checks pass and the file's length is what is wrong.
    assert_fails(
        &[&args[..], &["--max-image-mem", "8G"]].concat(),
        "has 16 bytes, but 40000x30000 with 1 channel(s) of f32 needs 4800000000",
        &out,
    );
    let png = dir.path("wide.png");
    std::fs::write(&png, png_header_only(w as u32, h as u32)).unwrap();
    let e = files::read_with_limit(&png, &RawLayout::default(), 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(e.contains("1.1 GiB") && e.contains("--max-image-mem"), "{e}");
}

/// Found by the `image_decode` fuzz target: a 26-byte PPM header that declares 22222x44444
/// 16-bit RGB made the decoder allocate 5.9 GB before finding no data. It is also in the fuzz
/// seeds (`fuzz/seeds/image_decode/`).
const PPM_BOMB: &[u8] = b"P622222\t44444\t6444\x0b4483\n44";

#[test]
fn a_header_larger_than_its_file_is_refused_before_allocating() {
    let e = files::decode(PPM_BOMB).unwrap_err().to_string();
    assert!(e.contains("<memory>") && e.contains("truncated"), "{e}");
    // Binary PGM, PPM and PAM, uncompressed BMP and TIFF: one byte short of the declared data.
    let pgm = [b"P5\n4 3\n255\n".as_slice(), &[7u8; 11]].concat();
    let e = files::decode(&pgm).unwrap_err().to_string();
    assert!(e.contains("needs at least 23 bytes, but the file has 22"), "{e}");
    let ascii = b"P2\n4 3\n255\n1 2 3";
    assert!(
        files::decode(ascii)
            .unwrap_err()
            .to_string()
            .contains("truncated")
    );
    let complete = [b"P5\n4 3\n255\n".as_slice(), &[7u8; 12]].concat();
    assert_eq!(files::decode(&complete).unwrap().width(), 4);
    let pam = b"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n";
    let e = files::decode(&[pam.as_slice(), &[1u8; 15]].concat())
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated: its header declares 2x2"), "{e}");
    // An uncompressed BMP with its last pixel cut off.
    let dir = TempDir::new("truncated-bmp");
    let path = dir.path("in.bmp");
    save_with_image_crate(&Image::random(9, 5, 3, DType::U8, 3).unwrap(), &path);
    let bytes = std::fs::read(&path).unwrap();
    assert!(files::decode(&bytes).is_ok());
    let e = files::decode(&bytes[..bytes.len() - 3]).unwrap_err().to_string();
    assert!(e.contains("truncated: its header declares 9x5"), "{e}");
}

#[test]
fn decoded_memory_is_bounded() {
    // A PNG header claiming 30000x30000 gray (900 MB decoded) with almost no data.
    let bomb = png_header_only(30_000, 30_000);
    let e = files::decode_with_limit(&bomb, 512 << 20)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("would take 858.3 MiB (and its result as much again), more than the limit of 512.0 MiB per image (--max-image-mem"),
        "{e}"
    );
    // The same small image decodes under a generous limit and is refused under a tiny one.
    let dir = TempDir::new("memlimit");
    let path = dir.path("small.png");
    save_with_image_crate(&Image::random(64, 64, 3, DType::U8, 2).unwrap(), &path);
    let bytes = std::fs::read(&path).unwrap();
    assert!(files::decode_with_limit(&bytes, 1 << 20).is_ok());
    let e = files::decode_with_limit(&bytes, 1000).unwrap_err().to_string();
    assert!(e.contains("more than the limit"), "{e}");
    assert!(files::default_max_image_bytes() >= 1 << 20);
    // The CLI option: refused with a one-line error and no output.
    let out = dir.path("out.png");
    assert_fails(
        &["-i", s(&path), "-o", s(&out), "--max-image-mem", "4K"],
        "more than the limit of 4.0 KiB per image",
        &out,
    );
}

#[test]
fn decoding_from_memory_checks_sizes_and_rejects_garbage() {
    assert!(files::decode(b"").is_err());
    assert!(files::decode(b"\x89PNG\r\n\x1a\n garbage").is_err());
    let bomb = files::decode(&png_header_only(1 << 19, 1))
        .unwrap_err()
        .to_string();
    assert!(
        bomb.contains("<memory>") && bomb.contains("at most 262144 pixels per side"),
        "{bomb}"
    );
}
