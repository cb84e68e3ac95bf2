//! The tensor cores through inline PTX: warp-wide matrix multiply-accumulates of 8-bit integers
//! and of FP16 halves, and the split of `f32` values into FP16 high and low parts.

/// Writes a warp-wide `mma.sync` wrapper: `D = A · B + C` with C and D in `acc` (4 registers per
/// lane), A and B as 32-bit registers named by the lists.
macro_rules! mma {
    ($(#[$doc:meta])* $name:ident($shape:literal, $acc:ty, a: [$a0:ident $(, $a:ident)*], b: [$b0:ident $(, $b:ident)*])) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: [u32; [stringify!($a0) $(, stringify!($a))*].len()], b: [u32; [stringify!($b0) $(, stringify!($b))*].len()], acc: &mut [$acc; 4]) {
            let [$a0 $(, $a)*] = a;
            let [$b0 $(, $b)*] = b;
            // SAFETY: register-only instruction; the caller's warp is converged (documented above).
            unsafe {
                core::arch::asm!(
                    concat!(
                        "mma.sync.aligned.", $shape, " {{{d0}, {d1}, {d2}, {d3}}}, ",
                        "{{{", stringify!($a0), "}" $(, ", {", stringify!($a), "}")*, "}}, ",
                        "{{{", stringify!($b0), "}" $(, ", {", stringify!($b), "}")*, "}}, ",
                        "{{{d0}, {d1}, {d2}, {d3}}};"
                    ),
                    d0 = inout(reg32) acc[0],
                    d1 = inout(reg32) acc[1],
                    d2 = inout(reg32) acc[2],
                    d3 = inout(reg32) acc[3],
                    $a0 = in(reg32) $a0,
                    $($a = in(reg32) $a,)*
                    $b0 = in(reg32) $b0,
                    $($b = in(reg32) $b,)*
                    options(pure, nomem, nostack),
                );
            }
        }
    };
}

mma! {
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
    mma_u8_s8("m16n8k32.row.col.s32.u8.s8.s32", u32, a: [a0, a1, a2, a3], b: [b0, b1])
}

mma! {
    /// As [`mma_u8_s8`] with K = 16 (`mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32`): A is 16 × 16,
    /// B 16 × 8, and a lane holds only `a[0]`, `a[1]` and `b[0]` of that layout (half the work).
    mma_u8_s8_k16("m16n8k16.row.col.s32.u8.s8.s32", u32, a: [a0, a1], b: [b0])
}

mma! {
    /// `D = A · B + C` for one warp (`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`): A is 16 × 16
    /// FP16 (row-major), B is 16 × 8 FP16 (column-major), C and D are 16 × 8 `f32`. The products are
    /// exact; they are summed in `f32`. Each lane holds (`g` = lane / 4, `t` = lane % 4), two halves
    /// per register, the lower index in the low half:
    ///
    /// - `a[0]`: A row `g`, columns `2t, 2t + 1`; `a[1]`: row `g + 8`; `a[2]`, `a[3]`: the same rows,
    ///   columns `8 + 2t, 9 + 2t`.
    /// - `b[0]`: B rows `2t, 2t + 1` of column `g`; `b[1]`: rows `8 + 2t, 9 + 2t`.
    /// - `acc[0]`, `acc[1]`: D row `g`, columns `2t`, `2t + 1`; `acc[2]`, `acc[3]`: row `g + 8`.
    ///
    /// Every lane of the warp must call it together (no divergence).
    mma_f16("m16n8k16.row.col.f32.f16.f16.f32", f32, a: [a0, a1, a2, a3], b: [b0, b1])
}

mma! {
    /// As [`mma_f16`] with K = 8 (`mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32`): a lane holds
    /// only `a[0]`, `a[1]` and `b[0]` of that layout (half the work).
    mma_f16_k8("m16n8k8.row.col.f32.f16.f16.f32", f32, a: [a0, a1], b: [b0])
}

