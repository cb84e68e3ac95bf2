//! Borrowed views of the caller's images: [`ImageView`] and [`ImageViewMut`] over `&[T]` and
//! `&mut [T]`, with a row stride, so a region of a larger image is filtered in place.

use crate::model::image::{Image, Samples};
use crate::{Error, Result};

mod sealed {
    /// The library's own sample types only; the CPU paths' conversions come with them.
    pub trait Sealed: crate::engine::cpu::Sample {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A sample type the library takes: `u8`, `u16`, `f32`, `half::f16` or `half::bf16` (its
/// run-time name is `T::DTYPE`; the half floats run on the CPU and on the GPU variants that have
/// kernels for them).
pub trait Pixel: sealed::Sealed + bytemuck::Pod {}

impl Pixel for u8 {}
impl Pixel for u16 {}
impl Pixel for f32 {}
impl Pixel for half::f16 {}
impl Pixel for half::bf16 {}

/// The shape of a view: `width × height` pixels of `channels` interleaved samples, rows
/// `stride` samples apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Interleaved samples per pixel (1 to 4).
    pub channels: usize,
    /// Samples from the start of one row to the start of the next (at least `width · channels`).
    pub stride: usize,
}

impl Layout {
    /// The layout, checked against a slice of `len` samples.
    fn checked(width: usize, height: usize, channels: usize, stride: usize, len: usize) -> Result<Self> {
        let layout = Layout {
            width,
            height,
            channels,
            stride,
        };
        layout.check(len)
    }

    /// Checks the layout against a slice of `len` samples.
    fn check(self, len: usize) -> Result<Self> {
        crate::model::image::check_dims(self.width, self.height)?;
        crate::model::image::check_channels(self.channels)?;
        let row = self.width * self.channels;
        if self.stride < row {
            return Err(Error::Image(format!(
                "a row stride of {} samples is shorter than a row ({} pixels x {} channels)",
                self.stride, self.width, self.channels
            )));
        }
        let needed = (self.height - 1) * self.stride + row;
        if len < needed {
            return Err(Error::Image(format!(
                "a {}x{}x{} view with a stride of {} needs {needed} samples, the slice has {len}",
                self.width, self.height, self.channels, self.stride
            )));
        }
        Ok(self)
    }

    /// Samples of one row (without the padding up to the stride).
    pub fn row_len(&self) -> usize {
        self.width * self.channels
    }

    /// The samples of rows `rows` (the last one without its padding).
    fn span(&self, rows: std::ops::Range<usize>) -> std::ops::Range<usize> {
        rows.start * self.stride..(rows.end - 1) * self.stride + self.row_len()
    }

    /// Whether rows follow each other without padding.
    pub fn is_packed(&self) -> bool {
        self.stride == self.row_len()
    }
}

/// A read-only view of an image in the caller's memory.
#[derive(Clone, Copy, Debug)]
pub struct ImageView<'a, T: Pixel> {
    data: &'a [T],
    layout: Layout,
}

/// A writable view of an image in the caller's memory (a convolution's output).
#[derive(Debug)]
pub struct ImageViewMut<'a, T: Pixel> {
    data: &'a mut [T],
    layout: Layout,
}

impl<'a, T: Pixel> ImageView<'a, T> {
    /// A packed `width × height` image of `channels` interleaved samples.
    pub fn new(data: &'a [T], width: usize, height: usize, channels: usize) -> Result<Self> {
        Self::with_stride(data, width, height, channels, width * channels)
    }

    /// An image whose rows start `stride` samples apart: a region of a larger image starts at
    /// its first sample and keeps the larger image's stride.
    pub fn with_stride(
        data: &'a [T],
        width: usize,
        height: usize,
        channels: usize,
        stride: usize,
    ) -> Result<Self> {
        let layout = Layout::checked(width, height, channels, stride, data.len())?;
        Ok(Self { data, layout })
    }

