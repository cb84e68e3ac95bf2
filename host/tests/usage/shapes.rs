//! Filters of any shape: rectangles, even sides and origins placed in their square as scipy
//! centres them, the CPU paths against a correlation written over the rectangle itself, and the
//! CLI's `--mask RxC`, `--origin` and rectangular filter files.

use super::fails_with;
use crate::common::run_ok;
use ferroconv::engine::cpu::{self, Reference, is_alpha};
use ferroconv::model::filter::FilterKind;
use ferroconv::{Border, DType, Filter, Image};
use host_tools::verify::check::{compare, tolerance};

/// scipy's `correlate` over the `rows × cols` taps as given, centred on tap `(cy, cx)`, in `f64`:
/// no square, no padding, so it checks where [`Filter`] places the rectangle.
fn rect_reference(
    image: &Image,
    rows: usize,
    cols: usize,
    taps: &[f32],
    (cy, cx): (usize, usize),
    border: Border,
) -> Reference {
    let (w, h, ch) = (image.width(), image.height(), image.channels());
    let values: Vec<f64> = (0..image.samples().len())
        .map(|i| image.samples().value(i))
        .collect();
    let outside = border.outside(image.dtype());
    let mut out = vec![0.0; w * h * ch];
    for (n, o) in out.iter_mut().enumerate() {
        let (y, x, c) = (n / (w * ch), n / ch % w, n % ch);
        if is_alpha(ch, c) {
            *o = values[n];
            continue;
        }
        for i in 0..rows {
            for j in 0..cols {
                let yy = border.source(y as isize + i as isize - cy as isize, h);
                let xx = border.source(x as isize + j as isize - cx as isize, w);
                let v = match (yy, xx) {
                    (Some(yy), Some(xx)) => values[(yy * w + xx) * ch + c],
                    _ => outside,
                };
                *o += v * f64::from(taps[i * cols + j]);
            }
        }
    }
    Reference {
        width: w,
        height: h,
        channels: ch,
        values: out,
    }
}

/// A 3×7 filter sits in rows 2-4 of its 7×7 square; an even side's centre is one past the
/// middle, an origin moves it (scipy's sign), and flipping moves an even side's centre back.
#[test]
fn rectangles_are_placed_in_their_square_as_scipy_centres_them() {
    let taps: Vec<f32> = (1..=21).map(|v| v as f32).collect();
    let f = Filter::rect(3, 7, taps.clone()).unwrap();
    assert_eq!(
        (f.size(), f.shape(), f.tap_count(), f.is_square()),
        (7, (3, 7), 21, false)
    );
    assert!(f.taps()[..14].iter().chain(&f.taps()[35..]).all(|&t| t == 0.0));
    assert_eq!(&f.taps()[14..21], &taps[..7]);
    assert_eq!(f.rect_taps(), taps);
    // 2×4, centred on tap (1, 2): it reaches 2 left, 1 right, 1 up, 0 down: a 5×5 square.
    let even = Filter::rect(2, 4, (1..=8).map(|v| v as f32).collect()).unwrap();
    assert_eq!(even.size(), 5);
    assert_eq!(&even.taps()[5..10], &[1.0, 2.0, 3.0, 4.0, 0.0]);
    assert_eq!(&even.taps()[10..15], &[5.0, 6.0, 7.0, 8.0, 0.0]);
    // Origin (0, 1): centre (1, 3), reaching 3 left: a 7×7 square.
    let moved = even.with_origin((0, 1)).unwrap();
    assert_eq!((moved.size(), moved.rect_taps()), (7, even.rect_taps()));
    assert_eq!(&moved.taps()[14..21], &[1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0]);
    // Flipped: the taps rotated, centre (0, 1), so it reaches 2 right, as scipy's convolve does.
    assert_eq!(&even.flipped().taps()[10..15], &[0.0, 8.0, 7.0, 6.0, 5.0]);
    assert_eq!(
        Filter::new(5, vec![1.0; 25]).unwrap(),
        Filter::rect(5, 5, vec![1.0; 25]).unwrap()
    );
    for (result, needle) in [
        (
            Filter::random((3, 128), 1),
            "reaches 64 taps from its centre: at most 63 (the 127x127 square) for a filter that is not rank-1",
        ),
        (
            Filter::rect(1, 1024, vec![1.0; 1024]),
            "a 1x1024 filter is not supported: each side from 1 to 127, or to 1023 for a rank-1",
        ),
        (Filter::rect(0, 3, vec![]), "a 0x3 filter is not supported"),
        (
            Filter::random((3, 126), 2).and_then(|f| f.with_origin((0, -63))),
            "centred on tap (1, 0) reaches 125 taps from its centre: at most 63",
        ),
        (
            Filter::rect(1, 1023, vec![1.0; 1023]).and_then(|f| f.with_origin((0, -511))),
            "reaches 1022 taps from its centre: at most 511",
        ),
        (
            Filter::rect(3, 3, vec![1.0; 9]).and_then(|f| f.with_origin((-2, 0))),
            "origin -2 down is outside",
        ),
        (
            Filter::rect(4, 4, vec![1.0; 16]).and_then(|f| f.with_origin((0, 2))),
            "from -2 to 1",
        ),
    ] {
        let e = result.unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
}

/// Every CPU path and the library's reference (which run the square) equal the rectangle's own
/// correlation, on thin, tall, even and off-centre filters, every border, gray and RGBA, `f32`
/// and `u8`, with tiny and odd images.
#[test]
fn cpu_paths_equal_the_rectangles_own_correlation() {
    let shapes = [
        (1, 15, (0, 0)),
        (15, 1, (0, 0)),
        (3, 7, (1, -2)),
        (4, 6, (0, 0)),
        (2, 31, (-1, 0)),
        (6, 5, (2, -1)),
    ];
    let borders = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Symmetric,
        Border::Wrap,
        Border::Constant(0.75),
    ];
    for (n, &(rows, cols, origin)) in shapes.iter().enumerate() {
        let taps: Vec<f32> = Filter::random(31, n as u64).unwrap().taps()[..rows * cols].to_vec();
        let f = Filter::rect(rows, cols, taps.clone())
            .unwrap()
            .with_origin(origin)
            .unwrap();
        let centre = ((rows / 2) as isize + origin.0, (cols / 2) as isize + origin.1);
        let centre = (centre.0 as usize, centre.1 as usize);
        for (w, h, ch, dtype) in [
            (37, 23, 1, DType::F32),
            (5, 3, 4, DType::U8),
            (64, 9, 3, DType::F32),
        ] {
            let image = Image::random(w, h, ch, dtype, n as u64 + 7).unwrap();
            // The constant in the image's own levels: three quarters of full scale.
            for border in borders.map(|b| match b {
                Border::Constant(_) => Border::Constant(Border::checked_cval(dtype)),
                b => b,
            }) {
                let want = rect_reference(&image, rows, cols, &taps, centre, border);
                let tol = tolerance(&image, &f, None);
                let library = cpu::reference(&image, &f, border).unwrap();
                let worst = want
                    .values
                    .iter()
                    .zip(&library.values)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(
                    worst < 1e-12,
                    "reference {rows}x{cols} {origin:?} {border:?}: {worst}"
                );
                let clamp = dtype != DType::F32;
                for (name, got) in [
                    ("naive", cpu::naive_sequential(&image, &f, border, clamp)),
                    ("sequential", cpu::sequential(&image, &f, border, clamp)),
                    ("parallel", cpu::parallel(&image, &f, border, clamp)),
                ] {
                    let c = compare(&got.unwrap(), &want, tol, clamp);
                    assert!(
                        c.passed(),
                        "{name} {rows}x{cols} {origin:?} {w}x{h}x{ch} {dtype:?} {border:?}: {c:?}"
                    );
                }
            }
        }
    }
    let rect = Filter::rect(3, 5, vec![1.0; 15]).unwrap();
    let image = Image::random(9, 9, 1, DType::F32, 1).unwrap();
    let e = cpu::sequential(&image, &rect, Border::Valid, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the valid border takes square filters of odd side; this one is 3x5"),
        "{e}"
    );
}

