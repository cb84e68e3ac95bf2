//! The `constant` kernel: filter in the constant bank, input from global memory.
//!
//! The taps arrive by value as a kernel parameter, which the GPU keeps in its constant bank: all
//! threads of a warp read the same tap at the same time, so each read is one cached broadcast and
//! global memory only serves the image.
//!
//! # Thread mapping
//! One thread per output sample, as for `naive`.
//!
//! # Safety
//! As for `naive`, with the `(2 · radius + 1)²` taps row-major in `taps` instead of a pointer.

use crate::device::{Global, per_sample};
use crate::launch::{Geometry, Taps};

macro_rules! constant_entry {
    ($name:ident, $t:ty) => {
        /// The `constant` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const $t, output: *mut $t, g: Geometry, _taps: Taps) {
            let taps = param_taps!($name, 3);
            // SAFETY: the caller guarantees the buffer sizes (module documentation).
            unsafe { per_sample(&g, &Global::new(input, &g), output, |t| taps.get(t)) }
        }
    };
}

constant_entry!(conv_constant_u8, u8);
constant_entry!(conv_constant_u16, u16);
constant_entry!(conv_constant_f32, f32);
