//! Every supported format through the CLI against the CPU reference: PNG, BMP, TIFF (integer and
//! float), PGM (ASCII and binary), JPEG, RAW f32 in and out, and `--dtype` conversion.

use crate::common::{TempDir, run_ok, s};
use crate::{assert_matches_reference, builtin, save_with_image_crate};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::filter::FilterKind;
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image, engine::cpu};
use host_tools::verify::check;
use std::path::Path;

/// Writes an `f32` image as TIFF with the `tiff` crate.
fn save_float_tiff(image: &Image, path: &Path) {
    use tiff::encoder::{TiffEncoder, colortype};
    let Samples::F32(v) = image.samples() else {
        panic!("f32 only")
    };
    let mut enc = TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
    let (w, h) = (image.width() as u32, image.height() as u32);
    match image.channels() {
        1 => enc.write_image::<colortype::Gray32Float>(w, h, v).unwrap(),
        3 => enc.write_image::<colortype::RGB32Float>(w, h, v).unwrap(),
        _ => enc.write_image::<colortype::RGBA32Float>(w, h, v).unwrap(),
    }
}

/// Writes an 8-bit gray image as PGM by hand: ASCII (P2) or binary (P5).
fn save_pgm(image: &Image, path: &Path, ascii: bool) {
    let Samples::U8(v) = image.samples() else {
        panic!("u8 only")
    };
    let (w, h) = (image.width(), image.height());
    let mut bytes = format!(
        "{}\n# made by the tests\n{w} {h}\n255\n",
        if ascii { "P2" } else { "P5" }
    )
    .into_bytes();
    if ascii {
        for row in v.chunks(w) {
            let line: Vec<String> = row.iter().map(u8::to_string).collect();
            bytes.extend(format!("{}\n", line.join(" ")).bytes());
        }
    } else {
        bytes.extend(v);
    }
    std::fs::write(path, bytes).unwrap();
}

/// Input file, its pixels, output file, filter arguments, that filter, border, result type.
type Case<'a> = (&'a str, &'a Image, &'a str, Vec<&'a str>, Filter, Border, DType);

