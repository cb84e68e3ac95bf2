//! The `texture` variant's input: a pitched device copy of the image bound to a 2D texture object,
//! created through the raw driver API (cust has no wrapper for texture objects over pitched memory).

use crate::error::check;
use crate::model::image::{DType, Image};
use crate::{Border, Error, Result};
use cust::stream::Stream;
use cust::sys as raw;
use std::ffi::c_void;

/// Largest texel row of a pitched 2D texture on current GPUs (`maxTexture2DLinear`).
const MAX_TEXELS_PER_ROW: usize = 131_072;

/// A pitched copy of an image and the texture object reading it. One texel per sample, so a row
/// of `width · channels` texels; integer samples read as normalized floats.
pub(crate) struct TextureInput {
    memory: raw::CUdeviceptr,
    pitch: usize,
    row_bytes: usize,
    height: usize,
    object: raw::CUtexObject,
    /// Whether the texture unit's address mode implements the border (the kernel then leaves
    /// out-of-image coordinates alone).
    pub(crate) hardware_border: bool,
}

impl TextureInput {
    /// Allocates pitched memory for a `width × height × channels` image of `dtype` and creates a
    /// point-sampled texture object over it. For one channel with the zero or replicate border,
    /// the address mode (border colour 0, clamp) handles the border.
    pub(crate) fn new(
        width: usize,
        height: usize,
        channels: usize,
        dtype: DType,
        border: Border,
    ) -> Result<Self> {
        let texels = width * channels;
        if texels > MAX_TEXELS_PER_ROW {
            return Err(Error::Image(format!(
                "the texture variant reads rows of at most {MAX_TEXELS_PER_ROW} samples, this image has {texels}"
            )));
        }
        let row_bytes = texels * dtype.size();
        let mut memory: raw::CUdeviceptr = 0;
        let mut pitch = 0usize;
        // SAFETY: out-pointers to locals; the element size is 4, 8 or 16 as the call requires.
        check("allocate the texture\'s pitched memory", unsafe {
            raw::cuMemAllocPitch_v2(&mut memory, &mut pitch, row_bytes, height, 4)
        })?;
        let mut tex = Self {
            memory,
            pitch,
            row_bytes,
            height,
            object: 0,
            hardware_border: false,
        };

        let hardware = match (channels, border) {
            (1, Border::Zero) => Some(raw::CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER),
            (1, Border::Replicate) => Some(raw::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP),
            _ => None,
        };
        tex.hardware_border = hardware.is_some();
        let mode = hardware.unwrap_or(raw::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP);
        let format = match dtype {
            DType::U8 => raw::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
            DType::U16 => raw::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16,
            DType::F32 => raw::CUarray_format::CU_AD_FORMAT_FLOAT,
            DType::F16 | DType::BF16 => {
                return Err(Error::Unsupported(format!(
                    "the texture variant has no kernels for {} samples",
                    dtype.suffix()
                )));
            }
        };
        // The union starts all-zero (as C callers memset it), then gets its pitch2D member.
        let mut res = raw::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
            reserved: raw::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 { reserved: [0; 32] },
        };
        res.pitch2D = raw::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
            devPtr: memory,
            format,
            numChannels: 1,
            width: texels,
            height,
            pitchInBytes: pitch,
        };
        let resource = raw::CUDA_RESOURCE_DESC {
            resType: raw::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D,
            res,
            flags: 0,
        };
        let point = raw::CUfilter_mode::CU_TR_FILTER_MODE_POINT;
        let desc = raw::CUDA_TEXTURE_DESC {
            addressMode: [mode, mode, mode],
            filterMode: point,
            flags: 0,
            maxAnisotropy: 0,
            mipmapFilterMode: point,
            mipmapLevelBias: 0.0,
            minMipmapLevelClamp: 0.0,
            maxMipmapLevelClamp: 0.0,
            borderColor: [0.0; 4],
            reserved: [0; 12],
        };
        // flags 0: unnormalized coordinates, integer formats read as normalized floats.
        // SAFETY: the descriptors are fully initialized and describe memory we own.
        check("create the texture object", unsafe {
            raw::cuTexObjectCreate(&mut tex.object, &resource, &desc, std::ptr::null())
        })?;
        Ok(tex)
    }

    /// The handle the kernel receives.
    pub(crate) fn object(&self) -> u64 {
        self.object
    }

    /// Queues a copy of `image` into the pitched memory on `stream`.
    ///
    /// # Safety
    /// `image` must stay alive and unchanged until the copy has finished on `stream`.
    pub(crate) unsafe fn queue_upload(&self, image: &Image, stream: &Stream) -> Result<()> {
        let bytes = image.samples().as_bytes();
        if bytes.len() != self.row_bytes * self.height {
            return Err(Error::Mismatch(
                "the image does not match the texture's size".into(),
            ));
        }
        let copy = raw::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: raw::CUmemorytype::CU_MEMORYTYPE_HOST,
            srcHost: bytes.as_ptr().cast::<c_void>(),
            srcDevice: 0,
            srcArray: std::ptr::null_mut(),
            srcPitch: self.row_bytes,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: raw::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: self.memory,
            dstArray: std::ptr::null_mut(),
            dstPitch: self.pitch,
            WidthInBytes: self.row_bytes,
            Height: self.height,
        };
        // SAFETY: source and destination cover row_bytes × height (checked above and by
        // construction); the caller keeps the source alive until the copy completes.
        check("copy the image into the texture", unsafe {
            raw::cuMemcpy2DAsync_v2(&copy, stream.as_inner())
        })
    }
}

impl Drop for TextureInput {
    fn drop(&mut self) {
        // SAFETY: we own both handles; the object is destroyed before the memory it reads. Errors
        // cannot be reported from drop and leave nothing to clean up.
        unsafe {
            if self.object != 0 {
                raw::cuTexObjectDestroy(self.object);
            }
            raw::cuMemFree_v2(self.memory);
        }
    }
}
