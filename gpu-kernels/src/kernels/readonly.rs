//! The `readonly` kernel: input through the read-only data cache, filter in the constant bank.

/// The entry-point base name: `conv_readonly_<type>`.
pub const ENTRY: &str = "conv_readonly";

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::{Global, ReadOnly, Sample, param_taps, per_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// Identical to `constant` except that every input load is `ld.global.nc` (CUDA's `__ldg`): the
/// non-coherent path through the texture/L1 cache, valid because no kernel writes its input.
///
/// # Thread mapping
/// One thread per output sample, as for `naive`.
///
/// # Safety
/// As for `constant`; the input must not be written while the kernel runs.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_readonly<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller guarantees the buffer sizes (see above).
    unsafe { per_sample(&g, &ReadOnly(Global::new(input, &g)), output, |t| taps.get(t)) }
}