/// Splits `x0` and `x1` into FP16 high parts (each rounded to nearest) and low parts (the exact
/// remainders, rounded to nearest): returns `(hi, lo)`, each two halves with `x0`'s in the low
/// half, and `x ≈ hi + lo` to 22 significant bits wherever `|x| < 2^15`.
#[inline(always)]
pub fn split_f16x2(x0: f32, x1: f32) -> (u32, u32) {
    let (hi, lo): (u32, u32);
    // SAFETY: register-only instructions.
    unsafe {
        core::arch::asm!(
            "{{",
            ".reg .f16 h0, h1;",
            ".reg .f32 f0, f1;",
            "cvt.rn.f16x2.f32 {hi}, {x1}, {x0};",
            "mov.b32 {{h0, h1}}, {hi};",
            "cvt.f32.f16 f0, h0;",
            "cvt.f32.f16 f1, h1;",
            "sub.f32 f0, {x0}, f0;",
            "sub.f32 f1, {x1}, f1;",
            "cvt.rn.f16x2.f32 {lo}, f1, f0;",
            "}}",
            hi = out(reg32) hi,
            lo = out(reg32) lo,
            x0 = in(reg32) x0,
            x1 = in(reg32) x1,
            options(pure, nomem, nostack),
        );
    }
    (hi, lo)
}

/// Two `f32` rounded to the nearest FP16 (ties to even) in one word, `x0`'s in the low half.
#[inline(always)]
pub fn pack_f16x2(x0: f32, x1: f32) -> u32 {
    let w: u32;
    // SAFETY: a register-only instruction.
    unsafe {
        core::arch::asm!(
            "cvt.rn.f16x2.f32 {w}, {x1}, {x0};",
            w = out(reg32) w,
            x0 = in(reg32) x0,
            x1 = in(reg32) x1,
            options(pure, nomem, nostack),
        );
    }
    w
}

/// Reads 8 bytes of global memory with one vector load through the read-only data cache
/// (`ld.global.nc.v2.u32`): 4 FP16 samples as two words, the first sample in the low half.
///
/// # Safety
/// `p` is an 8-byte aligned global-memory address of 8 readable bytes not written during the
/// kernel.
#[inline(always)]
pub unsafe fn load_global_words2(p: *const u8) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "ld.global.nc.v2.u32 {{{a}, {b}}}, [{p}];",
            a = out(reg32) a,
            b = out(reg32) b,
            p = in(reg64) p,
            options(pure, readonly, nostack),
        );
    }
    [a, b]
}

/// The shared-memory address (`.shared` state space, 32 bits) of generic pointer `p` into shared
/// memory (`cvta.to.shared`).
#[inline(always)]
pub fn shared_address(p: *const u32) -> u32 {
    // The address as a number: the conversion reads nothing.
    let p = p as usize as u64;
    let a: u32;
    // SAFETY: a register-only conversion.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 sa; cvta.to.shared.u64 sa, {p}; cvt.u32.u64 {a}, sa; }}",
            a = out(reg32) a,
            p = in(reg64) p,
            options(pure, nomem, nostack),
        );
    }
    a
}

/// Four 8 × 8 matrices of FP16 from shared memory (`ldmatrix.sync.aligned.m8n8.x4.shared.b16`):
/// lane `l` gives the address of row `l % 8` of matrix `l / 8` (16 bytes, 16-aligned), and gets
/// from each matrix `i` the word of row `l / 4`, columns `2 (l % 4)`, `+ 1`: an MMA's A fragment
/// (`a[i]`) where the matrices are A's four 8 × 8 quarters in `a`'s order.
///
/// # Safety
/// Every lane of the warp calls it together; each lane's `addr` is a 16-aligned shared address of
/// 16 readable bytes.
#[inline(always)]
pub unsafe fn ldmatrix_x4(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{a}, {b}, {c}, {d}}}, [{addr}];",
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            addr = in(reg32) addr,
            options(readonly, nostack),
        );
    }
    [a, b, c, d]
}

/// As [`ldmatrix_x4`] for two matrices (`.x2`): only lanes 0-15's addresses are read.
///
/// # Safety
/// Every lane of the warp calls it together; lanes 0-15's `addr` as for [`ldmatrix_x4`].
#[inline(always)]
pub unsafe fn ldmatrix_x2(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{a}, {b}}}, [{addr}];",
            a = out(reg32) a,
            b = out(reg32) b,
            addr = in(reg32) addr,
            options(readonly, nostack),
        );
    }
    [a, b]
}
