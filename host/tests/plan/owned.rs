//! Plans and device images own their GPU: a `Gpu` is a cheap clone of one opened device, so a
//! plan built from a handle the caller drops still runs, and another opening of the same device
//! shares its context. Device images' asynchronous copies queue on the caller's stream.

use ferroconv::engine::cpu::reference_parallel;
use ferroconv::model::image::Samples;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Filter, Gpu, Image};
use host_tools::verify::check::{compare, tolerance};

fn owned<T: Send + 'static>(_: &T) {}

/// A plan and its device images outlive the `Gpu` they were made from and give the reference's
/// result; clones and two openings of one device compare equal and share their images.
pub fn gpu_plans_and_images_own_their_gpu() {
    let (w, h, c) = (67, 45, 3);
    let image = Image::random(w, h, c, DType::F32, 5).unwrap();
    let filter = Filter::random(7, 5).unwrap();
    let expected = reference_parallel(&image, &filter, Border::Reflect).unwrap();
    let (mut plan, src, mut dst) = {
        let gpu = Gpu::open(0).expect("a GPU");
        let plan = Filter2D::new(&gpu, &filter, Border::Reflect).unwrap();
        assert!(plan.gpu() == Some(&gpu.clone()), "a clone is the same GPU");
        let mut src = DeviceImage::new(&gpu, w, h, c, DType::F32).unwrap();
        src.copy_from_image(&image).unwrap();
        let dst = DeviceImage::new(&gpu, w, h, c, DType::F32).unwrap();
        (plan, src, dst)
    };
    owned(&plan);
    owned(&src);
    let gpu = plan.gpu().expect("a GPU plan").clone();
    plan.run_device(&src, &mut dst, gpu.stream()).unwrap();
    gpu.sync().unwrap();
    let mut got = Image::new(w, h, c, Samples::F32(vec![f32::NAN; w * h * c])).unwrap();
    dst.copy_to_image(&mut got).unwrap();
    let result = compare(&got, &expected, tolerance(&image, &filter, None), false);
    assert!(result.passed(), "device run after the Gpu was dropped: {result}");

    // Another opening of the device shares its primary context: its images serve the plan.
    let other = Gpu::open(0).expect("a second opening");
    assert!(other == gpu, "two openings of one device share its context");
    let mut again = DeviceImage::new(&other, w, h, c, DType::F32).unwrap();
    plan.run_device(&src, &mut again, other.stream()).unwrap();
    other.sync().unwrap();
    let mut second = Image::new(w, h, c, Samples::F32(vec![f32::NAN; w * h * c])).unwrap();
    again.copy_to_image(&mut second).unwrap();
    assert!(second == got, "the second opening's output differs");
}

/// `copy_from_async` and `copy_to_async` queue on the caller's stream: an upload, a plan's run
/// and a download queued back to back on the GPU's non-blocking stream, then one wait, give the
/// bytes of the plan's host call, from packed host buffers and from regions of larger ones (rows
/// a stride apart: 2D copies), into outputs poisoned with NaN.
pub fn gpu_async_copies_queue_on_the_callers_stream() {
    let (w, h, c) = (67, 45, 3);
    let gpu = Gpu::open(0).expect("a GPU");
    let filter = Filter::random(5, 3).unwrap();
    let mut plan = Filter2D::new(&gpu, &filter, Border::Reflect).unwrap();
    let image = Image::random(w, h, c, DType::F32, 9).unwrap();
    let want = plan.run_image(&image).unwrap();
    let want = want.view::<f32>().unwrap();
    let row = w * c;
    let stride = row + 8;
    let mut wide = vec![f32::NAN; stride * h];
    for y in 0..h {
        wide[y * stride..y * stride + row].copy_from_slice(image.view::<f32>().unwrap().row(y));
    }
    let stream = gpu.stream();
    for strided in [false, true] {
        let src_view = if strided {
            ImageView::with_stride(&wide, w, h, c, stride).unwrap()
        } else {
            image.view::<f32>().unwrap()
        };
        let mut out = vec![f32::NAN; if strided { stride * h } else { row * h }];
        let mut src = DeviceImage::new(&gpu, w, h, c, DType::F32).unwrap();
        let mut dst = DeviceImage::new(&gpu, w, h, c, DType::F32).unwrap();
        {
            let mut out_view = if strided {
                ImageViewMut::with_stride(&mut out, w, h, c, stride).unwrap()
            } else {
                ImageViewMut::new(&mut out, w, h, c).unwrap()
            };
            // SAFETY: `stream` is this GPU's; the host buffers and device images outlive the
            // wait below, and nothing touches them before it.
            unsafe { src.copy_from_async(&src_view, stream) }.unwrap();
            plan.run_device(&src, &mut dst, stream).unwrap();
            // SAFETY: as above.
            unsafe { dst.copy_to_async(&mut out_view, stream) }.unwrap();
            stream.synchronize(&gpu).unwrap();
        }
        let step = if strided { stride } else { row };
        for y in 0..h {
            let got = &out[y * step..y * step + row];
            assert!(
                got.iter()
                    .zip(want.row(y))
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "strided {strided}: row {y} differs from the host call's"
            );
        }
    }
}
