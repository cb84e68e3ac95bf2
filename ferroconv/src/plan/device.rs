//! Images in device memory: [`DeviceImage`] (owned, allocated on one GPU), [`RawImage`] (a
//! caller's device pointer, for interop) and [`StreamRef`] (a CUDA stream the plan queues on
//! without owning it).

use super::view::{ImageView, ImageViewMut, Pixel};
use crate::engine::gpu::Gpu;
pub use crate::engine::gpu::StreamRef;
use crate::error::check;
use crate::model::image::{DType, for_dtype};
use crate::{Error, Result};
use cust::sys::CUstream;

/// An image in device memory that the caller owns: a device address, its row pitch, shape and
/// sample type (what DLPack and `__cuda_array_interface__` describe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawImage {
    /// Device address of the first sample: a multiple of the sample size (one that is not a
    /// multiple of 16 bytes runs through scratch, as a pitched image).
    pub ptr: u64,
    /// Bytes from one row to the next (at least `width · channels · size`; a multiple of the
    /// sample size).
    pub pitch: usize,
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Interleaved samples per pixel (1, 3 or 4).
    pub channels: usize,
    /// The sample type.
    pub dtype: DType,
    /// Images of this shape, one after another (`height · pitch` bytes apart): a batch, filtered
    /// in one launch where the variant allows. At least 1.
    pub images: usize,
}

impl RawImage {
    /// Bytes of one row without padding.
    pub fn row_bytes(&self) -> usize {
        self.width * self.channels * self.dtype.size()
    }

    /// Rows of every image together.
    pub fn rows(&self) -> usize {
        self.height * self.images
    }

    /// Whether rows follow each other without padding (the kernels' layout).
    pub fn is_packed(&self) -> bool {
        self.pitch == self.row_bytes()
    }

    /// Whether the two images share any byte of device memory (as `np.may_share_memory`: from
    /// each one's first sample to the end of its last row).
    pub fn overlaps(&self, other: &RawImage) -> bool {
        let end = |r: &RawImage| r.ptr + (r.rows().saturating_sub(1) * r.pitch + r.row_bytes()) as u64;
        self.ptr < end(other) && other.ptr < end(self)
    }

    /// Checks the description (not the memory, which only the caller can vouch for).
    pub(crate) fn check(&self) -> Result<()> {
        crate::model::image::check_dims(self.width, self.height)?;
        crate::model::image::check_channels(self.channels)?;
        if self.images == 0 {
            return Err(Error::Image("a batch of no images".into()));
        }
        if self.pitch < self.row_bytes() || !self.pitch.is_multiple_of(self.dtype.size()) {
            return Err(Error::Image(format!(
                "a row pitch of {} bytes does not fit rows of {} bytes of {} samples",
                self.pitch,
                self.row_bytes(),
                self.dtype.suffix()
            )));
        }
        if self.ptr == 0 || !self.ptr.is_multiple_of(self.dtype.size() as u64) {
            return Err(Error::Image(format!(
                "device address {:#x} is null or not aligned to its {} samples",
                self.ptr,
                self.dtype.suffix()
            )));
        }
        Ok(())
    }
}

/// A packed image in the device memory of one GPU, freed when dropped.
pub struct DeviceImage {
    gpu: Gpu,
    raw: RawImage,
}

impl DeviceImage {
    /// Allocates an uninitialized `width × height` image of `channels` samples of `dtype` on `gpu`.
    pub fn new(gpu: &Gpu, width: usize, height: usize, channels: usize, dtype: DType) -> Result<Self> {
        Self::new_batch(gpu, 1, width, height, channels, dtype)
    }

