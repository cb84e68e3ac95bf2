//! The `warp-rows` kernel's instructions written as inline PTX: the saturating FMA and the 8-bit
//! rows' word loads (through the read-only data cache) and stores; and the `prmt` selectors of
//! its edge words.

use crate::launch::border;

/// `fma.rn.sat.f32`: `a * b + c` rounded once and clamped to [0, 1] (NaN to 0).
#[inline(always)]
pub(super) fn fma_sat(a: f32, b: f32, c: f32) -> f32 {
    let d: f32;
    // SAFETY: a register-only instruction.
    unsafe {
        core::arch::asm!("fma.rn.sat.f32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, options(pure, nomem, nostack))
    };
    d
}

/// Two 32-bit words of global memory through the read-only data cache (`ld.global.nc.v2.u32`).
///
/// # Safety
/// `p` is an 8-aligned global address of 8 bytes not written during the kernel.
#[inline(always)]
pub(super) unsafe fn load_nc_v2(p: *const u8) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!("ld.global.nc.v2.u32 {{{a}, {b}}}, [{p}];", a = out(reg32) a, b = out(reg32) b, p = in(reg64) p, options(pure, readonly, nostack))
    };
    [a, b]
}

/// One 32-bit word of global memory through the read-only data cache (`ld.global.nc.u32`).
///
/// # Safety
/// `p` is a 4-aligned global address of 4 bytes not written during the kernel.
#[inline(always)]
pub(super) unsafe fn load_nc(p: *const u8) -> u32 {
    let a: u32;
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!("ld.global.nc.u32 {a}, [{p}];", a = out(reg32) a, p = in(reg64) p, options(pure, readonly, nostack))
    };
    a
}

/// Two 32-bit words to global memory (`st.global.v2.u32`).
///
/// # Safety
/// `p` is an 8-aligned global address of 8 writable bytes.
#[inline(always)]
pub(super) unsafe fn store_v2(p: *mut u8, [a, b]: [u32; 2]) {
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!("st.global.v2.u32 [{p}], {{{a}, {b}}};", p = in(reg64) p, a = in(reg32) a, b = in(reg32) b, options(nostack))
    };
}

/// [`edge_selector`]s of the replicate, reflect and symmetric borders.
pub(super) const fn edge_selectors<const C: usize, const LEFT: bool>() -> [u32; 3] {
    [
        edge_selector::<C, LEFT>(border::REPLICATE),
        edge_selector::<C, LEFT>(border::REFLECT),
        edge_selector::<C, LEFT>(border::SYMMETRIC),
    ]
}

/// The `prmt` selector that makes, from a lane's 8 bytes (`low`, `high`) at the left edge of the
/// image (`LEFT`) or its right edge, the 4 bytes beyond that edge as border `mode` (replicate,
/// reflect or symmetric) gives them, for rows of `C` channels. Byte `s` of the result is the row's byte
/// `s - 4` (left) or `row + s` (right); bytes no window reads are 0.
pub(super) const fn edge_selector<const C: usize, const LEFT: bool>(mode: u32) -> u32 {
    let c = C as i32;
    let mut sel = 0;
    let mut s = 0;
    while s < 4 {
        // The pixel beyond the edge (0 = the first outside) and the channel of byte s.
        let (beyond, ch) = if LEFT {
            let back = 4 - s;
            ((back + c - 1) / c - 1, (c - back % c) % c)
        } else {
            (s / c, s % c)
        };
        // The pixel it reads, counted inward from the edge pixel: `beyond + 1` (reflect),
        // `beyond` (symmetric) or the edge pixel (replicate); its byte among the lane's 8 (the
        // left edge's pixel 0 is byte 0, the right edge's last pixel byte 8 - C).
        let inside = match mode {
            border::REFLECT => beyond + 1,
            border::SYMMETRIC => beyond,
            _ => 0,
        };
        let byte = if LEFT {
            inside * c + ch
        } else {
            8 - (inside + 1) * c + ch
        };
        if byte >= 0 && byte < 8 {
            sel |= (byte as u32) << (4 * s);
        }
        s += 1;
    }
    sel
}
