//! The `readonly` kernel: input through the read-only data cache, filter in the constant bank.
//!
//! Identical to `constant` except that every input load is `ld.global.nc` (CUDA's `__ldg`): the
//! non-coherent path through the texture/L1 cache, valid because no kernel writes its input.
//!
//! # Thread mapping
//! One thread per output sample, as for `naive`.
//!
//! # Safety
//! As for `constant`; the input must not be written while the kernel runs.

use crate::device::{Global, ReadOnly, per_sample};
use crate::launch::{Geometry, Taps};

macro_rules! readonly_entry {
    ($name:ident, $t:ty) => {
        /// The `readonly` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const $t, output: *mut $t, g: Geometry, _taps: Taps) {
            let taps = param_taps!($name, 3);
            // SAFETY: the caller guarantees the buffer sizes (module documentation).
            unsafe {
                per_sample(&g, &ReadOnly(Global::new(input, &g)), output, |t| {
                    taps.get(t)
                })
            }
        }
    };
}

readonly_entry!(conv_readonly_u8, u8);
readonly_entry!(conv_readonly_u16, u16);
readonly_entry!(conv_readonly_f32, f32);
