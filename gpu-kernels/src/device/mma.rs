//! The tensor cores through inline PTX: one warp-wide 8-bit matrix multiply-accumulate.

/// As [`mma_u8_s8`] with K = 16 (`mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32`): A is 16 × 16,
/// B 16 × 8, and a lane holds only `a[0]`, `a[1]` and `b[0]` of that layout (half the work).
#[inline(always)]
pub fn mma_u8_s8_k16(a: [u32; 2], b: u32, acc: &mut [u32; 4]) {
    // SAFETY: register-only instruction; the caller's warp is converged (as for `mma_u8_s8`).
    unsafe {
        core::arch::asm!(
            "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}}}, {{{b0}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) acc[0],
            d1 = inout(reg32) acc[1],
            d2 = inout(reg32) acc[2],
            d3 = inout(reg32) acc[3],
            a0 = in(reg32) a[0],
            a1 = in(reg32) a[1],
            b0 = in(reg32) b,
            options(pure, nomem, nostack),
        );
    }
}

/// `D = A · B + C` for one warp (`mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32`): A is 16 × 32
/// unsigned bytes (row-major), B is 32 × 8 signed bytes (column-major), C and D are 16 × 8 `i32`,
/// accumulated exactly (wrapping on overflow). Each lane holds its part of each operand as the
/// PTX ISA's fragment layout gives it (`g` = lane / 4, `t` = lane % 4):
///
/// - `a[0]`: A row `g`, columns `4t..4t+4`; `a[1]`: row `g + 8`; `a[2]`, `a[3]`: the same rows,
///   columns `16 + 4t..`. Byte `q` of a register is column `4t + q` (+ 16).
/// - `b[0]`: B rows `4t..4t+4` of column `g`; `b[1]`: rows `16 + 4t..`.
/// - `acc[0]`, `acc[1]`: D row `g`, columns `2t`, `2t + 1`; `acc[2]`, `acc[3]`: row `g + 8`.
///
/// Every lane of the warp must call it together (no divergence).
#[inline(always)]
pub fn mma_u8_s8(a: [u32; 4], b: [u32; 2], acc: &mut [u32; 4]) {
    // SAFETY: register-only instruction; the caller's warp is converged (documented above).
    unsafe {
        core::arch::asm!(
            "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) acc[0],
            d1 = inout(reg32) acc[1],
            d2 = inout(reg32) acc[2],
            d3 = inout(reg32) acc[3],
            a0 = in(reg32) a[0],
            a1 = in(reg32) a[1],
            a2 = in(reg32) a[2],
            a3 = in(reg32) a[3],
            b0 = in(reg32) b[0],
            b1 = in(reg32) b[1],
            options(pure, nomem, nostack),
        );
    }
}
