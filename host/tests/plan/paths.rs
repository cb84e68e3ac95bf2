//! The poisoned outputs, and the ways a plan takes its images ([`Path`], [`run`]).

use crate::PAD;
use ferroconv::Image;
use ferroconv::model::image::Samples;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, Pixel, RawImage, StreamRef};

/// A sample that no convolution writes: the output is poisoned with it first.
pub trait Poison: Pixel {
    const POISON: Self;
    /// Bitwise equality with the poison (a NaN poison equals itself).
    fn is_poison(&self) -> bool {
        self.to_bits_eq(&Self::POISON)
    }
    /// Bitwise equality.
    fn to_bits_eq(&self, other: &Self) -> bool;
    fn samples(s: &Samples) -> &[Self];
    fn wrap(v: Vec<Self>) -> Samples;
}
impl Poison for u8 {
    const POISON: u8 = 0xAB;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self == other
    }
    fn samples(s: &Samples) -> &[u8] {
        let Samples::U8(v) = s else {
            unreachable!("u8 samples")
        };
        v
    }
    fn wrap(v: Vec<u8>) -> Samples {
        Samples::U8(v)
    }
}
impl Poison for u16 {
    const POISON: u16 = 0xABCD;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self == other
    }
    fn samples(s: &Samples) -> &[u16] {
        let Samples::U16(v) = s else {
            unreachable!("u16 samples")
        };
        v
    }
    fn wrap(v: Vec<u16>) -> Samples {
        Samples::U16(v)
    }
}
impl Poison for f32 {
    const POISON: f32 = f32::NAN;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
    fn samples(s: &Samples) -> &[f32] {
        let Samples::F32(v) = s else {
            unreachable!("f32 samples")
        };
        v
    }
    fn wrap(v: Vec<f32>) -> Samples {
        Samples::F32(v)
    }
}

/// How a case hands its images to the plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path {
    /// Packed host slices.
    Packed,
    /// Host rows `PAD` samples longer than the image, the image starting `PAD` samples in.
    Strided,
    /// Packed device images on the legacy default stream.
    Device,
    /// Pitched device memory through the raw entry, on the plan's GPU's own stream.
    RawPitched,
}

/// Filters `image` with `plan` along `path`; the result, and whether the padding stayed poisoned.
pub fn run<T: Poison>(plan: &mut Filter2D, image: &Image, path: Path) -> (Image, bool) {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let (ow, oh) = plan.output_size(w, h).unwrap();
    let src = T::samples(image.samples());
    let (row, orow) = (w * c, ow * c);
    let mut out = vec![T::POISON; ow * oh * c];
    let mut padding_kept = true;
    match path {
        Path::Packed => plan
            .run(
                &ImageView::new(src, w, h, c).unwrap(),
                &mut ImageViewMut::new(&mut out, ow, oh, c).unwrap(),
            )
            .unwrap(),
        Path::Strided => {
            let mut big = vec![T::POISON; PAD + h * (row + PAD)];
            for y in 0..h {
                big[PAD + y * (row + PAD)..][..row].copy_from_slice(&src[y * row..][..row]);
            }
            let mut big_out = vec![T::POISON; PAD + oh * (orow + PAD)];
            let view = ImageView::with_stride(&big[PAD..], w, h, c, row + PAD).unwrap();
            let mut out_view = ImageViewMut::with_stride(&mut big_out[PAD..], ow, oh, c, orow + PAD).unwrap();
            plan.run(&view, &mut out_view).unwrap();
            for y in 0..oh {
                out[y * orow..][..orow].copy_from_slice(&big_out[PAD + y * (orow + PAD)..][..orow]);
                let pad = &big_out[y * (orow + PAD)..][..PAD];
                padding_kept &= pad.iter().all(|p| p.is_poison());
            }
        }
        Path::Device => {
            let gpu = &plan.gpu().expect("a GPU plan").clone();
            let input = DeviceImage::upload(gpu, &ImageView::new(src, w, h, c).unwrap()).unwrap();
            let mut output = DeviceImage::upload(gpu, &ImageView::new(&out, ow, oh, c).unwrap()).unwrap();
            plan.run_device(&input, &mut output, StreamRef::LEGACY).unwrap();
            StreamRef::LEGACY.synchronize(gpu).unwrap();
            output
                .copy_to(&mut ImageViewMut::new(&mut out, ow, oh, c).unwrap())
                .unwrap();
        }
        Path::RawPitched => {
            let gpu = &plan.gpu().expect("a GPU plan").clone();
            // Device rows PAD samples longer than the image: one wide device image holds each.
            let mut staged = vec![T::POISON; h * (row + PAD)];
            for y in 0..h {
                staged[y * (row + PAD)..][..row].copy_from_slice(&src[y * row..][..row]);
            }
            // Pitched memory: a one-channel device image of `row + PAD` samples a row.
            let wide = |n: usize, rows: usize, data: &[T]| {
                DeviceImage::upload(gpu, &ImageView::new(data, n, rows, 1).unwrap()).unwrap()
            };
            let input = wide(row + PAD, h, &staged);
            let out_staged = vec![T::POISON; oh * (orow + PAD)];
            let output = wide(orow + PAD, oh, &out_staged);
            let raw = |d: &DeviceImage, w, h, extra| RawImage {
                pitch: (w * c + extra) * size_of::<T>(),
                width: w,
                height: h,
                channels: c,
                ..d.raw()
            };
            let stream = StreamRef::PER_THREAD;
            // SAFETY: both device images are live allocations of the plan's GPU holding `h`
            // (`oh`) rows at the given pitch, they do not overlap, and the stream is
            // synchronized before they are dropped.
            unsafe { plan.run_raw(raw(&input, w, h, PAD), raw(&output, ow, oh, PAD), stream) }.unwrap();
            stream.synchronize(gpu).unwrap();
            let mut back = vec![T::POISON; oh * (orow + PAD)];
            let n = orow + PAD;
            output
                .copy_to(&mut ImageViewMut::new(&mut back, n, oh, 1).unwrap())
                .unwrap();
            for y in 0..oh {
                out[y * orow..][..orow].copy_from_slice(&back[y * n..][..orow]);
                padding_kept &= back[y * n + orow..][..PAD].iter().all(|p| p.is_poison());
            }
        }
    }
    (Image::new(ow, oh, c, T::wrap(out)).unwrap(), padding_kept)
}
