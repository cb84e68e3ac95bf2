//! CPU tests: the reference on hand-checked cases (every border mode and filter definition), and
//! the timed CPU paths against the reference over a ladder of sizes, layouts and borders.

use ferroconv::engine::cpu::{self, Reference};
use ferroconv::model::filter::{FilterKind, check_size};
use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image};
use host_tools::verify::check::{self, compare};

fn gray(width: usize, height: usize, data: &[f32]) -> Image {
    Image::gray(width, height, data.to_vec()).unwrap()
}

/// A k×k filter whose only non-zero tap, 1, is at (row, col).
fn one_tap(k: usize, row: usize, col: usize) -> Filter {
    let mut taps = vec![0.0; k * k];
    taps[row * k + col] = 1.0;
    Filter::new(k, taps).unwrap()
}

fn builtin(kind: FilterKind, k: usize) -> Vec<f32> {
    Filter::builtin(kind, k, None).unwrap().taps().to_vec()
}

/// The worked example of the PMPP convolution slides: a 7×7 input, a 5×5 filter, and output
/// element (x=2, y=2), whose window lies fully inside the input, equal to 321.
#[test]
fn reference_matches_the_textbook_worked_example() {
    #[rustfmt::skip]
    let input = gray(7, 7, &[
        1., 2., 3., 4., 5., 6., 7.,
        2., 3., 4., 5., 6., 7., 8.,
        3., 4., 5., 6., 7., 8., 9.,
        4., 5., 6., 7., 8., 5., 6.,
        5., 6., 7., 8., 5., 6., 7.,
        6., 7., 8., 9., 0., 1., 2.,
        7., 8., 9., 0., 1., 2., 3.,
    ]);
    #[rustfmt::skip]
    let filter = Filter::new(5, vec![
        1., 2., 3., 2., 1.,
        2., 3., 4., 3., 2.,
        3., 4., 5., 4., 3.,
        2., 3., 4., 3., 2.,
        1., 2., 3., 2., 1.,
    ]).unwrap();
    let out = cpu::reference(&input, &filter, Border::Zero).unwrap();
    assert_eq!(out.values[2 * 7 + 2], 321.0);
}

#[test]
fn box_filter_uses_zero_ghost_cells() {
    let ones = gray(4, 3, &[1.0; 12]);
    let out = cpu::reference(
        &ones,
        &Filter::builtin(FilterKind::Box, 3, None).unwrap(),
        Border::Zero,
    )
    .unwrap();
    let ninths: Vec<f64> = out.values.iter().map(|v| (v * 9.0).round()).collect();
    #[rustfmt::skip]
    assert_eq!(ninths, [
        4., 6., 6., 4.,
        6., 9., 9., 6.,
        4., 6., 6., 4.,
    ]);
}

/// A filter whose only non-zero tap is the top-left one pins correlation (no flip):
/// out(y, x) = in(y - 1, x - 1); flipped, it becomes convolution: out(y, x) = in(y + 1, x + 1).
#[test]
fn correlation_is_not_flipped_and_flip_gives_convolution() {
    let input = gray(3, 2, &[1., 2., 3., 4., 5., 6.]);
    let f = one_tap(3, 0, 0);
    assert_eq!(
        cpu::reference(&input, &f, Border::Zero).unwrap().values,
        [0., 0., 0., 0., 1., 2.]
    );
    assert_eq!(
        cpu::reference(&input, &f.flipped(), Border::Zero).unwrap().values,
        [5., 6., 0., 0., 0., 0.]
    );
}