#[test]
fn every_format_goes_through_the_cli_and_matches_the_reference() {
    let dir = TempDir::new("formats");
    let gray8 = Image::random(23, 17, 1, DType::U8, 1).unwrap();
    let rgb8 = Image::random(19, 16, 3, DType::U8, 2).unwrap();
    let rgba8 = Image::random(16, 21, 4, DType::U8, 3).unwrap();
    let gray16 = Image::random(20, 18, 1, DType::U16, 4).unwrap();
    let rgb16 = Image::random(17, 15, 3, DType::U16, 5).unwrap();
    let grayf = Image::random(25, 13, 1, DType::F32, 6).unwrap();
    let rgbaf = Image::random(14, 12, 4, DType::F32, 7).unwrap();
    save_with_image_crate(&gray8, &dir.path("gray8.png"));
    save_with_image_crate(&rgb8, &dir.path("rgb8.png"));
    save_with_image_crate(&rgba8, &dir.path("rgba8.png"));
    save_with_image_crate(&gray16, &dir.path("gray16.png"));
    save_with_image_crate(&rgb16, &dir.path("rgb16.png"));
    save_with_image_crate(&rgb8, &dir.path("rgb8.bmp"));
    save_float_tiff(&grayf, &dir.path("grayf.tif"));
    save_float_tiff(&rgbaf, &dir.path("rgbaf.tiff"));
    save_pgm(&gray8, &dir.path("ascii.pgm"), true);
    save_pgm(&gray8, &dir.path("binary.pgm"), false);
    let cases: Vec<Case> = vec![
        (
            "gray8.png",
            &gray8,
            "o1.png",
            vec!["--mask", "5"],
            builtin(FilterKind::Box, 5),
            Border::Zero,
            DType::U8,
        ),
        (
            "rgb8.png",
            &rgb8,
            "o2.png",
            vec!["--filter", "gaussian", "--mask", "7"],
            builtin(FilterKind::Gaussian, 7),
            Border::Reflect,
            DType::U8,
        ),
        (
            "rgba8.png",
            &rgba8,
            "o3.tif",
            vec!["--filter", "sharpen", "--mask", "3"],
            builtin(FilterKind::Sharpen, 3),
            Border::Replicate,
            DType::U8,
        ),
        (
            "gray16.png",
            &gray16,
            "o4.png",
            vec!["--filter", "emboss", "--mask", "3"],
            builtin(FilterKind::Emboss, 3),
            Border::Wrap,
            DType::U16,
        ),
        (
            "rgb16.png",
            &rgb16,
            "o5.ppm",
            vec!["--filter", "sobel-x", "--mask", "5"],
            builtin(FilterKind::SobelX, 5),
            Border::Valid,
            DType::U16,
        ),
        (
            "rgb8.bmp",
            &rgb8,
            "o6.bmp",
            vec!["--mask", "3"],
            builtin(FilterKind::Box, 3),
            Border::Zero,
            DType::U8,
        ),
        (
            "grayf.tif",
            &grayf,
            "o7.tiff",
            vec!["--filter", "edge", "--mask", "3"],
            builtin(FilterKind::Edge, 3),
            Border::Reflect,
            DType::F32,
        ),
        (
            "rgbaf.tiff",
            &rgbaf,
            "o8.tif",
            vec!["--mask", "5"],
            builtin(FilterKind::Box, 5),
            Border::Valid,
            DType::F32,
        ),
        (
            "ascii.pgm",
            &gray8,
            "o9.pgm",
            vec!["--mask", "3"],
            builtin(FilterKind::Box, 3),
            Border::Zero,
            DType::U8,
        ),
        (
            "binary.pgm",
            &gray8,
            "o10.png",
            vec!["--filter", "gaussian", "--mask", "5"],
            builtin(FilterKind::Gaussian, 5),
            Border::Replicate,
            DType::U8,
        ),
    ];
    for (input, pixels, output, filter_args, filter, border, dtype) in cases {
        let (i, o) = (dir.path(input), dir.path(output));
        let args = [
            &["-i", s(&i), "-o", s(&o), "--border", border.name()][..],
            &filter_args,
        ]
        .concat();
        run_ok(&args);
        // The input as the CLI decodes it is exactly what the tests encoded.
        assert_eq!(
            &files::read(&i, &RawLayout::default()).unwrap(),
            pixels,
            "{input}"
        );
        assert_matches_reference(pixels, &o, &filter, border, dtype);
    }
    assert!(
        !dir.names().iter().any(|n| n.starts_with('.')),
        "{:?}",
        dir.names()
    );
}