    /// Allocates a batch of `images` uninitialized images of one shape, one after another, which
    /// a plan filters in one launch where its variant allows. On the host side a batch is one
    /// view `images × height` rows tall.
    pub fn new_batch(
        gpu: &Gpu,
        images: usize,
        width: usize,
        height: usize,
        channels: usize,
        dtype: DType,
    ) -> Result<Self> {
        let mut raw = RawImage {
            ptr: 0,
            pitch: width * channels * dtype.size(),
            width,
            height,
            channels,
            dtype,
            images,
        };
        crate::model::image::check_dims(width, height)?;
        crate::model::image::check_channels(channels)?;
        if images == 0 {
            return Err(Error::Image("a batch of no images".into()));
        }
        let _current = gpu.enter()?;
        // SAFETY: cuMemAlloc writes the address of a fresh allocation of the size asked for.
        check("allocate a device image", unsafe {
            cust::sys::cuMemAlloc_v2(&mut raw.ptr, raw.pitch * raw.rows())
        })?;
        Ok(Self {
            gpu: gpu.clone(),
            raw,
        })
    }

    /// A device copy of a host image (waits for the copy).
    pub fn upload<T: Pixel>(gpu: &Gpu, image: &ImageView<'_, T>) -> Result<Self> {
        Self::upload_batch(gpu, 1, image)
    }

    /// A device copy of a batch of `images` host images stacked in one view (`images × height`
    /// rows; waits for the copy).
    pub fn upload_batch<T: Pixel>(gpu: &Gpu, images: usize, batch: &ImageView<'_, T>) -> Result<Self> {
        let l = batch.layout();
        if images == 0 || !l.height.is_multiple_of(images) {
            return Err(Error::Image(format!(
                "{} rows do not split into {images} images",
                l.height
            )));
        }
        let mut dev = Self::new_batch(gpu, images, l.width, l.height / images, l.channels, T::DTYPE)?;
        dev.copy_from(batch)?;
        Ok(dev)
    }

    /// Copies a host image of this shape into this one; returns when the image is on the device,
    /// so work queued next on any stream (non-blocking ones included) reads it.
    pub fn copy_from<T: Pixel>(&mut self, image: &ImageView<'_, T>) -> Result<()> {
        let _current = self.gpu.enter()?;
        // SAFETY: a synchronous copy (no stream) from the borrowed view.
        unsafe { self.queue_from(image, None) }?;
        // A synchronous copy from pageable memory may return before its last DMA has landed,
        // and a non-blocking stream does not wait for the legacy stream it ran on.
        // SAFETY: the null handle is the legacy default stream of the current context.
        check("wait for the copy to the GPU", unsafe {
            cust::sys::cuStreamSynchronize(std::ptr::null_mut())
        })
    }

    /// Queues a copy of a host image of this shape into this one on `stream` and returns: work
    /// queued after it on `stream` (a plan's [`run_device`](crate::Filter2D::run_device)) reads
    /// the new image. From page-locked host memory (`cuMemHostAlloc`, a torch tensor's
    /// `pin_memory()`) the copy runs beside other streams' work and the call returns at once;
    /// from pageable memory the driver stages the bytes and may return only once it has read
    /// them.
    ///
    /// # Safety
    /// `stream` is a stream of this image's GPU (as [`StreamRef::from_raw`] says), and the
    /// memory `image` views stays alive and unchanged, and this image alive, until `stream` has
    /// passed the copy ([`StreamRef::synchronize`], or an event recorded after it).
    pub unsafe fn copy_from_async<T: Pixel>(
        &mut self,
        image: &ImageView<'_, T>,
        stream: StreamRef,
    ) -> Result<()> {
        let _current = self.gpu.enter()?;
        // SAFETY: the caller keeps the source and this image alive until the stream passes the copy.
        unsafe { self.queue_from(image, Some(stream.as_raw())) }
    }

    /// Copies this image into a host image of its shape (waits for the copy).
    pub fn copy_to<T: Pixel>(&self, image: &mut ImageViewMut<'_, T>) -> Result<()> {
        let _current = self.gpu.enter()?;
        // SAFETY: a synchronous copy (no stream) into the mutably borrowed view.
        unsafe { self.queue_to(image, None) }
    }

