//! `--border constant --cval V` in sample levels of the type filtered, as OpenCV's `borderValue`
//! and scipy's `cval`: the result is `cv2.copyMakeBorder(img, r, r, r, r, BORDER_CONSTANT,
//! value=V)`, then `filter2D`, then the crop, for 8-bit, 16-bit and `f32` images; a value the
//! type cannot hold is a usage error (exit 2) naming `--cval`, in the library an error.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::save_with_image_crate;
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::image::Samples;
use ferroconv::{Border, Convolver, DType, Filter, Filter2D, Image};
use host_tools::batch::inputs::Item;
use host_tools::batch::{self, Engine, Settings, Status};

/// OpenCV's definition, computed here: the image padded by the filter's reach with `cval` on
/// every side (`copyMakeBorder` with `BORDER_CONSTANT`), correlated with the `rows × cols` taps
/// in `f64` (`filter2D`, anchor at the centre), cropped back to the image; in levels.
fn opencv_constant(image: &Image, rows: usize, cols: usize, taps: &[f32], cval: f64) -> Vec<f64> {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let (ry, rx) = (rows / 2, cols / 2);
    let (pw, ph) = (w + 2 * rx, h + 2 * ry);
    let level = |i: usize| match image.samples() {
        Samples::U8(v) => f64::from(v[i]),
        Samples::U16(v) => f64::from(v[i]),
        Samples::F32(v) => f64::from(v[i]),
        Samples::F16(v) => f64::from(v[i]),
        Samples::BF16(v) => f64::from(v[i]),
    };
    let mut padded = vec![cval; pw * ph * ch];
    for y in 0..h {
        for x in 0..w {
            for c in 0..ch {
                padded[((y + ry) * pw + x + rx) * ch + c] = level((y * w + x) * ch + c);
            }
        }
    }
    let mut out = vec![0.0; w * h * ch];
    for y in 0..h {
        for x in 0..w {
            for c in 0..ch {
                let mut acc = 0.0;
                for i in 0..rows {
                    for j in 0..cols {
                        acc += padded[((y + i) * pw + x + j) * ch + c] * f64::from(taps[i * cols + j]);
                    }
                }
                out[(y * w + x) * ch + c] = acc;
            }
        }
    }
    out
}

/// Whether `got` is `want` (levels) as the CLI stores it: `f32` within `tol`; integers rounded
/// to the nearest level and saturated, or one level off where `want` lies within `tol` of a
/// rounding boundary.
fn stored_as(got: f64, want: f64, max: Option<f64>, tol: f64) -> bool {
    let Some(max) = max else {
        return (got - want).abs() <= tol;
    };
    let rounded = (want + 0.5).floor().clamp(0.0, max);
    got == rounded || ((got - rounded).abs() == 1.0 && ((want - want.floor()) - 0.5).abs() <= tol)
}

/// A random normalized `rows × cols` filter as a filter file's text, its taps as `f32`.
fn filter_file(rows: usize, cols: usize, seed: u64) -> (String, Vec<f32>) {
    let square = Filter::random_normalized(rows.max(cols), seed).unwrap();
    let k = square.size();
    let mut taps = Vec::new();
    let mut text = String::new();
    for i in 0..rows {
        let row: Vec<f32> = square.taps()[i * k..][..cols].to_vec();
        text += &row.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" ");
        text.push('\n');
        taps.extend(row);
    }
    (text, taps)
}

/// Writes a gray `f32` image as a 32-bit float TIFF with the `tiff` crate (not the code under test).
fn save_f32_tiff(image: &Image, path: &std::path::Path) {
    use tiff::encoder::{TiffEncoder, colortype::Gray32Float};
    let Samples::F32(v) = image.samples() else {
        panic!("not f32")
    };
    let mut enc = TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
    enc.write_image::<Gray32Float>(image.width() as u32, image.height() as u32, v)
        .unwrap();
}

