//! Runs the real `host` binary on image files the tests make (gray, RGB, RGBA, 16-bit, float TIFF,
//! PGM ASCII and binary, JPEG, BMP, RAW f32) and compares the results with the CPU reference;
//! checks batches, strips, JSON, and that every kind of bad input gets a one-line error, exit
//! code 1 and no output file. Without a GPU the CLI falls back to the CPU; nothing here needs one.

mod common;
use common::{TempDir, host, run_ok, s, text};

use conv::io::files::{self, RawLayout};
use conv::model::filter::FilterKind;
use conv::model::image::Samples;
use conv::{Border, DType, Filter, Image, engine::cpu, verify::check};
use std::path::{Path, PathBuf};

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
    for border in Border::ALL {
        let whole = dir.path(&format!("whole-{}.png", border.name()));
        let strips = dir.path(&format!("strips-{}.png", border.name()));
        let common = [
            "--filter",
            "gaussian",
            "--mask",
            "9",
            "--border",
            border.name(),
            "--variant",
            "cpu",
        ];
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

#[test]
fn info_works_without_a_gpu() {
    let (out, _) = run_ok(&["info"]);
    assert!(out.contains("PTX target: sm_"), "{out}");
    assert!(out.contains("largest filter: 31x31"), "{out}");
    assert!(out.lines().next().unwrap().starts_with("GPU: "), "{out}");
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

/// Runs `host` expecting failure: exit code 1, exactly one `error: ` line on stderr (the last),
/// containing `needle`, no panic, and no file named `output` left behind.
fn assert_fails(args: &[&str], needle: &str, output: &Path) {
    let o = host(args);
    let (out, err) = text(&o);
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

#[test]
fn bad_input_gets_a_one_line_error_and_no_output() {
    let dir = TempDir::new("errors");
    let good = dir.path("good.png");
    save_with_image_crate(&Image::random(6, 6, 1, DType::U8, 1).unwrap(), &good);
    let out = dir.path("out.png");
    let g = s(&good);
    let o = s(&out);

    assert_fails(
        &["-i", s(&dir.path("missing.png")), "-o", o],
        "does not exist",
        &out,
    );
    assert_fails(
        &["-i", s(&dir.path("nothing-*.png")), "-o", o],
        "no file matches",
        &out,
    );
    assert_fails(&["-i", g], "--input needs --output", &out);

    // Unreadable: a file without read permission (or, for root, a file the kernel refuses to read).
    let locked = dir.path("locked.png");
    std::fs::copy(&good, &locked).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let unreadable = if std::fs::read(&locked).is_err() {
        locked.clone()
    } else {
        PathBuf::from("/proc/self/mem")
    };
    assert_fails(&["-i", s(&unreadable), "-o", o], "cannot read", &out);

    // Corrupt or unsupported images.
    let png = std::fs::read(&good).unwrap();
    let truncated = dir.path("truncated.png");
    std::fs::write(&truncated, &png[..png.len() / 2]).unwrap();
    assert_fails(
        &["-i", s(&truncated), "-o", o],
        "truncated.png: the file is truncated",
        &out,
    );
    let wide = dir.path("wide.pgm");
    std::fs::write(&wide, b"P5\n300000 4\n255\n0000").unwrap();
    assert_fails(
        &["-i", s(&wide), "-o", o],
        "exceeds limit (at most 262144 pixels per side",
        &out,
    );
    let magic = dir.path("magic.png");
    std::fs::write(&magic, b"just some text, no image magic").unwrap();
    assert_fails(&["-i", s(&magic), "-o", o], "Invalid PNG signature", &out);
    let unknown = dir.path("mystery.dat");
    std::fs::write(&unknown, b"just some text, no image magic").unwrap();
    assert_fails(&["-i", s(&unknown), "-o", o], "not a supported image", &out);
    let pgm = dir.path("header.pgm");
    std::fs::write(&pgm, b"P5\nabc 4\n255\n0000").unwrap();
    assert_fails(&["-i", s(&pgm), "-o", o], "header.pgm", &out);
    let bomb = dir.path("bomb.png");
    std::fs::write(&bomb, png_header_only(100_000, 100_000)).unwrap();
    assert_fails(
        &["-i", s(&bomb), "-o", o, "--max-image-mem", "1G"],
        "more than the limit",
        &out,
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
    assert_fails(&["-i", s(&dir.path("x.raw")), "-o", o], "does not exist", &out);
    std::fs::write(dir.path("x.raw"), [0u8; 12]).unwrap();
    assert_fails(
        &["-i", s(&dir.path("x.raw")), "-o", o],
        "needs --width and --height",
        &out,
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
        &out,
    );

    // Filters.
    for (args, needle) in [
        (&["--mask", "4"][..], "size 4 is not supported"),
        (&["--mask", "0"][..], "size 0 is not supported"),
        (&["--mask", "33"][..], "size 33 is not supported"),
    ] {
        assert_fails(&[&["-i", g, "-o", o][..], args].concat(), needle, &out);
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
        ("wide.txt", "1 2 3\n4 5 6\n", "not square"),
        ("even.txt", "1 2\n3 4\n", "size 2 is not supported"),
    ] {
        let f = dir.path(name);
        std::fs::write(&f, content).unwrap();
        assert_fails(&["-i", g, "-o", o, "--filter-file", s(&f)], needle, &out);
    }

    // Outputs.
    let nowhere = dir.path("no-such-folder/out.png");
    assert_fails(&["-i", g, "-o", s(&nowhere)], "does not exist", &nowhere);
    let slash = format!("{}/", s(&dir.path("no-such-folder")));
    assert_fails(&["-i", g, "-o", &slash], "output folder", &nowhere);
    assert_fails(
        &["-i", g, "-i", s(&truncated), "-o", s(&dir.path("no-such-folder"))],
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
        &out,
    );
    std::fs::write(&out, b"keep me").unwrap();
    let o2 = host(&["-i", g, "-o", o]);
    assert_eq!(o2.status.code(), Some(1));
    assert!(text(&o2).1.contains("already exists (use --force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    std::fs::remove_file(&out).unwrap();

    // The valid border with a filter larger than the image.
    assert_fails(
        &["-i", g, "-o", o, "--border", "valid", "--mask", "7"],
        "at least as large as the 7x7 filter",
        &out,
    );
    // The separable variant with a filter that is not rank-1.
    assert_fails(
        &["-i", g, "-o", o, "--variant", "separable", "--filter", "sharpen"],
        "rank-1",
        &out,
    );
}

#[test]
fn asking_for_a_gpu_variant_without_a_gpu_is_an_error() {
    let (info, _) = run_ok(&["info"]);
    if !info.starts_with("GPU: none") {
        eprintln!("SKIPPED: a GPU is present, so --variant tiled runs instead of failing");
        return;
    }
    let dir = TempDir::new("nogpu");
    let good = dir.path("good.png");
    save_with_image_crate(&Image::random(6, 6, 1, DType::U8, 1).unwrap(), &good);
    let out = dir.path("out.png");
    assert_fails(
        &["-i", s(&good), "-o", s(&out), "--variant", "tiled"],
        "--variant tiled needs a usable GPU",
        &out,
    );
    // Without --variant, or with the default auto given, the CPU takes over with a one-line notice
    // (tests/usage.rs checks both).
    let (_, err) = run_ok(&["-i", s(&good), "-o", s(&out)]);
    assert!(err.starts_with("note: no usable GPU"), "{err}");
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
}