/// Each border mode on a row `1 2 3 4` with out(x) = in(x - 2) (a 5×5 filter whose one tap sits
/// two columns left of the centre), so the two leftmost outputs show the padding.
#[test]
fn border_modes_pad_as_documented() {
    let row = [1., 2., 3., 4.];
    let image = gray(4, 5, &row.repeat(5));
    let shift = one_tap(5, 2, 0);
    let middle_row = |border| {
        let out = cpu::reference(&image, &shift, border).unwrap();
        let w = out.width;
        out.values[(out.height / 2) * w..(out.height / 2 + 1) * w].to_vec()
    };
    assert_eq!(middle_row(Border::Zero), [0., 0., 1., 2.]);
    assert_eq!(middle_row(Border::Replicate), [1., 1., 1., 2.]);
    assert_eq!(middle_row(Border::Reflect), [3., 2., 1., 2.]);
    assert_eq!(middle_row(Border::Wrap), [3., 4., 1., 2.]);
    assert_eq!(middle_row(Border::Symmetric), [2., 1., 1., 2.]);
    assert_eq!(middle_row(Border::Constant(0.5)), [0.5, 0.5, 1., 2.]);
    // Valid: a 4×5 image and a 5×5 filter leave no output column; a 3×3 shift leaves 2×3.
    assert!(
        cpu::reference(&image, &shift, Border::Valid)
            .unwrap_err()
            .to_string()
            .contains("at least as large")
    );
    let out = cpu::reference(&image, &one_tap(3, 1, 0), Border::Valid).unwrap();
    assert_eq!((out.width, out.height), (2, 3));
    assert_eq!(out.values, [1., 2., 1., 2., 1., 2.]);
}

/// The constant border's value is in each sample type's own levels (OpenCV's `borderValue`):
/// 191 is 191 in an 8-bit image, `f32` as given; a value an integer type cannot hold is refused
/// by `check` (and, unchecked, taken to the nearest level); a constant that is not finite is
/// refused.
#[test]
fn the_constant_is_rounded_to_whole_levels_of_integer_types() {
    assert_eq!(Border::Constant(191.0).outside_sample(DType::U8), 191.0);
    assert_eq!(Border::Constant(49151.0).outside_sample(DType::U16), 49151.0);
    assert_eq!(Border::Constant(0.75).outside_sample(DType::F32), 0.75);
    assert_eq!(Border::Constant(191.0).outside(DType::U8), 191.0 / 255.0);
    assert!(Border::Constant(0.75).check(DType::U8).is_err());
    assert!(Border::Constant(-2.0).check(DType::U8).is_err());
    assert_eq!(Border::Constant(-2.0).outside_sample(DType::U8), 0.0);
    assert_eq!(Border::Constant(70000.0).outside_sample(DType::U16), 65535.0);
    assert_eq!(Border::Reflect.outside_sample(DType::F32), 0.0);
    assert!(Border::constant(f64::NAN).is_err());
    assert!(Border::constant(1e39).is_err());
    assert_eq!(Border::constant(-3.5).unwrap(), Border::Constant(-3.5));
}

#[test]
fn border_sources_far_outside_the_image() {
    assert_eq!(Border::Reflect.source(-5, 3), Some(1));
    assert_eq!(Border::Reflect.source(7, 3), Some(1));
    assert_eq!(Border::Reflect.source(-3, 1), Some(0));
    assert_eq!(Border::Wrap.source(-7, 3), Some(2));
    assert_eq!(Border::Replicate.source(-9, 3), Some(0));
    assert_eq!(Border::Replicate.source(9, 3), Some(2));
    assert_eq!(Border::Zero.source(3, 3), None);
    assert_eq!(Border::Constant(0.5).source(-1, 3), None);
    assert_eq!(Border::Symmetric.source(-1, 3), Some(0));
    assert_eq!(Border::Symmetric.source(-4, 3), Some(2));
    assert_eq!(Border::Symmetric.source(7, 3), Some(1));
    assert_eq!(Border::Symmetric.source(-3, 1), Some(0));
    assert_eq!(Border::Valid.output_size(9, 5, 2).unwrap(), (5, 1));
}