    /// Its shape.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Row `y`, without padding.
    pub fn row(&self, y: usize) -> &'a [T] {
        &self.data[y * self.layout.stride..][..self.layout.row_len()]
    }

    /// The samples when rows are packed.
    pub(crate) fn packed(&self) -> Option<&'a [T]> {
        let l = self.layout;
        l.is_packed().then(|| &self.data[..l.height * l.row_len()])
    }
}

impl<'a, T: Pixel> ImageViewMut<'a, T> {
    /// A packed `width × height` image of `channels` interleaved samples.
    pub fn new(data: &'a mut [T], width: usize, height: usize, channels: usize) -> Result<Self> {
        Self::with_stride(data, width, height, channels, width * channels)
    }

    /// An image whose rows start `stride` samples apart (see [`ImageView::with_stride`]).
    pub fn with_stride(
        data: &'a mut [T],
        width: usize,
        height: usize,
        channels: usize,
        stride: usize,
    ) -> Result<Self> {
        let layout = Layout::checked(width, height, channels, stride, data.len())?;
        Ok(Self { data, layout })
    }

    /// Its shape.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Row `y`, without padding, writable.
    pub fn row_mut(&mut self, y: usize) -> &mut [T] {
        let (stride, len) = (self.layout.stride, self.layout.row_len());
        &mut self.data[y * stride..][..len]
    }

    /// A read-only view of the same image.
    pub fn as_view(&self) -> ImageView<'_, T> {
        ImageView {
            data: self.data,
            layout: self.layout,
        }
    }

    /// The samples when rows are packed.
    pub(crate) fn packed_mut(&mut self) -> Option<&mut [T]> {
        let l = self.layout;
        l.is_packed().then(|| &mut self.data[..l.height * l.row_len()])
    }

    /// Rows `rows` as one slice of `rows.len() · stride` samples (the last row without its
    /// padding) and the layout's stride, for copies of a band of rows.
    pub(crate) fn rows_mut(&mut self, rows: std::ops::Range<usize>) -> &mut [T] {
        let span = self.layout.span(rows);
        &mut self.data[span]
    }
}

impl<T: Pixel> ImageView<'_, T> {
    /// Rows `rows` as one slice (see [`ImageViewMut::rows_mut`]).
    pub(crate) fn rows(&self, rows: std::ops::Range<usize>) -> &[T] {
        &self.data[self.layout.span(rows)]
    }

    /// Rows `rows` (not empty, inside the image) as an image of their own.
    pub(crate) fn band(&self, rows: std::ops::Range<usize>) -> ImageView<'_, T> {
        let layout = Layout {
            height: rows.len(),
            ..self.layout
        };
        ImageView {
            data: self.rows(rows),
            layout,
        }
    }
}

impl<'a, T: Pixel> ImageViewMut<'a, T> {
    /// The image cut above row `y` (0 < `y` < height) into two writable images of their own:
    /// rows `0..y` and rows `y..`.
    pub(crate) fn split_rows(self, y: usize) -> (ImageViewMut<'a, T>, ImageViewMut<'a, T>) {
        let l = self.layout;
        let (top, bottom) = self.data.split_at_mut(y * l.stride);
        let (top_l, bottom_l) = (
            Layout { height: y, ..l },
            Layout {
                height: l.height - y,
                ..l
            },
        );
        (
            ImageViewMut {
                data: top,
                layout: top_l,
            },
            ImageViewMut {
                data: bottom,
                layout: bottom_l,
            },
        )
    }
}

impl<T: Pixel> ImageViewMut<'_, T> {
    /// Rows `rows` (not empty, inside the image) as an image of their own.
    pub(crate) fn band_mut(&mut self, rows: std::ops::Range<usize>) -> ImageViewMut<'_, T> {
        let layout = Layout {
            height: rows.len(),
            ..self.layout
        };
        ImageViewMut {
            data: self.rows_mut(rows),
            layout,
        }
    }
}

