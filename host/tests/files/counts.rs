//! Results in sample counts (`--out-dtype f32|i16`, `--scale`, `--delta`): an 8-bit image's Sobel
//! derivative keeps its sign and its counts, as OpenCV's `CV_16S` does, written as a signed
//! 16-bit TIFF; `f32` counts are scaled and shifted; the errors for what cannot work.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{assert_fails, save_with_image_crate};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image, engine::cpu};

/// The correlation of `image`'s levels (not the 0-1 scale) with `taps` (`k × k`) under `border`,
/// in `f64`: the counts OpenCV computes.
fn counts(image: &Image, taps: &[f32], k: usize, border: Border) -> Vec<f64> {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let level = |i: usize| match image.samples() {
        Samples::U8(v) => f64::from(v[i]),
        Samples::U16(v) => f64::from(v[i]),
        Samples::F32(v) => f64::from(v[i]),
        Samples::F16(v) => f64::from(v[i]),
        Samples::BF16(v) => f64::from(v[i]),
    };
    let r = (k / 2) as isize;
    (0..w * h * ch)
        .map(|n| {
            let (y, x, c) = ((n / ch / w) as isize, (n / ch % w) as isize, n % ch);
            if ch == 4 && c == 3 {
                return level(n);
            }
            let mut acc = 0.0;
            for i in 0..k as isize {
                for j in 0..k as isize {
                    let (yy, xx) = (border.source(y + i - r, h), border.source(x + j - r, w));
                    if let (Some(yy), Some(xx)) = (yy, xx) {
                        acc += level((yy * w + xx) * ch + c) * f64::from(taps[(i * k as isize + j) as usize]);
                    }
                }
            }
            acc
        })
        .collect()
}

fn read_i16_tiff(path: &std::path::Path) -> (tiff::ColorType, Vec<i16>) {
    let mut d = tiff::decoder::Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
    let colour = d.colortype().unwrap();
    match d.read_image().unwrap() {
        tiff::decoder::DecodingResult::I16(v) => (colour, v),
        _ => panic!("{}: not 16-bit signed samples", path.display()),
    }
}

#[test]
fn sobel_of_8_bit_images_keeps_its_sign_as_signed_16_bit_tiff() {
    let dir = TempDir::new("counts-i16");
    for (channels, name) in [(1, "gray"), (4, "rgba")] {
        let image = Image::random(37, 23, channels, DType::U8, 5).unwrap();
        let input = dir.path(&format!("{name}.png"));
        save_with_image_crate(&image, &input);
        let out = dir.path(&format!("{name}.tif"));
        let args = [
            "--filter",
            "sobel-x",
            "--mask",
            "3",
            "--border",
            "reflect",
            "--out-dtype",
            "i16",
        ];
        run_ok(&[&["-i", s(&input), "-o", s(&out), "--quiet"][..], &args].concat());
        let (colour, got) = read_i16_tiff(&out);
        assert_eq!(
            colour,
            if channels == 1 {
                tiff::ColorType::Gray(16)
            } else {
                tiff::ColorType::RGBA(16)
            }
        );
        let taps = Filter::builtin(ferroconv::model::filter::FilterKind::SobelX, 3, None).unwrap();
        let want = counts(&image, taps.taps(), 3, Border::Reflect);
        // Integer taps on integer levels: every count is exact.
        let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
        assert_eq!(got, want, "{name}");
        assert!(
            got.iter().any(|&v| v < -200.0) && got.iter().any(|&v| v > 200.0),
            "{name}: both signs"
        );
    }
}

#[test]
fn f32_counts_are_scaled_and_shifted() {
    let dir = TempDir::new("counts-f32");
    let image = Image::random(29, 31, 3, DType::U16, 6).unwrap();
    let input = dir.path("in.png");
    save_with_image_crate(&image, &input);
    let out = dir.path("out.tif");
    let extra = [
        "--mask",
        "5",
        "--border",
        "replicate",
        "--out-dtype",
        "f32",
        "--scale",
        "0.5",
        "--delta",
        "-3",
    ];
    run_ok(&[&["-i", s(&input), "-o", s(&out), "--quiet"][..], &extra].concat());
    let got = files::read(&out, &RawLayout::default()).unwrap();
    let Samples::F32(got) = got.samples() else {
        panic!("not f32")
    };
    let box5 = vec![1.0 / 25.0; 25];
    let want = counts(&image, &box5, 5, Border::Replicate);
    let filter = Filter::new(5, box5).unwrap();
    // The library's f32 tolerance, in levels.
    let tol = host_tools::verify::check::tolerance(&image, &filter, None) * 65535.0 * 0.5 + 1e-3;
    for (n, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (f64::from(g) - (w * 0.5 - 3.0)).abs() <= tol,
            "sample {n}: {g} vs {}",
            w * 0.5 - 3.0
        );
    }
    assert_eq!(
        cpu::reference(&image, &filter, Border::Replicate)
            .unwrap()
            .values
            .len(),
        got.len()
    );
}