#[test]
fn constant_border_is_opencvs_copy_make_border_in_levels() {
    let dir = TempDir::new("cval-opencv");
    let (rows, cols) = (5, 7);
    let (text, taps) = filter_file(rows, cols, 3);
    let filter_path = dir.path("f.txt");
    std::fs::write(&filter_path, text).unwrap();
    // (image, extension, constants in its levels): 128 of an 8-bit image, a
    // 16-bit constant past 255, an f32 constant below 0 and one past 1.
    let cases = [
        (
            Image::random(23, 17, 3, DType::U8, 1).unwrap(),
            "png",
            vec![128.0, 0.0, 255.0],
        ),
        (
            Image::random(19, 21, 1, DType::U16, 2).unwrap(),
            "png",
            vec![40000.0, 65535.0],
        ),
        (
            Image::random(17, 13, 1, DType::F32, 3).unwrap(),
            "tif",
            vec![-0.25, 1.5],
        ),
    ];
    for (image, ext, cvals) in cases {
        let dtype = image.dtype();
        let input = dir.path(&format!("in-{}.{ext}", dtype.suffix()));
        match dtype {
            DType::F32 => save_f32_tiff(&image, &input),
            _ => save_with_image_crate(&image, &input),
        }
        let sum: f64 = taps.iter().map(|&t| f64::from(t).abs()).sum();
        let top = dtype.levels().unwrap_or(1.0).max(1.5);
        let tol = 2.0 * (rows * cols) as f64 * f64::from(f32::EPSILON) * sum * top + 1e-6;
        // The CPU, and `auto` (the GPU where there is one; else the CPU again).
        let runs = cvals.iter().flat_map(|&c| ["cpu", "auto"].map(|v| (c, v)));
        for (cval, variant) in runs {
            let out = dir.path(&format!("out-{}-{cval}-{variant}.{ext}", dtype.suffix()));
            let args = [
                "-i",
                s(&input),
                "-o",
                s(&out),
                "--filter-file",
                s(&filter_path),
                "--border",
                "constant",
                &format!("--cval={cval}"),
                "--variant",
                variant,
                "--quiet",
            ];
            run_ok(&args);
            let got = files::read(&out, &RawLayout::default()).unwrap();
            assert_eq!(got.dtype(), dtype);
            let want = opencv_constant(&image, rows, cols, &taps, cval);
            let level = |i: usize| match got.samples() {
                Samples::U8(v) => f64::from(v[i]),
                Samples::U16(v) => f64::from(v[i]),
                Samples::F32(v) => f64::from(v[i]),
                Samples::F16(v) => f64::from(v[i]),
                Samples::BF16(v) => f64::from(v[i]),
            };
            for (n, &w) in want.iter().enumerate() {
                assert!(
                    stored_as(level(n), w, dtype.levels(), tol),
                    "{dtype:?} cval {cval} --variant {variant}: sample {n} is {}, OpenCV's {w}",
                    level(n)
                );
            }
        }
    }
}

/// What an integer type cannot hold is one `error:` line naming `--cval`, exit 2, and no result;
/// the same value on a type that holds it runs.
#[test]
fn a_cval_the_type_cannot_hold_is_a_usage_error() {
    let dir = TempDir::new("cval-errors");
    let png8 = dir.path("in8.png");
    save_with_image_crate(&Image::random(9, 7, 1, DType::U8, 1).unwrap(), &png8);
    let png16 = dir.path("in16.png");
    save_with_image_crate(&Image::random(9, 7, 1, DType::U16, 1).unwrap(), &png16);
    let float = dir.path("float.tif");
    save_f32_tiff(&Image::random(9, 7, 1, DType::F32, 1).unwrap(), &float);
    let out = dir.path("out.tif");
    let usage_error = |args: &[&str]| {
        let o = host(args);
        let (stdout, err) = text(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}\nstdout: {stdout}\nstderr: {err}"
        );
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains("--cval"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}");
        lines[0].to_string()
    };
    for (input, cval, needle) in [
        (&png8, "-3", "0 to 255"),
        (&png8, "256", "0 to 255"),
        (&png8, "127.5", "0 to 255"),
        (&png16, "65536", "0 to 65535"),
        (&png16, "-1", "0 to 65535"),
    ] {
        let args = [
            "-i",
            s(input),
            "-o",
            s(&out),
            "--border",
            "constant",
            &format!("--cval={cval}"),
        ];
        let line = usage_error(&args);
        assert!(line.contains(needle), "{line}");
    }
    for cval in ["nan", "inf", "-inf"] {
        usage_error(&[
            "-i",
            s(&png8),
            "-o",
            s(&out),
            "--border",
            "constant",
            &format!("--cval={cval}"),
        ]);
    }
    // --dtype decides the type filtered, so its levels.
    usage_error(&[
        "-i",
        s(&png16),
        "-o",
        s(&out),
        "--dtype",
        "u8",
        "--border",
        "constant",
        "--cval",
        "300",
    ]);
    // The main job's random image, of --dtype.
    usage_error(&[
        "--size",
        "16",
        "--dtype",
        "u8",
        "--border",
        "constant",
        "--cval",
        "0.5",
        "--cpu-only",
    ]);
    usage_error(&[
        "--size",
        "16",
        "--dtype",
        "u16",
        "--border",
        "constant",
        "--cval=-2",
        "--cpu-only",
    ]);
    // Values the type holds run: 300 of a 16-bit image, -3 of an f32 one.
    for (input, cval) in [(&png16, "300"), (&float, "-3"), (&png8, "255")] {
        let args = [
            "-i",
            s(input),
            "-o",
            s(&out),
            "--border",
            "constant",
            &format!("--cval={cval}"),
            "--force",
        ];
        run_ok(&args);
    }
    run_ok(&[
        "--size",
        "16",
        "--dtype",
        "u16",
        "--border",
        "constant",
        "--cval",
        "300",
        "--cpu-only",
        "--runs",
        "1",
        "--cpu-runs",
        "1",
    ]);
}

