//! Host calls: a batch of numpy images at raw addresses, run on one plan or spread over the
//! plans of several GPUs (`ferroconv::plan::spread::run_batch`).

use ferroconv::Error;
use ferroconv::model::image::DType;
use ferroconv::plan::{Filter2D, ImageView, ImageViewMut, Pixel, spread};

/// A host call's images: addresses, strides in samples, and shape.
pub(crate) struct Host {
    pub(crate) src: usize,
    pub(crate) src_stride: usize,
    pub(crate) dst: usize,
    pub(crate) dst_stride: usize,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) channels: usize,
    pub(crate) images: usize,
}

impl Host {
    /// Runs `plans` (one, or several to spread the batch over) on the images, of sample type `d`.
    pub(crate) fn run_any(&self, d: DType, plans: &mut [Filter2D]) -> Result<(), Error> {
        match d {
            DType::U8 => self.run::<u8>(plans),
            DType::U16 => self.run::<u16>(plans),
            DType::F32 => self.run::<f32>(plans),
            DType::F16 => self.run::<half::f16>(plans),
            DType::BF16 => self.run::<half::bf16>(plans),
        }
    }

    fn run<T: Pixel>(&self, plans: &mut [Filter2D]) -> Result<(), Error> {
        let Some(first) = plans.first() else {
            return Err(Error::InvalidRequest("a plan of no devices".into()));
        };
        let (ow, oh) = first.output_size(self.width, self.height)?;
        let rows = |h: usize| self.images * h;
        let len = |h: usize, stride: usize, row: usize| (rows(h) - 1) * stride + row;
        let c = self.channels;
        if self.images == 0 || rows(self.height) == 0 {
            return Err(Error::InvalidRequest("an empty batch".into()));
        }
        let size = std::mem::size_of::<T>();
        let (src_end, dst_end) = (
            self.src + len(self.height, self.src_stride, self.width * c) * size,
            self.dst + len(oh, self.dst_stride, ow * c) * size,
        );
        if self.src < dst_end && self.dst < src_end {
            // The package computes such calls through a temporary; two slices over one memory
            // would be undefined behaviour.
            return Err(Error::InvalidRequest("the output overlaps the input".into()));
        }
        // SAFETY: the package passes the data addresses of live, aligned numpy arrays it holds
        // until the call returns: `src` holds `images × height` rows of `width × channels`
        // samples `src_stride` apart, `dst` (another array, writable) the result's rows at
        // `dst_stride`; nothing else writes them during the call.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(
                    self.src as *const T,
                    len(self.height, self.src_stride, self.width * c),
                ),
                std::slice::from_raw_parts_mut(self.dst as *mut T, len(oh, self.dst_stride, ow * c)),
            )
        };
        spread::run_batch(
            plans,
            self.images,
            &ImageView::with_stride(src, self.width, rows(self.height), c, self.src_stride)?,
            &mut ImageViewMut::with_stride(dst, ow, rows(oh), c, self.dst_stride)?,
        )
    }
}