#[test]
fn builtin_filters_match_their_definitions() {
    assert!(builtin(FilterKind::Box, 3).iter().all(|&t| t == 1.0 / 9.0));
    assert_eq!(
        builtin(FilterKind::Sharpen, 3),
        [-1., -1., -1., -1., 9., -1., -1., -1., -1.]
    );
    assert_eq!(
        builtin(FilterKind::Edge, 3),
        [-1., -1., -1., -1., 8., -1., -1., -1., -1.]
    );
    assert_eq!(
        builtin(FilterKind::SobelX, 3),
        [-1., 0., 1., -2., 0., 2., -1., 0., 1.]
    );
    assert_eq!(
        builtin(FilterKind::SobelY, 3),
        [-1., -2., -1., 0., 0., 0., 1., 2., 1.]
    );
    assert_eq!(
        builtin(FilterKind::Emboss, 3),
        [-2., -1., 0., -1., 1., 1., 0., 1., 2.]
    );
    assert_eq!(
        builtin(FilterKind::Identity, 3),
        [0., 0., 0., 0., 1., 0., 0., 0., 0.]
    );
    let sobel5 = builtin(FilterKind::SobelX, 5);
    assert_eq!(&sobel5[..5], [-1., -2., 0., 2., 1.]);
    assert_eq!(&sobel5[10..15], [-6., -12., 0., 12., 6.]);
    assert_eq!(builtin(FilterKind::Sharpen, 5)[12], 25.0);
    let g = builtin(FilterKind::Gaussian, 5);
    assert!((g.iter().map(|&t| f64::from(t)).sum::<f64>() - 1.0).abs() < 1e-6);
    assert_eq!(g[0], g[24]);
    assert!(g[12] > g[11] && g[11] > g[10]);
    let sigma = Filter::builtin(FilterKind::Gaussian, 5, Some(10.0)).unwrap();
    assert!(sigma.taps()[0] > g[0], "a wider sigma spreads weight outwards");
    assert!(Filter::builtin(FilterKind::SobelX, 1, None).is_err());
    assert!(Filter::builtin(FilterKind::Gaussian, 3, Some(-1.0)).is_err());
}

#[test]
fn rank1_detection() {
    for kind in [
        FilterKind::Box,
        FilterKind::Gaussian,
        FilterKind::SobelX,
        FilterKind::SobelY,
        FilterKind::Identity,
    ] {
        let f = Filter::builtin(kind, 7, None).unwrap();
        let s = f.rank1().unwrap_or_else(|| panic!("{kind:?} is rank-1"));
        let largest = f.taps().iter().fold(0.0f64, |m, &t| m.max(f64::from(t.abs())));
        for (n, &t) in f.taps().iter().enumerate() {
            let product = f64::from(s.column[n / 7]) * f64::from(s.row[n % 7]);
            assert!(
                (product - f64::from(t)).abs() <= 1e-6 * largest,
                "{kind:?} tap {n}"
            );
        }
    }
    for kind in [FilterKind::Sharpen, FilterKind::Edge, FilterKind::Emboss] {
        assert!(
            Filter::builtin(kind, 5, None).unwrap().rank1().is_none(),
            "{kind:?}"
        );
    }
    assert!(Filter::random(5, 1).unwrap().rank1().is_none());
    assert!(Filter::random_rank1(5, 1).unwrap().rank1().is_some());
}