/// The built-in kinds on rectangles: the box any sides, the others odd; Sobel smooths across
/// its derivative.
#[test]
fn builtin_kinds_take_rectangles() {
    let b = Filter::builtin_rect(FilterKind::Box, (2, 3), None).unwrap();
    assert_eq!((b.shape(), b.rect_taps()), ((2, 3), vec![1.0 / 6.0; 6]));
    let s = Filter::builtin_rect(FilterKind::SobelX, (3, 5), None).unwrap();
    assert_eq!(
        s.rect_taps(),
        [-1., -2., 0., 2., 1., -2., -4., 0., 4., 2., -1., -2., 0., 2., 1.]
    );
    let e = Filter::builtin_rect(FilterKind::Sharpen, (3, 4), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("size 4 is not supported"), "{e}");
    let e = Filter::builtin_rect(FilterKind::SobelY, (1, 3), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sobel-y needs at least 3 taps along its derivative, got 1"),
        "{e}"
    );
}

/// The CLI: `--mask RxC`, `--origin`, a rectangular filter file; the valid border and bad
/// shapes are one-line errors.
#[test]
fn the_cli_takes_rectangles_and_origins() {
    let quick = ["--size", "40", "--cpu-only", "--runs", "1", "--cpu-runs", "1"];
    fn with<'a>(quick: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [quick, extra].concat()
    }
    let (out, _) = run_ok(&with(&quick, &["--mask", "3x7"]));
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("box filter 3x7 (run as 7x7), rank-1"),
        "{out}"
    );
    assert!(out.contains("PASS") && !out.contains("FAIL"), "{out}");
    let (out, _) = run_ok(&with(
        &quick,
        &[
            "--mask", "3x5", "--filter", "sobel-x", "--origin", "1,-1", "--flip",
        ],
    ));
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("sobel-x filter 3x5 (run as 7x7)"),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.txt");
    std::fs::write(&file, "1 2 3 4\n5 6 7 8\n").unwrap();
    let (out, _) = run_ok(&with(&quick, &["--filter-file", file.to_str().unwrap()]));
    assert!(
        out.contains("filter 2x4 (run as 5x5)") && out.contains("PASS"),
        "{out}"
    );
    fails_with(
        &with(&quick, &["--mask", "3x7", "--border", "valid"]),
        1,
        &["valid border takes square filters"],
    );
    fails_with(
        &with(&quick, &["--mask", "3x"]),
        2,
        &["'3x' is not a filter shape"],
    );
    fails_with(
        &with(&quick, &["--mask", "3x5", "--origin", "2,0"]),
        1,
        &["--origin", "origin 2 down is outside"],
    );
    fails_with(
        &with(&quick, &["--mask", "4x4", "--filter", "sharpen"]),
        1,
        &["size 4 is not supported"],
    );
}
