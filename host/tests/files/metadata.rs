//! What files carry besides pixels: the Exif orientation is applied (as OpenCV's `imread` does)
//! and its tag set to 1, or with `--keep-orientation` the stored pixels and the tag are kept; ICC
//! profiles and Exif blocks go from PNG and JPEG inputs to PNG and JPEG results.

use crate::common::{TempDir, run_ok, s};
use image::{ImageDecoder, ImageEncoder};
use std::path::Path;

/// An Exif block (little-endian TIFF structure) whose only tag is Orientation = `value`.
fn exif_orientation(value: u16) -> Vec<u8> {
    let mut b = b"II*\0".to_vec();
    b.extend(8u32.to_le_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend(0x0112u16.to_le_bytes());
    b.extend(3u16.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend(value.to_le_bytes());
    b.extend([0, 0]);
    b.extend(0u32.to_le_bytes());
    b
}

/// A 5 × 3 gray PNG of distinct samples, with `exif` and `icc`.
fn png_with(path: &Path, exif: Option<Vec<u8>>, icc: Option<Vec<u8>>) -> Vec<u8> {
    let pixels: Vec<u8> = (0..15).map(|i| 10 + 15 * i as u8).collect();
    let mut enc = image::codecs::png::PngEncoder::new(std::fs::File::create(path).unwrap());
    if let Some(e) = exif {
        enc.set_exif_metadata(e).unwrap();
    }
    if let Some(p) = icc {
        enc.set_icc_profile(p).unwrap();
    }
    enc.write_image(&pixels, 5, 3, image::ExtendedColorType::L8)
        .unwrap();
    pixels
}

/// A file's stored pixels (orientation not applied), its size, orientation and ICC profile.
fn stored(path: &Path) -> (Vec<u8>, (u32, u32), image::metadata::Orientation, Option<Vec<u8>>) {
    let mut dec = image::ImageReader::open(path)
        .unwrap()
        .with_guessed_format()
        .unwrap()
        .into_decoder()
        .unwrap();
    let (orientation, icc) = (dec.orientation().unwrap(), dec.icc_profile().unwrap());
    let size = dec.dimensions();
    let image = image::DynamicImage::from_decoder(dec).unwrap();
    (image.to_luma8().into_raw(), size, orientation, icc)
}

#[test]
fn the_exif_orientation_is_applied_unless_kept() {
    use image::metadata::Orientation;
    let dir = TempDir::new("orientation");
    let input = dir.path("portrait.png");
    let pixels = png_with(&input, Some(exif_orientation(6)), None);
    let identity = ["--filter", "identity", "--mask", "1", "--quiet"];
    // Orientation 6: the stored 5 × 3 image is shown turned 90° clockwise, 3 × 5.
    let upright = dir.path("upright.png");
    run_ok(&[&["-i", s(&input), "-o", s(&upright)][..], &identity].concat());
    let (got, size, orientation, _) = stored(&upright);
    assert_eq!((size, orientation), ((3, 5), Orientation::NoTransforms));
    let turned: Vec<u8> = (0..5)
        .flat_map(|y| (0..3).map(move |x| (2 - x, y)))
        .map(|(sy, sx)| pixels[sy * 5 + sx])
        .collect();
    assert_eq!(got, turned);
    let kept = dir.path("kept.png");
    run_ok(
        &[
            &["-i", s(&input), "-o", s(&kept), "--keep-orientation"][..],
            &identity,
        ]
        .concat(),
    );
    let (got, size, orientation, _) = stored(&kept);
    assert_eq!((size, orientation), ((5, 3), Orientation::Rotate90));
    assert_eq!(got, pixels);
}

#[test]
fn icc_profiles_go_from_inputs_to_png_and_jpeg_results() {
    let dir = TempDir::new("icc");
    let input = dir.path("wide-gamut.png");
    let profile: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
    png_with(&input, None, Some(profile.clone()));
    for name in ["out.png", "out.jpg"] {
        let out = dir.path(name);
        run_ok(&["-i", s(&input), "-o", s(&out), "--quiet"]);
        assert_eq!(stored(&out).3.as_deref(), Some(&profile[..]), "{name}");
    }
}

/// The resolution goes from a JPEG's JFIF density to a PNG's pHYs, a TIFF's XResolution and
/// YResolution and back to a JPEG's density, so print sizes are kept.
#[test]
fn the_resolution_is_kept_from_format_to_format() {
    use ferroconv::io::files::{self, RawLayout, ReadOptions};
    let dir = TempDir::new("dpi");
    let input = dir.path("scan.jpg");
    let pixels: Vec<u8> = (0..64 * 48).map(|i| (i % 251) as u8).collect();
    let mut enc = image::codecs::jpeg::JpegEncoder::new(std::fs::File::create(&input).unwrap());
    enc.set_pixel_density(image::codecs::jpeg::PixelDensity::dpi(300));
    enc.write_image(&pixels, 64, 48, image::ExtendedColorType::L8)
        .unwrap();
    let dpi = |path: &Path| {
        files::read_with_metadata(path, &RawLayout::default(), &ReadOptions::default())
            .unwrap()
            .1
            .dpi
    };
    assert_eq!(dpi(&input), Some((300.0, 300.0)));
    let (png, tif, jpg) = (dir.path("a.png"), dir.path("b.tif"), dir.path("c.jpg"));
    for (from, to) in [(&input, &png), (&png, &tif), (&tif, &jpg)] {
        run_ok(&["-i", s(from), "-o", s(to), "--quiet"]);
    }
    // PNG keeps pixels per metre: 300 dpi is 11811 a metre, 299.9994 dpi.
    let (x, y) = dpi(&png).unwrap();
    assert!((x - 300.0).abs() < 0.01 && (y - 300.0).abs() < 0.01, "{x} {y}");
    let mut decoder = tiff::decoder::Decoder::new(std::fs::File::open(&tif).unwrap()).unwrap();
    let x = decoder.find_tag(tiff::tags::Tag::XResolution).unwrap();
    assert_eq!(x, Some(tiff::decoder::ifd::Value::Rational(30000, 100)));
    // JFIF: units 1 (dots per inch), 300 × 300.
    let bytes = std::fs::read(&jpg).unwrap();
    assert_eq!(&bytes[6..11], b"JFIF\0");
    assert_eq!(&bytes[13..18], &[1, 1, 44, 1, 44]);
}

/// A TIFF result carries its input's ICC profile (tag 34675, of field type UNDEFINED), and a PNG
/// made from that TIFF gets it back.
#[test]
fn icc_profiles_go_through_tiff() {
    let dir = TempDir::new("icc-tiff");
    let input = dir.path("in.png");
    let profile: Vec<u8> = (0..200u32).map(|i| (i * 13 % 256) as u8).collect();
    png_with(&input, None, Some(profile.clone()));
    let (tif, png) = (dir.path("mid.tif"), dir.path("out.png"));
    run_ok(&["-i", s(&input), "-o", s(&tif), "--quiet"]);
    run_ok(&["-i", s(&tif), "-o", s(&png), "--quiet"]);
    let bytes = std::fs::read(&tif).unwrap();
    // The entry: tag 34675 (0x8773), type 7, little-endian.
    assert!(
        bytes.windows(4).any(|w| w == [0x73, 0x87, 7, 0]),
        "no UNDEFINED ICC entry"
    );
    assert_eq!(stored(&png).3.as_deref(), Some(&profile[..]));
}