    /// Queues a copy of this image into a host image of its shape on `stream` and returns: the
    /// host image holds the result once `stream` has passed the copy. Into page-locked host
    /// memory the copy runs beside other streams' work.
    ///
    /// # Safety
    /// As [`copy_from_async`](Self::copy_from_async): `stream` is a stream of this image's GPU,
    /// and the memory `image` views stays alive and is neither read nor written, and this image
    /// stays alive, until `stream` has passed the copy.
    pub unsafe fn copy_to_async<T: Pixel>(
        &self,
        image: &mut ImageViewMut<'_, T>,
        stream: StreamRef,
    ) -> Result<()> {
        let _current = self.gpu.enter()?;
        // SAFETY: the caller keeps the target and this image alive until the stream passes the copy.
        unsafe { self.queue_to(image, Some(stream.as_raw())) }
    }

    /// Copies `image` into this one, on `stream` or synchronously where it is `None`, this GPU's
    /// context current.
    ///
    /// # Safety
    /// With a stream: the source stays alive and unchanged until the stream has passed the copy.
    unsafe fn queue_from<T: Pixel>(
        &mut self,
        image: &ImageView<'_, T>,
        stream: Option<CUstream>,
    ) -> Result<()> {
        self.check_host(image.layout(), T::DTYPE)?;
        if let Some(samples) = image.packed() {
            let (src, bytes) = (samples.as_ptr().cast(), size_of_val(samples));
            // SAFETY: the source is the borrowed slice, of exactly this allocation's size; the
            // caller keeps it alive until a queued copy has finished.
            return check("copy an image to the GPU", unsafe {
                match stream {
                    Some(s) => cust::sys::cuMemcpyHtoDAsync_v2(self.raw.ptr, src, bytes, s),
                    None => cust::sys::cuMemcpyHtoD_v2(self.raw.ptr, src, bytes),
                }
            });
        }
        // SAFETY: the source rows are `stride` samples apart inside the borrowed slice (checked
        // when the view was made); the destination is this allocation, of the same shape; the
        // caller keeps the source alive until a queued copy has finished.
        unsafe {
            copy_2d(
                Place::Host(image.rows(0..image.layout().height).as_ptr().cast()),
                image.layout().stride * size_of::<T>(),
                Place::Device(self.raw.ptr),
                self.raw.pitch,
                self.raw.row_bytes(),
                self.raw.rows(),
                stream,
            )
        }
    }

    /// Copies this image into `image`, on `stream` or synchronously where it is `None`, this
    /// GPU's context current.
    ///
    /// # Safety
    /// With a stream: the target stays alive and untouched until the stream has passed the copy.
    unsafe fn queue_to<T: Pixel>(
        &self,
        image: &mut ImageViewMut<'_, T>,
        stream: Option<CUstream>,
    ) -> Result<()> {
        self.check_host(image.layout(), T::DTYPE)?;
        let stride = image.layout().stride * size_of::<T>();
        let height = image.layout().height;
        if let Some(samples) = image.packed_mut() {
            let (dst, bytes) = (samples.as_mut_ptr().cast(), size_of_val(samples));
            // SAFETY: as in `queue_from`, the other way; the destination is borrowed mutably.
            return check("copy an image from the GPU", unsafe {
                match stream {
                    Some(s) => cust::sys::cuMemcpyDtoHAsync_v2(dst, self.raw.ptr, bytes, s),
                    None => cust::sys::cuMemcpyDtoH_v2(dst, self.raw.ptr, bytes),
                }
            });
        }
        // SAFETY: as in `queue_from`, the other way; the destination is borrowed mutably.
        unsafe {
            copy_2d(
                Place::Device(self.raw.ptr),
                self.raw.pitch,
                Place::HostMut(image.rows_mut(0..height).as_mut_ptr().cast()),
                stride,
                self.raw.row_bytes(),
                self.raw.rows(),
                stream,
            )
        }
    }

