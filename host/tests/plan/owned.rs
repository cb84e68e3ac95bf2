//! Plans and device images own their GPU: a `Gpu` is a cheap clone of one opened device, so a
//! plan built from a handle the caller drops still runs, and another opening of the same device
//! shares its context.

use ferroconv::engine::cpu::reference_parallel;
use ferroconv::model::image::Samples;
use ferroconv::plan::{DeviceImage, Filter2D};
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
