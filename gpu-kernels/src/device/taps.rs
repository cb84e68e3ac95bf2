//! Reading filter taps from kernel parameters, which live in the GPU's constant bank.

use crate::launch::ExactTaps;

/// Filter taps read straight from a by-value kernel parameter, i.e. from the constant bank.
///
/// Indexing a by-value array parameter with a run-time index makes LLVM copy the whole array to
/// per-thread local memory first. Taking the parameter's address (`mov.b64 %r, kernel_param_N`)
/// and loading through it with `ld.param` keeps every read in the constant bank instead.
/// Build one with [`param_taps!`] inside the kernel body.
#[derive(Clone, Copy)]
pub struct ParamTaps {
    base: u64,
}

impl ParamTaps {
    /// Wraps the `.param`-space address of a taps parameter.
    ///
    /// # Safety
    /// `base` must be the address of a `Taps` (or `ExactTaps`) kernel parameter of the running
    /// kernel, and every index read through it below that parameter's length.
    #[inline(always)]
    pub unsafe fn from_param_address(base: u64) -> Self {
        Self { base }
    }

    /// Tap number `index` (row-major); `index` must be below the parameter's length (`k²` taps).
    #[inline(always)]
    pub fn get(self, index: u32) -> f32 {
        let value: f32;
        // SAFETY: `base` addresses a taps parameter of at least `k * k` f32 values (see
        // `from_param_address`) and every caller keeps `index` below `k * k`.
        unsafe {
            core::arch::asm!(
                "ld.param.f32 {v}, [{a}];",
                v = out(reg32) value,
                a = in(reg64) self.base + 4 * index as u64,
                options(pure, readonly, nostack),
            );
        }
        value
    }

    /// Tap number `start + J`, as an immediate offset from one address for every `J`, so ptxas
    /// reads a row of taps from one uniform base (`c[0x0][UR + offset]`) instead of computing
    /// and aligning an address per tap.
    #[inline(always)]
    pub fn get_at<const J: usize>(self, start: u32) -> f32 {
        let value: f32;
        // SAFETY: as for `get`: every caller keeps `start + J` below the parameter's length.
        unsafe {
            core::arch::asm!(
                "ld.param.f32 {v}, [{a}+{o}];",
                v = out(reg32) value,
                a = in(reg64) self.base + 4 * start as u64,
                o = const 4 * J,
                options(pure, readonly, nostack),
            );
        }
        value
    }
}

/// Where a kernel reads its taps from: a kernel parameter through its address ([`ParamTaps`],
/// any index), or a by-value array parameter indexed directly (only with indices known at compile
/// time, which become constant-bank operands of the instructions that use them).
pub trait TapRead: Copy {
    /// Tap number `index` (row-major).
    fn tap(self, index: usize) -> f32;

    /// Tap number `start + J`: [`tap`](TapRead::tap), for a run of taps at constant offsets
    /// from a run-time start.
    #[inline(always)]
    fn tap_at<const J: usize>(self, start: usize) -> f32 {
        self.tap(start + J)
    }
}

impl TapRead for ParamTaps {
    #[inline(always)]
    fn tap(self, index: usize) -> f32 {
        self.get(index as u32)
    }

    #[inline(always)]
    fn tap_at<const J: usize>(self, start: usize) -> f32 {
        self.get_at::<J>(start as u32)
    }
}

impl<const N: usize> TapRead for &ExactTaps<N> {
    #[inline(always)]
    fn tap(self, index: usize) -> f32 {
        self.0[index]
    }
}

/// `param_taps!(param)`: the [`ParamTaps`] of the by-value [`Taps`](crate::launch::Taps) (or
/// [`ExactTaps`]) parameter `param` of the enclosing `#[kernel]`, which reads each tap through the
/// parameter's address instead of copying the parameter. The `#[kernel]` attribute defines
/// `param_symbol!`, the parameter's PTX name (`<entry>_param_<index>`), in every entry point it
/// writes, so this works only in a kernel's own body.
macro_rules! param_taps {
    ($param:ident) => {{
        // Names the parameter without reading it (a `_` pattern moves nothing): the kernel uses it
        // only through its address.
        let _ = $param;
        let base: u64;
        // SAFETY: only takes the address of a parameter of the enclosing kernel, which is a
        // `Taps` or `ExactTaps` as `from_param_address` requires.
        unsafe {
            core::arch::asm!(
                concat!("mov.b64 {b}, ", param_symbol!($param), ";"),
                b = out(reg64) base,
                options(pure, nomem, nostack),
            );
            $crate::device::ParamTaps::from_param_address(base)
        }
    }};
}
pub(crate) use param_taps;
