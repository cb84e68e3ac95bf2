//! The `texture` kernel: input through a 2D texture object, filter in the constant bank.
//!
//! The host binds the input to a one-channel texture whose rows are the image's interleaved sample
//! rows, with integer samples read as normalized floats (the texture unit divides by 255 or 65535).
//! For single-channel images with the zero or replicate border the texture unit's address mode
//! (border colour 0, clamp) handles pixels outside the image and the kernel gets
//! [`border::NONE`](crate::launch::border::NONE); otherwise the kernel resolves coordinates itself.
//!
//! # Thread mapping
//! One thread per output sample, as for `naive`.
//!
//! # Safety
//! `texture` is a live texture object over the whole input as described; `output` holds
//! `out_width · out_height · channels` samples; the taps are in `taps`; the grid's z is `channels`.

use crate::device::{Texture, block_z, per_sample};
use crate::launch::{Geometry, Taps};

macro_rules! texture_entry {
    ($name:ident, $t:ty) => {
        /// The `texture` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(texture: u64, output: *mut $t, g: Geometry, _taps: Taps) {
            let taps = param_taps!($name, 3);
            let src = Texture {
                object: texture,
                channels: g.channels,
                channel: block_z(),
            };
            // SAFETY: the caller guarantees the texture and the output size (module documentation).
            unsafe { per_sample(&g, &src, output, |t| taps.get(t)) }
        }
    };
}

texture_entry!(conv_texture_u8, u8);
texture_entry!(conv_texture_u16, u16);
texture_entry!(conv_texture_f32, f32);