    /// [`copy_from`](Self::copy_from) an owned image's samples.
    pub fn copy_from_image(&mut self, image: &crate::Image) -> Result<()> {
        for_dtype!(image.dtype(), T => self.copy_from::<T>(&image.view()?))
    }

    /// [`copy_to`](Self::copy_to) an owned image's samples.
    pub fn copy_to_image(&self, image: &mut crate::Image) -> Result<()> {
        for_dtype!(image.dtype(), T => self.copy_to::<T>(&mut image.view_mut()?))
    }

    fn check_host(&self, l: super::view::Layout, dtype: DType) -> Result<()> {
        let r = &self.raw;
        if (l.width, l.height, l.channels, dtype) != (r.width, r.rows(), r.channels, r.dtype) {
            return Err(Error::Mismatch(format!(
                "a {}x{}x{} {} host image and a {}x{}x{} {} device image",
                l.width,
                l.height,
                l.channels,
                dtype.suffix(),
                r.width,
                r.rows(),
                r.channels,
                r.dtype.suffix()
            )));
        }
        Ok(())
    }

    /// Its address, pitch and shape.
    pub fn raw(&self) -> RawImage {
        self.raw
    }

    /// The GPU it lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

impl Drop for DeviceImage {
    fn drop(&mut self) {
        if let Ok(_current) = self.gpu.enter() {
            // SAFETY: the allocation came from cuMemAlloc in `new` and is freed once; the driver
            // waits for queued work that uses it only for device-wide syncs, so callers keep the
            // image alive until their queued work has finished (as with any CUDA buffer).
            unsafe { cust::sys::cuMemFree_v2(self.raw.ptr) };
        }
    }
}

/// One side of a 2D copy.
pub(crate) enum Place {
    Host(*const std::ffi::c_void),
    HostMut(*mut std::ffi::c_void),
    Device(u64),
}

/// Copies `height` rows of `row_bytes` bytes from `src` (rows `src_pitch` apart) to `dst` (rows
/// `dst_pitch` apart): queued on `stream`, or synchronous when `stream` is `None`.
///
/// # Safety
/// Both sides must hold `height` rows at their pitch; host memory must stay valid (and, for an
/// asynchronous copy, unchanged) until the copy has finished; device memory must belong to the
/// current context.
pub(crate) unsafe fn copy_2d(
    src: Place,
    src_pitch: usize,
    dst: Place,
    dst_pitch: usize,
    row_bytes: usize,
    height: usize,
    stream: Option<CUstream>,
) -> Result<()> {
    use cust::sys::CUmemorytype_enum::{CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST};
    let (src_type, src_host, src_device) = match src {
        Place::Host(p) => (CU_MEMORYTYPE_HOST, p, 0),
        Place::HostMut(p) => (CU_MEMORYTYPE_HOST, p.cast_const(), 0),
        Place::Device(p) => (CU_MEMORYTYPE_DEVICE, std::ptr::null(), p),
    };
    let (dst_type, dst_host, dst_device) = match dst {
        Place::HostMut(p) => (CU_MEMORYTYPE_HOST, p, 0),
        Place::Host(_) => return Err(Error::Mismatch("a copy into read-only host memory".into())),
        Place::Device(p) => (CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), p),
    };
    let copy = cust::sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host,
        srcDevice: src_device,
        srcArray: std::ptr::null_mut(),
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: dst_device,
        dstArray: std::ptr::null_mut(),
        dstPitch: dst_pitch,
        WidthInBytes: row_bytes,
        Height: height,
    };
    // SAFETY: the caller's contract above; the descriptor lives until the call returns.
    let status = unsafe {
        match stream {
            Some(s) => cust::sys::cuMemcpy2DAsync_v2(&copy, s),
            None => cust::sys::cuMemcpy2D_v2(&copy),
        }
    };
    check("copy an image", status)
}
