//! Property tests of the CPU paths over random sizes, filters, borders, channel counts and sample
//! types: the fast paths match the `f64` reference, the separable path matches it for rank-1
//! filters, strips match the whole image bit for bit, and `valid` is a crop of `zero`.

use ferroconv::model::image::Samples;
use ferroconv::{Border, DType, Filter, Image, engine::cpu, engine::strips};
use host_tools::verify::check;
use proptest::prelude::*;

/// One random problem: image, filter and border, always with a non-empty output.
#[derive(Debug)]
struct Case {
    image: Image,
    filter: Filter,
    border: Border,
    clamp: bool,
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

fn border() -> impl Strategy<Value = Border> {
    prop::sample::select(Border::CHECKED.to_vec())
}

/// Images up to 40x40 of 1, 3 or 4 channels of any type, odd filters up to 9 (general, or rank-1
/// when `rank1`), any border the image is large enough for.
fn case(rank1: bool) -> impl Strategy<Value = Case> {
    (
        1usize..=40,
        1usize..=40,
        prop::sample::select(vec![1usize, 3, 4]),
        dtype(),
        (0usize..=4).prop_map(|r| 2 * r + 1),
        border(),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_filter(
            "the valid border needs the filter to fit",
            |(w, h, _, _, k, b, _, _)| b.output_size(*w, *h, k / 2).is_ok(),
        )
        .prop_map(move |(w, h, ch, dt, k, border, seed, clamp)| {
            let image = Image::random(w, h, ch, dt, seed).expect("valid size");
            let filter = match (rank1, dt) {
                (true, _) => Filter::random_rank1(k, seed ^ 1),
                (false, DType::F32) => Filter::random(k, seed ^ 1),
                (false, _) => Filter::random_normalized(k, seed ^ 1),
            }
            .expect("valid filter size");
            Case {
                image,
                filter,
                // The constant in the image's own levels.
                border: match border {
                    Border::Constant(_) => Border::Constant(Border::checked_cval(dt)),
                    b => b,
                },
                clamp: clamp && dt == DType::F32,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fast_cpu_paths_match_the_reference(c in case(false)) {
        let expected = cpu::reference(&c.image, &c.filter, c.border).unwrap();
        let tol = check::tolerance(&c.image, &c.filter, None);
        let seq = cpu::sequential(&c.image, &c.filter, c.border, c.clamp).unwrap();
        let par = cpu::parallel(&c.image, &c.filter, c.border, c.clamp).unwrap();
        prop_assert_eq!(&seq, &par);
        for got in [seq, cpu::naive_sequential(&c.image, &c.filter, c.border, c.clamp).unwrap()] {
            let cmp = check::compare(&got, &expected, tol, c.clamp);
            prop_assert!(cmp.passed(), "{cmp}");
        }
    }

    #[test]
    fn fast_cpu_paths_take_two_passes_for_rank1_filters(c in case(true)) {
        let sep = cpu::separable_form(&c.filter);
        prop_assert_eq!(sep.is_some(), c.filter.size() > 1);
        let expected = cpu::reference(&c.image, &c.filter, c.border).unwrap();
        let tol = check::tolerance(&c.image, &c.filter, sep.as_ref());
        let seq = cpu::sequential(&c.image, &c.filter, c.border, c.clamp).unwrap();
        let par = cpu::parallel(&c.image, &c.filter, c.border, c.clamp).unwrap();
        prop_assert_eq!(&seq, &par);
        let cmp = check::compare(&seq, &expected, tol, c.clamp);
        prop_assert!(cmp.passed(), "{cmp}");
    }

    #[test]
    fn separable_path_matches_the_2d_reference_for_rank1_filters(c in case(true)) {
        let sep = c.filter.rank1().expect("random_rank1 is rank-1");
        let expected = cpu::reference(&c.image, &c.filter, c.border).unwrap();
        let tol = check::tolerance(&c.image, &c.filter, Some(&sep));
        let got = cpu::sequential(&c.image, &c.filter, c.border, c.clamp).unwrap();
        let cmp = check::compare(&got, &expected, tol, c.clamp);
        prop_assert!(cmp.passed(), "{cmp}");
    }

    #[test]
    fn strips_equal_the_whole_image_bit_for_bit(c in case(false), height in 1usize..=40) {
        let r = c.filter.radius();
        let (_, oh) = c.border.output_size(c.image.width(), c.image.height(), r).unwrap();
        let whole = cpu::sequential(&c.image, &c.filter, c.border, c.clamp).unwrap();
        let plan = strips::split(oh, oh.div_ceil(height.min(oh)), r, c.border);
        let striped = strips::run(&c.image, r, c.border, &plan, |s| {
            cpu::sequential(s, &c.filter, c.border, c.clamp)
        })
        .unwrap();
        prop_assert_eq!(striped, whole);
    }

    #[test]
    fn valid_output_is_the_crop_of_the_zero_output(c in case(false)) {
        let r = c.filter.radius();
        let (w, h, ch) = (c.image.width(), c.image.height(), c.image.channels());
        prop_assume!(w > 2 * r && h > 2 * r);
        let valid = cpu::sequential(&c.image, &c.filter, Border::Valid, c.clamp).unwrap();
        let zero = cpu::sequential(&c.image, &c.filter, Border::Zero, c.clamp).unwrap();
        let (vw, vh) = (w - 2 * r, h - 2 * r);
        prop_assert_eq!((valid.width(), valid.height()), (vw, vh));
        let size = zero.dtype().size();
        let (zb, vb) = (zero.samples().as_bytes(), valid.samples().as_bytes());
        for y in 0..vh {
            let from = ((y + r) * w + r) * ch * size;
            let crop = &zb[from..from + vw * ch * size];
            prop_assert_eq!(crop, &vb[y * vw * ch * size..(y + 1) * vw * ch * size], "row {}", y);
        }
    }
}

#[test]
fn a_rank1_box_filter_averages_a_constant_image_exactly() {
    let image = Image::new(5, 4, 1, Samples::U8(vec![200; 20])).unwrap();
    let filter = Filter::new(3, vec![1.0 / 9.0; 9]).unwrap();
    let got = cpu::sequential(&image, &filter, Border::Replicate, false).unwrap();
    assert_eq!(got.samples(), &Samples::U8(vec![200; 20]));
}