#[test]
fn what_counts_cannot_do_is_refused() {
    let dir = TempDir::new("counts-errors");
    let png = dir.path("in.png");
    save_with_image_crate(&Image::random(8, 8, 1, DType::U8, 1).unwrap(), &png);
    let out = dir.path("out.png");
    assert_fails(
        &["-i", s(&png), "-o", s(&out), "--out-dtype", "i16"],
        "--out-dtype i16 writes 16-bit signed TIFF",
        &out,
    );
    let float = dir.path("float.tif");
    run_ok(&["-i", s(&png), "-o", s(&float), "--dtype", "f32", "--quiet"]);
    let out = dir.path("out.tif");
    assert_fails(
        &["-i", s(&float), "-o", s(&out), "--out-dtype", "i16"],
        "has f32 samples",
        &out,
    );
    for args in [
        &["-i", s(&png), "-o", s(&out), "--scale", "2"][..],
        &["-i", s(&png), "-o", s(&out), "--out-dtype", "f32", "--clamp"],
        &["-i", s(&png), "-o", s(&out), "--out-dtype", "u8"],
        &["--out-dtype", "f32"],
    ] {
        let o = host(args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!out.exists());
    }
}

/// Integer taps on an 8-bit image give exact integer counts, as `cv2.filter2D(img, cv2.CV_32F,
/// k)` does: the samples are filtered as their levels, not scaled to 0-1 and back (which gave
/// 1.9999847 for 2). Every pixel, every border mode, `f32` and `i16`, with `--scale` and
/// `--delta` that keep the arithmetic exact.
#[test]
fn integer_taps_on_8_bit_images_give_exact_counts() {
    let dir = TempDir::new("counts-exact");
    let image = Image::random(41, 29, 3, DType::U8, 12).unwrap();
    let input = dir.path("in.png");
    save_with_image_crate(&image, &input);
    let laplacian = dir.path("laplacian.txt");
    std::fs::write(&laplacian, "0 1 0\n1 -4 1\n0 1 0\n").unwrap();
    let taps = [0.0, 1.0, 0.0, 1.0, -4.0, 1.0, 0.0, 1.0, 0.0];
    for border in [Border::Zero, Border::Replicate, Border::Reflect] {
        let want = counts(&image, &taps, 3, border);
        for (out_dtype, scale, delta) in [
            ("f32", 1.0, 0.0),
            ("f32", 0.5, 3.0),
            ("i16", 1.0, 0.0),
            ("i16", 2.0, -7.0),
        ] {
            let out = dir.path(&format!("{}-{out_dtype}-{scale}.tif", border.name()));
            let args = [
                "-i",
                s(&input),
                "-o",
                s(&out),
                "--filter-file",
                s(&laplacian),
                "--border",
                border.name(),
                "--out-dtype",
                out_dtype,
                "--scale",
                &scale.to_string(),
                "--delta",
                &delta.to_string(),
                "--quiet",
            ];
            run_ok(&args);
            let got: Vec<f64> = if out_dtype == "i16" {
                read_i16_tiff(&out).1.into_iter().map(f64::from).collect()
            } else {
                let got = files::read(&out, &RawLayout::default()).unwrap();
                let Samples::F32(v) = got.samples() else {
                    panic!("not f32")
                };
                v.iter().map(|&x| f64::from(x)).collect()
            };
            assert_eq!(got.len(), want.len());
            for (n, (&g, &w)) in got.iter().zip(&want).enumerate() {
                // Alpha-free RGB: every sample is filtered; the counts are whole numbers.
                let w = w * scale + delta;
                assert_eq!(g, w, "{border:?} {out_dtype} x{scale}+{delta}: sample {n}");
            }
        }
    }
}