/// The library refuses a constant the image's type cannot hold, with an error, in a plan, in a
/// `Convolver` and in a batch (that image alone fails); an f32 image takes any finite constant.
#[test]
fn the_library_refuses_a_constant_the_type_cannot_hold() {
    let filter = Filter::new(3, vec![1.0 / 9.0; 9]).unwrap();
    let u8_image = Image::random(8, 6, 1, DType::U8, 1).unwrap();
    let f32_image = Image::random(8, 6, 1, DType::F32, 1).unwrap();
    for cval in [-3.0, 0.5, 256.0] {
        let border = Border::Constant(cval);
        let e = Filter2D::cpu(&filter, border).run_image(&u8_image).unwrap_err();
        assert!(e.to_string().contains("the border's constant"), "{e}");
        let e = Convolver::cpu().convolve(&u8_image, &filter, border).unwrap_err();
        assert!(e.to_string().contains("not a level of u8 samples"), "{e}");
        assert!(Filter2D::cpu(&filter, border).run_image(&f32_image).is_ok());
    }
    // A batch fails the image whose type cannot hold the constant, and writes the others.
    let dir = TempDir::new("cval-batch");
    let (png, tif) = (dir.path("in.png"), dir.path("in.tif"));
    save_with_image_crate(&u8_image, &png);
    save_f32_tiff(&f32_image, &tif);
    let items: Vec<Item> = [&png, &tif]
        .iter()
        .map(|p| Item {
            input: p.to_path_buf(),
            output: p.with_extension(format!("out.{}", p.extension().unwrap().to_str().unwrap())),
        })
        .collect();
    let settings = Settings::in_memory(filter.clone(), Border::Constant(-3.0));
    let progress = indicatif::ProgressBar::hidden();
    let outcomes = batch::run(
        &items,
        &settings,
        &mut [Engine::Cpu],
        1,
        &progress,
        false,
        &|_| {},
    );
    assert_eq!(outcomes[0].status, Status::Failed, "{outcomes:?}");
    let e = outcomes[0].error.as_deref().unwrap();
    assert!(e.contains("not a level of u8 samples"), "{e}");
    assert_eq!(outcomes[1].status, Status::Written, "{outcomes:?}");
    assert!(!items[0].output.exists() && items[1].output.exists());
    let out = Filter2D::cpu(&filter, Border::Constant(255.0))
        .run_image(&u8_image)
        .unwrap();
    let via = Convolver::cpu()
        .convolve(&u8_image, &filter, Border::Constant(255.0))
        .unwrap();
    assert_eq!(out, via);
    // 255 is the top level: a corner of a black image under it is 5/9 of 255, rounded.
    let black = Image::new(4, 4, 1, Samples::U8(vec![0; 16])).unwrap();
    let out = Convolver::cpu()
        .convolve(&black, &filter, Border::Constant(255.0))
        .unwrap();
    assert_eq!(out.samples(), &{
        let mut v = vec![0u8; 16];
        for (i, x) in v.iter_mut().enumerate() {
            let (y, x0) = (i / 4, i % 4);
            let outside = |p: usize| usize::from(p == 0 || p == 3);
            let n = 3 * (outside(y) + outside(x0)) - outside(y) * outside(x0);
            *x = (255.0 * n as f64 / 9.0 + 0.5) as u8;
        }
        Samples::U8(v)
    });
}
