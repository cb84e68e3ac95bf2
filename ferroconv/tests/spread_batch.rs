//! A batch spread over several plans (`plan::spread::run_batch`, as over several GPUs): whole
//! images dealt in runs, or each image in strips, give one plan's result bit for bit on the CPU
//! for every border, sample type and channel count; bad batches are clear errors.

use ferroconv::plan::{ImageView, ImageViewMut, Pixel, spread};
use ferroconv::{Border, Filter, Filter2D, Image};

/// One plan's result and the spread result of `images` random images of `w × h` stacked, on
/// `plans` CPU plans, compared bit for bit; the output poisoned first.
fn check<T: Pixel + PartialEq + std::fmt::Debug>(
    (w, h, ch): (usize, usize, usize),
    images: usize,
    plans: usize,
    filter: &Filter,
    border: Border,
) {
    let stacked = Image::random(w, h * images, ch, T::DTYPE, (w + h + images) as u64).unwrap();
    let src = stacked.view::<T>().unwrap();
    let (ow, oh) = filter.output_size(border, w, h).unwrap();
    let poison = bytemuck::cast_slice::<u8, T>(&[0xA5u8; 8])[0];
    let mut one = vec![poison; ow * oh * ch * images];
    Filter2D::cpu(filter, border)
        .run_batch(
            images,
            &src,
            &mut ImageViewMut::new(&mut one, ow, oh * images, ch).unwrap(),
        )
        .unwrap();
    let mut spread_out = vec![poison; one.len()];
    let mut workers: Vec<Filter2D> = (0..plans).map(|_| Filter2D::cpu(filter, border)).collect();
    let mut dst = ImageViewMut::new(&mut spread_out, ow, oh * images, ch).unwrap();
    spread::run_batch(&mut workers, images, &src, &mut dst).unwrap();
    assert!(
        one == spread_out,
        "{w}x{h}x{ch} {:?} x{images} over {plans} plans, {border:?}",
        T::DTYPE
    );
}

#[test]
fn a_spread_batch_is_one_plans_result_bit_for_bit() {
    let filter = Filter::random(7, 3).unwrap();
    let mut checked = 0;
    for border in Border::ALL {
        // One image in 2 and 3 strips, then runs of whole images (one plan idle with 2 of 3).
        for (images, plans) in [(1, 2), (1, 3), (2, 3), (3, 2), (5, 3), (1, 1)] {
            check::<f32>((53, 200, 1), images, plans, &filter, border);
            check::<u8>((40, 131, 3), images, plans, &filter, border);
            check::<u16>((17, 190, 4), images, plans, &filter, border);
            checked += 3;
        }
    }
    // Small images are not cut: fewer strips than plans.
    check::<f32>((9, 70, 1), 1, 4, &Filter::random(31, 1).unwrap(), Border::Wrap);
    assert_eq!(checked, 7 * 6 * 3);
}

#[test]
fn a_wide_filter_on_strips_of_a_wrapped_image_matches() {
    // A radius of 40 on strips of about 66 rows: the edge strips' halos wrap far.
    let filter = Filter::random(81, 4).unwrap();
    for border in [Border::Wrap, Border::Reflect, Border::Valid] {
        check::<f32>((90, 200, 1), 1, 3, &filter, border);
    }
}

#[test]
fn a_bad_batch_is_a_clear_error() {
    let filter = Filter::random(3, 1).unwrap();
    let src = vec![0.0f32; 10 * 21];
    let mut dst = vec![0.0f32; 10 * 21];
    let mut plans: Vec<Filter2D> = (0..2).map(|_| Filter2D::cpu(&filter, Border::Zero)).collect();
    let view = ImageView::new(&src, 10, 21, 1).unwrap();
    let e = spread::run_batch(
        &mut plans,
        2,
        &view,
        &mut ImageViewMut::new(&mut dst, 10, 21, 1).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("multiples of 2"), "{e}");
    let e = spread::run_batch(
        &mut [],
        1,
        &view,
        &mut ImageViewMut::new(&mut dst, 10, 21, 1).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no plans"), "{e}");
    let mut small = vec![0.0f32; 10 * 20];
    let e = spread::run_batch(
        &mut plans,
        1,
        &view,
        &mut ImageViewMut::new(&mut small, 10, 20, 1).unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("output"), "{e}");
}