#[test]
fn filter_files_parse_with_comments_and_reject_bad_input() {
    let f = Filter::parse("# a 3x3 blur\n1 2 1\n2 4 2  # centre row\n\n1 2 1\n").unwrap();
    assert_eq!(f.taps(), [1., 2., 1., 2., 4., 2., 1., 2., 1.]);
    // A column of 40 (rank 1, past 31): centred on row 20, in a 41 × 41 square.
    let tall = Filter::parse(&"1\n".repeat(40)).unwrap();
    assert_eq!((tall.shape(), tall.size()), ((40, 1), 41));
    // The fuzzer's first such file (fuzz/seeds/filter_file/tall-rank1.txt).
    let seed = include_str!("../../fuzz/seeds/filter_file/tall-rank1.txt");
    let f = Filter::parse(seed).unwrap();
    assert!(f.size() > 31 && f.rank1().is_some(), "{:?}", f.shape());
    for (text, needle) in [
        ("1 2 3\n4 5\n6 7 8\n", "line 2 has 2 numbers but line 1 has 3"),
        ("1 x 3\n1 2 3\n1 2 3\n", "line 1: 'x' is not a number"),
        ("1 NaN 3\n1 2 3\n1 2 3\n", "NaN is not a finite number"),
        ("1 inf 3\n1 2 3\n1 2 3\n", "inf is not a finite number"),
        (&"1 ".repeat(1024), "a 1x1024 filter is not supported"),
        ("# nothing\n\n", "no numbers"),
    ] {
        let e = Filter::parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}

/// One generic check over a ladder of sizes (tiny, odd, wider than a vector block, several bands),
/// channel counts, sample types, borders and filters (general, and rank-1 ones, which the fast
/// paths convolve in two passes): every CPU path agrees with the sequential f64 reference (and the
/// parallel reference equals it exactly), and the single-core and multi-threaded paths agree bit
/// for bit; for every sample type, the half floats too.
#[test]
fn cpu_paths_match_the_reference_over_a_ladder() {
    let sizes = [
        (1, 1),
        (1, 7),
        (7, 1),
        (7, 5),
        (16, 16),
        (31, 17),
        (100, 3),
        (70, 40),
    ];
    for (n, &(w, h)) in sizes.iter().enumerate() {
        for channels in [1, 3, 4] {
            for dtype in DType::EVERY {
                let image = Image::random(w, h, channels, dtype, (n * 10 + channels) as u64).unwrap();
                for k in [1, 3, 5, 31] {
                    let seed = (n * 40 + k) as u64;
                    let general = Filter::random_normalized(k, seed).unwrap();
                    let rank1 = Filter::random_rank1(k, seed).unwrap();
                    for filter in [general, rank1] {
                        check_every_border(&image, &filter);
                    }
                }
            }
        }
    }
}

fn check_every_border(image: &Image, filter: &Filter) {
    let (w, h, channels, dtype, k) = (
        image.width(),
        image.height(),
        image.channels(),
        image.dtype(),
        filter.size(),
    );
    let two_pass = cpu::separable_form(filter);
    assert_eq!(two_pass.is_some(), k > 1 && filter.rank1().is_some());
    for border in Border::checked(dtype) {
        let Ok(expected) = cpu::reference(image, filter, border) else {
            assert_eq!(border, Border::Valid);
            continue;
        };
        if w * h <= 500 {
            assert_eq!(cpu::reference_parallel(image, filter, border).unwrap(), expected);
        }
        let tol = check::tolerance(image, filter, two_pass.as_ref());
        let seq = cpu::sequential(image, filter, border, false).unwrap();
        let par = cpu::parallel(image, filter, border, false).unwrap();
        assert_eq!(seq, par, "{w}x{h} c={channels} {dtype:?} k={k} {border:?}");
        let mut paths = vec![
            ("sequential", seq, false),
            (
                "parallel",
                cpu::parallel(image, filter, border, true).unwrap(),
                true,
            ),
            (
                "naive",
                cpu::naive_sequential(image, filter, border, true).unwrap(),
                true,
            ),
        ];
        if let Some(sep) = &two_pass {
            let tol = check::tolerance(image, filter, Some(sep));
            let got = cpu::sequential(image, filter, border, false).unwrap();
            let c = compare(&got, &expected, tol, false);
            assert!(
                c.passed(),
                "separable {w}x{h} c={channels} {dtype:?} k={k} {border:?}: {c}"
            );
        }
        for (name, got, clamp) in paths.drain(..) {
            let c = compare(&got, &expected, tol, clamp);
            assert!(
                c.passed(),
                "{name} {w}x{h} c={channels} {dtype:?} k={k} {border:?} rank-1={}: {c}",
                two_pass.is_some()
            );
        }
    }
}

#[test]
fn integer_images_round_trip_and_alpha_is_copied() {
    let image = Image::random(9, 4, 4, DType::U8, 3).unwrap();
    let same = cpu::sequential(
        &image,
        &Filter::builtin(FilterKind::Identity, 3, None).unwrap(),
        Border::Zero,
        false,
    );
    assert_eq!(same.unwrap(), image, "identity on u8 is exact");
    let blurred = cpu::parallel(
        &image,
        &Filter::builtin(FilterKind::Box, 5, None).unwrap(),
        Border::Wrap,
        false,
    )
    .unwrap();
    let (Samples::U8(a), Samples::U8(b)) = (image.samples(), blurred.samples()) else {
        panic!("u8")
    };
    assert!(
        a.iter().skip(3).step_by(4).eq(b.iter().skip(3).step_by(4)),
        "alpha unchanged"
    );
    assert!(a.iter().step_by(4).ne(b.iter().step_by(4)), "colour filtered");
}

#[test]
fn compare_reports_position_and_catches_nan_and_rounding_errors() {
    let reference = |values: Vec<f64>| Reference {
        width: 3,
        height: 2,
        channels: 1,
        values,
    };
    let expected = reference(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let mut data = vec![0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
    assert!(compare(&gray(3, 2, &data), &expected, 1e-6, false).passed());
    data[4] = f32::NAN;
    let c = compare(&gray(3, 2, &data), &expected, 1e-6, false);
    assert_eq!(c.failures, 1);
    let m = c.first_failure.unwrap();
    assert_eq!((m.x, m.y, m.channel, m.expected), (1, 1, 0, 4.0));
    assert!(m.got.is_nan());
    data[4] = 4.1;
    let c = compare(&gray(3, 2, &data), &expected, 1e-3, false);
    assert!(
        c.to_string()
            .contains("(x=1, y=1, c=0): got 4.099999904632568, expected 4"),
        "{c}"
    );

    // u8: 100.5 levels sits on a rounding boundary, so 100 and 101 pass and 99 fails;
    // 100.2 levels must round to 100 exactly.
    let u8_image = |v: u8| Image::new(1, 1, 1, Samples::U8(vec![v])).unwrap();
    let one = |levels: f64| Reference {
        width: 1,
        height: 1,
        channels: 1,
        values: vec![levels / 255.0],
    };
    for (got, exact, ok) in [
        (100, 100.5, true),
        (101, 100.5, true),
        (99, 100.5, false),
        (100, 100.2, true),
        (101, 100.2, false),
    ] {
        assert_eq!(
            compare(&u8_image(got), &one(exact), 1e-6, false).passed(),
            ok,
            "{got} vs {exact}"
        );
    }
    // Integer outputs clamp: an exact value above 1 must give 255.
    assert!(compare(&u8_image(255), &one(300.0), 1e-6, false).passed());
}

#[test]
fn tolerance_grows_with_filter_size_and_weights() {
    let image = Image::random(8, 8, 1, DType::F32, 3).unwrap();
    let small = check::tolerance(&image, &Filter::random(3, 1).unwrap(), None);
    let large = check::tolerance(&image, &Filter::random(31, 1).unwrap(), None);
    assert!(small > 0.0 && large > small, "{small} {large}");
}

#[test]
fn bad_filters_and_images_are_rejected_with_a_reason() {
    for size in [0, 2, 4, 129] {
        let e = check_size(size).unwrap_err().to_string();
        assert!(e.contains(&format!("size {size} is not supported")), "{e}");
    }
    assert!(
        Filter::new(3, vec![1.0; 8])
            .unwrap_err()
            .to_string()
            .contains("needs 9 taps, got 8")
    );
    let mut taps = vec![0.0; 9];
    taps[4] = f32::NAN;
    assert!(
        Filter::new(3, taps)
            .unwrap_err()
            .to_string()
            .contains("not a finite number")
    );
    assert!(
        Image::random(0, 5, 1, DType::F32, 1)
            .unwrap_err()
            .to_string()
            .contains("has no pixels")
    );
    assert!(
        Image::random(1 << 20, 1 << 20, 1, DType::F32, 1)
            .unwrap_err()
            .to_string()
            .contains("too large")
    );
    assert!(
        Image::random(4, 4, 2, DType::F32, 1)
            .unwrap_err()
            .to_string()
            .contains("2 channels are not supported")
    );
}

#[test]
fn parallel_into_writes_the_same_bits_into_an_output_allocated_once() {
    let filters = [
        Filter::random(5, 3).unwrap(),
        Filter::builtin(FilterKind::Gaussian, 7, None).unwrap(),
    ];
    for (dtype, channels) in [(DType::F32, 1), (DType::U8, 3), (DType::U16, 4)] {
        let image = Image::random(67, 41, channels, dtype, 9).unwrap();
        for filter in &filters {
            for border in Border::checked(dtype) {
                let want = cpu::parallel(&image, filter, border, false).unwrap();
                // A stale result in the reused output must be overwritten everywhere.
                let mut out = cpu::parallel(
                    &Image::random(67, 41, channels, dtype, 10).unwrap(),
                    filter,
                    border,
                    false,
                )
                .unwrap();
                cpu::parallel_into(&image, filter, border, false, &mut out).unwrap();
                assert_eq!(out, want, "{dtype:?} c={channels} k={} {border:?}", filter.size());
            }
        }
    }
    let image = Image::random(20, 10, 1, DType::F32, 1).unwrap();
    let mut wrong = Image::random(20, 10, 1, DType::U8, 1).unwrap();
    let e = cpu::parallel_into(&image, &filters[0], Border::Zero, false, &mut wrong).unwrap_err();
    assert!(e.to_string().contains("the output is 20x10x1 u8"), "{e}");
}
