//! The `texture` kernel: input through a 2D texture object, filter in the constant bank.

/// The entry-point base name: `conv_texture_<type>`.
pub const ENTRY: &str = "conv_texture";

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::thread::block_idx_z,
    crate::device::{Sample, Texture, param_taps, per_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// The host binds the input to a one-channel texture whose rows are the image's interleaved sample
/// rows, with integer samples read as normalized floats (the texture unit divides by 255 or 65535).
/// For single-channel images with the zero or replicate border the texture unit's address mode
/// (border colour 0, clamp) handles pixels outside the image and the kernel gets
/// [`border::NONE`](crate::launch::border::NONE); otherwise the kernel resolves coordinates itself.
///
/// # Thread mapping
/// One thread per output sample, as for `naive`.
///
/// # Safety
/// `texture` is a live texture object over the whole input as described; `output` holds
/// `out_width · out_height · channels` samples; the taps are in `taps`; the grid's z is `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_texture<T: Sample>(texture: u64, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    let src = Texture {
        object: texture,
        channels: g.channels,
        channel: block_idx_z(),
    };
    // SAFETY: the caller guarantees the texture and the output size (see above).
    unsafe { per_sample(&g, &src, output, |t| taps.get(t)) }
}