#[test]
fn jpeg_raw_and_dtype_conversion() {
    let dir = TempDir::new("jpeg-raw");
    // JPEG is lossy: a smooth image, and the result within a few levels of the reference.
    let smooth: Vec<u8> = (0..32 * 24 * 3)
        .map(|n| ((n / 3) % 32 * 4 + (n / 96) * 3) as u8)
        .collect();
    let rgb = Image::new(32, 24, 3, Samples::U8(smooth)).unwrap();
    save_with_image_crate(&rgb, &dir.path("in.jpg"));
    run_ok(&[
        "-i",
        s(&dir.path("in.jpg")),
        "-o",
        s(&dir.path("out.jpg")),
        "--mask",
        "3",
    ]);
    let decoded = files::read(&dir.path("in.jpg"), &RawLayout::default()).unwrap();
    let got = files::read(&dir.path("out.jpg"), &RawLayout::default()).unwrap();
    let expected = cpu::reference(&decoded, &builtin(FilterKind::Box, 3), Border::Zero).unwrap();
    let worst = expected
        .values
        .iter()
        .enumerate()
        .map(|(i, e)| (got.samples().value(i) - e.clamp(0.0, 1.0)).abs() * 255.0)
        .fold(0.0, f64::max);
    assert!(worst <= 12.0, "JPEG result {worst} levels off");

    // RAW f32 in (size from --width/--height/--channels), float TIFF out.
    let raw = Image::random(9, 7, 3, DType::F32, 9).unwrap();
    let Samples::F32(v) = raw.samples() else {
        unreachable!()
    };
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.path("in.raw"), bytes).unwrap();
    let (i, o) = (dir.path("in.raw"), dir.path("raw-out.tif"));
    run_ok(&[
        "-i",
        s(&i),
        "-o",
        s(&o),
        "--width",
        "9",
        "--height",
        "7",
        "--channels",
        "3",
        "--mask",
        "3",
    ]);
    assert_matches_reference(&raw, &o, &builtin(FilterKind::Box, 3), Border::Zero, DType::F32);
    // ... and RAW out.
    let o = dir.path("raw-out.raw");
    let args = [
        "-i",
        s(&i),
        "-o",
        s(&o),
        "--width",
        "9",
        "--height",
        "7",
        "--channels",
        "3",
        "--mask",
        "3",
    ];
    run_ok(&args);
    let back = files::read(
        &o,
        &RawLayout {
            width: Some(9),
            height: Some(7),
            channels: 3,
        },
    )
    .unwrap();
    let expected = cpu::reference(&raw, &builtin(FilterKind::Box, 3), Border::Zero).unwrap();
    let tol = check::tolerance(&raw, &builtin(FilterKind::Box, 3), None);
    assert!(check::compare(&back, &expected, tol, false).passed());

    // --dtype converts: an 8-bit PNG processed as f32 and written as a float TIFF.
    save_with_image_crate(&rgb, &dir.path("in.png"));
    let o = dir.path("as-float.tif");
    run_ok(&[
        "-i",
        s(&dir.path("in.png")),
        "-o",
        s(&o),
        "--dtype",
        "f32",
        "--mask",
        "3",
    ]);
    let as_f32 = files::convert(rgb.clone(), DType::F32);
    assert_matches_reference(
        &as_f32,
        &o,
        &builtin(FilterKind::Box, 3),
        Border::Zero,
        DType::F32,
    );
}

/// A PGM of maxval 1000 (10-bit counts) or 100 comes back with its maxval and its counts, not
/// rescaled to 65535 or 255.
#[test]
fn pnm_results_keep_the_inputs_maxval() {
    let dir = TempDir::new("pnm-maxval");
    for (maxval, counts) in [
        (1000u16, vec![0u16, 250, 500, 750, 999, 1000]),
        (100, vec![0, 1, 50, 99, 100, 7]),
    ] {
        let input = dir.path(&format!("in{maxval}.pgm"));
        let mut file = format!("P5\n3 2\n{maxval}\n").into_bytes();
        for &c in &counts {
            if maxval > 255 {
                file.extend(c.to_be_bytes());
            } else {
                file.push(c as u8);
            }
        }
        std::fs::write(&input, file).unwrap();
        let out = dir.path(&format!("out{maxval}.pgm"));
        run_ok(&[
            "-i",
            s(&input),
            "-o",
            s(&out),
            "--filter",
            "identity",
            "--mask",
            "1",
            "--quiet",
        ]);
        let written = std::fs::read(&out).unwrap();
        let header = format!("P5\n3 2\n{maxval}\n");
        assert!(
            written.starts_with(header.as_bytes()),
            "{maxval}: {:?}",
            &written[..12]
        );
        let body = &written[header.len()..];
        let got: Vec<u16> = if maxval > 255 {
            body.chunks_exact(2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .collect()
        } else {
            body.iter().map(|&b| u16::from(b)).collect()
        };
        assert_eq!(got, counts, "maxval {maxval}");
    }
}
