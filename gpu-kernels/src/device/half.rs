//! The half-float sample types: `f16` (IEEE half) and [`bf16`], read exactly as `f32` and
//! written rounded to the nearest (ties to even), one at a time or as 4-sample vectors.

use super::sample::{Sample, Store, clamp_keeping_nan};

/// Four half-float samples (`f16` or [`bf16`] bits) with 8-byte alignment: one vector load or
/// store, the lower index in the low half of each word.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Halves([u32; 2]);

/// Two `f32` rounded to the nearest half float (ties to even) and packed into one word, `lo` in
/// the low half (`cvt.rn.f16x2.f32` or `cvt.rn.bf16x2.f32`, one instruction for the pair).
macro_rules! pack_halves {
    ($ty:literal, $hi:expr, $lo:expr) => {{
        let d: u32;
        // SAFETY: a register-only instruction.
        unsafe {
            core::arch::asm!(
                concat!("cvt.rn.", $ty, "x2.f32 {d}, {hi}, {lo};"),
                d = out(reg32) d, hi = in(reg32) $hi, lo = in(reg32) $lo, options(pure, nomem, nostack)
            )
        };
        d
    }};
}

impl Sample for f16 {
    const INTEGER: bool = false;
    #[inline(always)]
    unsafe fn load(p: *const f16) -> f32 {
        // SAFETY: forwarded from the caller.
        (unsafe { *p }) as f32
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const f16) -> f32 {
        let v: f32;
        // SAFETY: forwarded from the caller; the address is a global-memory address.
        unsafe {
            core::arch::asm!(
                "{{ .reg .b16 h;", "ld.global.nc.b16 h, [{p}];", "cvt.f32.f16 {v}, h; }}",
                v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack)
            )
        };
        v
    }
    #[inline(always)]
    fn store(v: f32, mode: Store) -> f16 {
        (if mode.clamp { clamp_keeping_nan(v) } else { v }) as f16
    }
    #[inline(always)]
    unsafe fn load4(p: *const f16) -> [f32; 4] {
        // SAFETY: forwarded from the caller (8-byte aligned, 4 readable samples).
        let [lo, hi] = unsafe { *p.cast::<Halves>() }.0;
        [lo as u16, (lo >> 16) as u16, hi as u16, (hi >> 16) as u16].map(|b| f16::from_bits(b) as f32)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f16, v: [f32; 4], mode: Store) {
        let [a, b, c, d] = v.map(|x| if mode.clamp { clamp_keeping_nan(x) } else { x });
        let words = Halves([pack_halves!("f16", b, a), pack_halves!("f16", d, c)]);
        // SAFETY: forwarded from the caller (8-byte aligned, 4 writable samples).
        unsafe { *p.cast::<Halves>() = words };
    }
}

/// A bfloat16 sample: the high 16 bits of an `f32` (8 exponent bits, 7 of mantissa), as PyTorch
/// and CuPy store it. Read exactly (its bits shifted up), written rounded to the nearest.
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct bf16(u16);

impl bf16 {
    /// `v` rounded to the nearest bfloat16 (ties to even; NaN stays NaN).
    #[inline(always)]
    fn round(v: f32) -> bf16 {
        let b: u16;
        // SAFETY: a register-only instruction.
        unsafe {
            core::arch::asm!("cvt.rn.bf16.f32 {b}, {v};", b = out(reg16) b, v = in(reg32) v, options(pure, nomem, nostack))
        };
        bf16(b)
    }
}

impl Sample for bf16 {
    const INTEGER: bool = false;
    #[inline(always)]
    unsafe fn load(p: *const bf16) -> f32 {
        // SAFETY: forwarded from the caller.
        f32::from_bits(u32::from(unsafe { *p }.0) << 16)
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const bf16) -> f32 {
        let v: u32;
        // SAFETY: forwarded from the caller; the address is a global-memory address.
        unsafe {
            core::arch::asm!("ld.global.nc.u16 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack))
        };
        f32::from_bits(v << 16)
    }
    #[inline(always)]
    fn store(v: f32, mode: Store) -> bf16 {
        bf16::round(if mode.clamp { clamp_keeping_nan(v) } else { v })
    }
    #[inline(always)]
    unsafe fn load4(p: *const bf16) -> [f32; 4] {
        // SAFETY: forwarded from the caller (8-byte aligned, 4 readable samples).
        let [lo, hi] = unsafe { *p.cast::<Halves>() }.0;
        [lo << 16, lo & 0xFFFF_0000, hi << 16, hi & 0xFFFF_0000].map(f32::from_bits)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut bf16, v: [f32; 4], mode: Store) {
        let [a, b, c, d] = v.map(|x| if mode.clamp { clamp_keeping_nan(x) } else { x });
        let words = Halves([pack_halves!("bf16", b, a), pack_halves!("bf16", d, c)]);
        // SAFETY: forwarded from the caller (8-byte aligned, 4 writable samples).
        unsafe { *p.cast::<Halves>() = words };
    }
}
