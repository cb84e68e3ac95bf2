//! The tensor cores through inline PTX: half-precision warp-wide matrix multiply-accumulate, the
//! shared-memory matrix load that feeds it, and 8-bit samples turned into half precision.

/// `D = A · B + C` for one warp (`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`): A is
/// 16 × 16 `f16` (row-major), B is 16 × 8 `f16` (column-major), C and D are 16 × 8 `f32`. Each lane
/// holds its part of each operand as the PTX ISA's fragment layout gives it (`g` = lane / 4,
/// `t` = lane % 4), two `f16` per register, the lower column or row in the low half:
///
/// - `a[0]`: A row `g`, columns `2t, 2t+1`; `a[1]`: row `g + 8`; `a[2]`, `a[3]`: the same rows,
///   columns `8 + 2t, 9 + 2t` (what [`load_matrix_x4`] gives).
/// - `b[0]`: B rows `2t, 2t+1` of column `g`; `b[1]`: rows `8 + 2t, 9 + 2t`.
/// - `acc[0]`, `acc[1]`: D row `g`, columns `2t`, `2t + 1`; `acc[2]`, `acc[3]`: row `g + 8`.
///
/// Every lane of the warp must call it together (no divergence).
#[inline(always)]
pub fn mma_f16(a: [u32; 4], b: [u32; 2], acc: &mut [f32; 4]) {
    // SAFETY: register-only instruction; the caller's warp is converged (documented above).
    unsafe {
        core::arch::asm!(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
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

/// The shared-memory address (`.shared` window, 32 bits) of a generic pointer into the block's
/// shared memory.
#[inline(always)]
pub fn shared_address<T>(p: *const T) -> u32 {
    let a: u64;
    // SAFETY: register-only conversion.
    unsafe {
        core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p, options(pure, nomem, nostack))
    };
    a as u32
}

/// Four 8 × 8 matrices of `f16` from shared memory, one register each per lane
/// (`ldmatrix.sync.aligned.m8n8.x4.shared.b16`): lane `l` gives the address of row `l % 8` of matrix
/// `l / 8` (16 bytes, 16-byte aligned), and gets in register `m` row `g`, columns `2t, 2t+1` of
/// matrix `m`, the layout of an MMA's A fragment.
///
/// # Safety
/// Every lane of the warp calls it together, with `address` a `.shared` address of 16 bytes
/// written before the last barrier.
#[inline(always)]
pub unsafe fn load_matrix_x4(address: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{a}, {b}, {c}, {d}}}, [{p}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg32) address,
            options(pure, readonly, nostack),
        )
    };
    [a, b, c, d]
}

/// Two 8 × 8 matrices of `f16` from shared memory, one register each per lane
/// (`ldmatrix.sync.aligned.m8n8.x2.shared.b16`): lanes 0 to 15 give the addresses of the rows, as
/// for [`load_matrix_x4`] (the other lanes' addresses are not used).
///
/// # Safety
/// As for [`load_matrix_x4`].
#[inline(always)]
pub unsafe fn load_matrix_x2(address: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{a}, {b}}}, [{p}];",
            a = out(reg32) a, b = out(reg32) b,
            p = in(reg32) address,
            options(pure, readonly, nostack),
        )
    };
    [a, b]
}

/// Bytes 0 and 1 of `word` (`SEL` = 0x4140) or 2 and 3 (`SEL` = 0x4342) as two `f16`, exactly:
/// the byte goes under the exponent of 1024 (`0x64nn` is 1024 + n), and 1024 is subtracted.
#[inline(always)]
pub fn bytes_to_f16x2<const SEL: u32>(word: u32) -> u32 {
    let out: u32;
    // SAFETY: register-only instructions.
    unsafe {
        core::arch::asm!(
            "prmt.b32 {o}, {w}, 0x64646464, {s};",
            "sub.rn.f16x2 {o}, {o}, {k};",
            o = out(reg32) out, w = in(reg32) word, s = const SEL, k = in(reg32) 0x6400_6400u32,
            options(pure, nomem, nostack),
        )
    };
    out
}

/// Stores 8 bytes to shared memory (`st.shared.v2.u32`).
///
/// # Safety
/// `address` is an 8-byte aligned `.shared` address of 8 bytes of the block's shared memory.
#[inline(always)]
pub unsafe fn store_shared_8(address: u32, v: [u32; 2]) {
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "st.shared.v2.u32 [{p}], {{{a}, {b}}};",
            p = in(reg32) address, a = in(reg32) v[0], b = in(reg32) v[1],
            options(nostack),
        )
    };
}
