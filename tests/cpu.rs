//! CPU tests: the reference on hand-checked cases, and the timed CPU paths against the reference.

use conv::check::{self, compare};
use conv::filter::{FilterKind, check_size};
use conv::{Filter, Plane, cpu};

fn plane(width: usize, height: usize, data: &[f32]) -> Plane {
    Plane::new(width, height, data.to_vec()).unwrap()
}

/// The worked example of the PMPP convolution slides: a 7×7 input, a 5×5 filter, and output
/// element (x=2, y=2), whose window lies fully inside the input, equal to 321.
#[test]
fn reference_matches_the_textbook_worked_example() {
    #[rustfmt::skip]
    let input = plane(7, 7, &[
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
    let out = cpu::reference(&input, &filter);
    assert_eq!(out[2 * 7 + 2], 321.0);
}

#[test]
fn box_filter_uses_zero_ghost_cells() {
    let ones = plane(4, 3, &[1.0; 12]);
    let out = cpu::reference(&ones, &Filter::builtin(FilterKind::Box, 3).unwrap());
    let ninths: Vec<f64> = out.iter().map(|v| (v * 9.0).round()).collect();
    #[rustfmt::skip]
    assert_eq!(ninths, [
        4., 6., 6., 4.,
        6., 9., 9., 6.,
        4., 6., 6., 4.,
    ]);
}

/// A filter whose only non-zero tap is the top-left one pins correlation (no flip):
/// out(y, x) = in(y - 1, x - 1).
#[test]
fn correlation_is_not_flipped() {
    let input = plane(3, 2, &[1., 2., 3., 4., 5., 6.]);
    let mut taps = vec![0.0; 9];
    taps[0] = 1.0;
    let out = cpu::reference(&input, &Filter::new(3, taps).unwrap());
    assert_eq!(out, [0., 0., 0., 0., 1., 2.]);
}

#[test]
fn one_by_one_identity_returns_the_input() {
    let input = Plane::random(13, 5, 1).unwrap();
    let out = cpu::reference(&input, &Filter::new(1, vec![1.0]).unwrap());
    let back: Vec<f32> = out.iter().map(|&v| v as f32).collect();
    assert_eq!(back, input.data());
}

/// One generic check over a ladder of sizes and filter sizes: both f32 CPU paths and the
/// parallel reference agree with the sequential f64 reference.
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
        (257, 129),
    ];
    for (n, &(w, h)) in sizes.iter().enumerate() {
        let image = Plane::random(w, h, 100 + n as u64).unwrap();
        for k in [1, 3, 5, 9, 31] {
            let filter = Filter::random(k, 1000 + (n * 40 + k) as u64).unwrap();
            let expected = cpu::reference(&image, &filter);
            assert_eq!(
                cpu::reference_parallel(&image, &filter),
                expected,
                "{w}x{h} k={k}"
            );
            let tol = check::tolerance(&image, &filter);
            for (name, got) in [
                ("sequential", cpu::sequential(&image, &filter)),
                ("parallel", cpu::parallel(&image, &filter)),
            ] {
                let c = compare(&got, &expected, w, tol);
                assert!(c.passed(), "{name} {w}x{h} k={k}: {c}");
            }
        }
    }
}

#[test]
fn compare_reports_position_got_expected_and_catches_nan() {
    let expected = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let mut got = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
    assert!(compare(&got, &expected, 3, 1e-6).passed());
    got[4] = f32::NAN;
    let c = compare(&got, &expected, 3, 1e-6);
    assert_eq!(c.failures, 1);
    let m = c.first_failure.unwrap();
    assert_eq!((m.x, m.y, m.expected), (1, 1, 4.0));
    assert!(m.got.is_nan());
    got[4] = 4.1;
    let c = compare(&got, &expected, 3, 1e-3);
    assert!(!c.passed());
    assert!(c.to_string().contains("(x=1, y=1): got 4.1, expected 4"), "{c}");
}

#[test]
fn tolerance_grows_with_filter_size_and_weights() {
    let image = Plane::random(8, 8, 3).unwrap();
    let small = check::tolerance(&image, &Filter::random(3, 1).unwrap());
    let large = check::tolerance(&image, &Filter::random(31, 1).unwrap());
    assert!(small > 0.0 && large > small, "{small} {large}");
}

#[test]
fn bad_filters_and_images_are_rejected_with_a_reason() {
    for size in [0, 2, 4, 33] {
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
        Plane::random(0, 5, 1)
            .unwrap_err()
            .to_string()
            .contains("has no pixels")
    );
    assert!(
        Plane::random(1 << 20, 1 << 20, 1)
            .unwrap_err()
            .to_string()
            .contains("too large")
    );
}