/// The samples of an owned image as a slice of `T`, if `T` is its sample type.
fn samples<T: Pixel>(samples: &Samples) -> Result<&[T]> {
    let found = samples.dtype();
    if found != T::DTYPE {
        return Err(Error::Mismatch(format!(
            "the image holds {} samples, the view asks for {}",
            found.suffix(),
            T::DTYPE.suffix()
        )));
    }
    Ok(bytemuck::cast_slice(samples.as_bytes()))
}

impl Image {
    /// A view of this image's samples, which must be of type `T`.
    pub fn view<T: Pixel>(&self) -> Result<ImageView<'_, T>> {
        ImageView::new(
            samples(self.samples())?,
            self.width(),
            self.height(),
            self.channels(),
        )
    }

    /// A writable view of this image's samples, which must be of type `T`.
    pub fn view_mut<T: Pixel>(&mut self) -> Result<ImageViewMut<'_, T>> {
        samples::<T>(self.samples())?;
        let (w, h, c) = (self.width(), self.height(), self.channels());
        let data = bytemuck::cast_slice_mut(self.samples_mut().as_bytes_mut());
        ImageViewMut::new(data, w, h, c)
    }
}

/// Views of the `image` crate's buffers (cargo feature `imagebuffer`, on by default): gray, RGB
/// and RGBA buffers of `u8`, `u16` or `f32`, e.g. `ImageView::try_from(&rgb_image)`.
#[cfg(feature = "imagebuffer")]
mod image_buffers {
    use super::{ImageView, ImageViewMut, Pixel};
    use crate::Error;
    use image::{ImageBuffer, Pixel as BufferPixel};

    impl<'a, P> TryFrom<&'a ImageBuffer<P, Vec<P::Subpixel>>> for ImageView<'a, P::Subpixel>
    where
        P: BufferPixel,
        P::Subpixel: Pixel,
    {
        type Error = Error;

        fn try_from(buffer: &'a ImageBuffer<P, Vec<P::Subpixel>>) -> Result<Self, Error> {
            let (w, h) = buffer.dimensions();
            ImageView::new(
                buffer.as_raw(),
                w as usize,
                h as usize,
                usize::from(P::CHANNEL_COUNT),
            )
        }
    }

    impl<'a, P> TryFrom<&'a mut ImageBuffer<P, Vec<P::Subpixel>>> for ImageViewMut<'a, P::Subpixel>
    where
        P: BufferPixel,
        P::Subpixel: Pixel,
    {
        type Error = Error;

        fn try_from(buffer: &'a mut ImageBuffer<P, Vec<P::Subpixel>>) -> Result<Self, Error> {
            let (w, h) = buffer.dimensions();
            ImageViewMut::new(buffer, w as usize, h as usize, usize::from(P::CHANNEL_COUNT))
        }
    }

    #[cfg(test)]
    mod tests {
        use crate::plan::{Filter2D, ImageView, ImageViewMut};
        use crate::{Border, Filter};
        use image::{GrayAlphaImage, RgbImage};

        /// An `RgbImage` filtered into another through views equals the same samples filtered
        /// as a slice; a gray+alpha buffer (two channels) is refused with a message.
        #[test]
        fn image_buffers_are_views() {
            let src = RgbImage::from_fn(23, 17, |x, y| {
                image::Rgb([x as u8 * 9, y as u8 * 13, (x * y) as u8])
            });
            let mut out = RgbImage::new(23, 17);
            let filter = Filter::random(3, 5).unwrap();
            let mut plan = Filter2D::cpu(&filter, Border::Reflect);
            plan.run(
                &ImageView::try_from(&src).unwrap(),
                &mut ImageViewMut::try_from(&mut out).unwrap(),
            )
            .unwrap();
            let mut expected = vec![0u8; 23 * 17 * 3];
            plan.run(
                &ImageView::new(src.as_raw(), 23, 17, 3).unwrap(),
                &mut ImageViewMut::new(&mut expected, 23, 17, 3).unwrap(),
            )
            .unwrap();
            assert_eq!(out.as_raw(), &expected);
            assert!(ImageView::try_from(&GrayAlphaImage::new(4, 4)).is_err());
        }
    }
}
