//! Sample types: how `u8`, `u16` and `f32` samples are read as values in [0, 1] (`f32` as it
//! is) and written back, one at a time or as 4-sample vectors, integers rounded or truncated
//! ([`Store`]); the half floats are in `half.rs`.

use crate::launch::Geometry;

/// How a result is written back ([`Sample::store`]): `f32` clamped to [0, 1] or not; integers
/// clamped and rounded to the nearest level, or truncated and wrapped
/// ([`Geometry::trunc_scale`]).
#[derive(Clone, Copy)]
pub struct Store {
    /// Clamp `f32` results to [0, 1] (integer results are always clamped).
    pub clamp: bool,
    /// 0: integers are rounded; else truncated, level = `v · trunc_scale` toward zero, wrapped.
    pub trunc_scale: f32,
}

impl Store {
    /// What `g` asks for, `f32` results clamped only if `clamp` (RGBA's copied alpha is not).
    #[inline(always)]
    pub fn of(g: &Geometry, clamp: bool) -> Self {
        Self {
            clamp,
            trunc_scale: g.trunc_scale,
        }
    }

    /// Whether `T`'s results are truncated: integers where `trunc_scale` is not 0 (`f32`
    /// ignores it). A kernel that branches on it once, passing the constant 0 on the rounding
    /// side, compiles each side with only its own store instructions and registers (see
    /// [`split_store!`]).
    #[inline(always)]
    pub fn truncates<T: Sample>(self) -> bool {
        T::INTEGER && self.trunc_scale != 0.0
    }
}

/// `split_store!(T, g => body)`: `body` (a kernel's body, or the call of it) compiled twice for
/// integer samples `T`: where `g.trunc_scale` is not 0 with the geometry `g` as it is
/// (truncating stores), else with `g` rebound to a copy whose `trunc_scale` is the constant 0,
/// so that every store in that copy compiles to the rounding instructions alone, as it did
/// before truncation, with nothing of the other path in its registers or schedule. For `f32`
/// samples, which ignore `trunc_scale`, `body` is compiled once, as it is. `body` must inline
/// (an `#[inline(always)]` function), or the kernel would call two copies of it. The
/// `#[kernel]` attribute's `split_store = g` wraps a whole entry's body in it.
macro_rules! split_store {
    ($t:ty, $g:ident => $body:expr) => {
        if !<$t as $crate::device::Sample>::INTEGER || $g.trunc_scale != 0.0 {
            $body
        } else {
            let $g = $crate::launch::Geometry {
                trunc_scale: 0.0,
                ..$g
            };
            $body
        }
    };
}
pub(crate) use split_store;

/// Four `f32` with 16-byte alignment: one vector load or store (`ld.shared.v4`, `st.global.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct F32x4(pub [f32; 4]);

/// 16 bytes with 16-byte alignment: one vector load or store of 8-bit samples.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Bytes16(pub [u32; 4]);

impl Bytes16 {
    /// Reads 16 bytes of global memory with one vector load through the read-only data cache
    /// (`ld.global.nc.v4.u32`; LLVM splits a plain 16-byte copy into four loads).
    ///
    /// # Safety
    /// `p` is a 16-byte aligned global-memory address of 16 readable bytes not written during the
    /// kernel.
    #[inline(always)]
    pub unsafe fn load_global(p: *const u8) -> Self {
        let (a, b, c, d): (u32, u32, u32, u32);
        // SAFETY: forwarded from the caller.
        unsafe {
            core::arch::asm!(
                "ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
                a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                p = in(reg64) p,
                options(pure, readonly, nostack),
            )
        };
        Self([a, b, c, d])
    }

    /// Writes the 16 bytes to global memory with one vector store (`st.global.v4.u32`).
    ///
    /// # Safety
    /// `p` is a 16-byte aligned global-memory address of 16 writable bytes.
    #[inline(always)]
    pub unsafe fn store_global(self, p: *mut u8) {
        let [a, b, c, d] = self.0;
        // SAFETY: forwarded from the caller.
        unsafe {
            core::arch::asm!(
                "st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
                p = in(reg64) p, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, d = in(reg32) d,
                options(nostack),
            )
        };
    }
}

/// A sample type: how it is read as a value in [0, 1] (`f32`: as is) and written back.
pub trait Sample: Copy {
    /// Whether the samples are integer levels (rounded or truncated when stored).
    const INTEGER: bool = true;
    /// Reads the sample at `p` as `f32`: integers divided by their maximum.
    ///
    /// # Safety
    /// `p` points to a readable sample in global memory.
    unsafe fn load(p: *const Self) -> f32;
    /// Like [`load`](Sample::load), through the read-only data cache (`ld.global.nc`).
    ///
    /// # Safety
    /// As `load`, and the memory is not written during the kernel.
    unsafe fn load_nc(p: *const Self) -> f32;
    /// Converts a value back: integers are clamped to [0, 1] and rounded to the nearest level,
    /// or truncated and wrapped where `mode.trunc_scale` is not 0; `f32` is clamped only if
    /// `mode.clamp`.
    fn store(v: f32, mode: Store) -> Self;

    /// Reads 4 consecutive samples with one vector load (16, 8 or 4 bytes).
    ///
    /// # Safety
    /// `p` points to 4 readable samples and is aligned to 4 samples.
    #[inline(always)]
    unsafe fn load4(p: *const Self) -> [f32; 4] {
        // SAFETY: forwarded from the caller; the default reads sample by sample.
        unsafe {
            [
                Self::load(p),
                Self::load(p.add(1)),
                Self::load(p.add(2)),
                Self::load(p.add(3)),
            ]
        }
    }

    /// Writes 4 consecutive samples with one vector store.
    ///
    /// # Safety
    /// `p` points to 4 writable samples and is aligned to 4 samples.
    #[inline(always)]
    unsafe fn store4(p: *mut Self, v: [f32; 4], mode: Store) {
        // SAFETY: forwarded from the caller; the default writes sample by sample.
        unsafe {
            for (i, x) in v.into_iter().enumerate() {
                *p.add(i) = Self::store(x, mode);
            }
        }
    }
}

impl Sample for f32 {
    const INTEGER: bool = false;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> f32 {
        // SAFETY: forwarded from the caller.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const f32) -> f32 {
        let v: f32;
        // SAFETY: forwarded from the caller; the address is a global-memory address.
        unsafe {
            core::arch::asm!("ld.global.nc.f32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack))
        };
        v
    }
    #[inline(always)]
    fn store(v: f32, mode: Store) -> f32 {
        if mode.clamp { clamp_keeping_nan(v) } else { v }
    }
    #[inline(always)]
    unsafe fn load4(p: *const f32) -> [f32; 4] {
        // SAFETY: forwarded from the caller (16-byte aligned, 4 readable values).
        unsafe { (*p.cast::<F32x4>()).0 }
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: [f32; 4], mode: Store) {
        // SAFETY: forwarded from the caller (16-byte aligned, 4 writable values).
        unsafe { *p.cast::<F32x4>() = F32x4(v.map(|x| Self::store(x, mode))) };
    }
}

impl Sample for u8 {
    #[inline(always)]
    unsafe fn load(p: *const u8) -> f32 {
        // SAFETY: forwarded from the caller.
        f32::from(unsafe { *p }) * (1.0 / 255.0)
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const u8) -> f32 {
        let v: u32;
        // SAFETY: forwarded from the caller; the address is a global-memory address.
        unsafe {
            core::arch::asm!("ld.global.nc.u8 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack))
        };
        v as f32 * (1.0 / 255.0)
    }
    #[inline(always)]
    fn store(v: f32, mode: Store) -> u8 {
        // The permute makes the low byte an integer operation's result: ptxas compiles a byte
        // store of an `fma` result as a float-to-integer conversion (`F2IP.U8`).
        prmt::<0x4440>(to_level(v, 255.0, mode.trunc_scale), 0) as u8
    }
    #[inline(always)]
    unsafe fn load4(p: *const u8) -> [f32; 4] {
        // SAFETY: forwarded from the caller (4-byte aligned, 4 readable bytes).
        let word = unsafe { *p.cast::<u32>() };
        // Byte i goes into the low byte of 2^23's bit pattern (0x4B00_00bb).
        [
            prmt::<0x7540>(word, MAGIC_BITS),
            prmt::<0x7541>(word, MAGIC_BITS),
            prmt::<0x7542>(word, MAGIC_BITS),
            prmt::<0x7543>(word, MAGIC_BITS),
        ]
        .map(|bits| (f32::from_bits(bits) - TWO_23) * (1.0 / 255.0))
    }
    #[inline(always)]
    unsafe fn store4(p: *mut u8, v: [f32; 4], mode: Store) {
        let [a, b, c, d] = levels4(v, 255.0, mode);
        // Low bytes of a and b, then of c and d, then the four together.
        let word = prmt::<0x5410>(prmt::<0x0040>(a, b), prmt::<0x0040>(c, d));
        // SAFETY: forwarded from the caller (4-byte aligned, 4 writable bytes).
        unsafe { *p.cast::<u32>() = word };
    }
}

impl Sample for u16 {
    #[inline(always)]
    unsafe fn load(p: *const u16) -> f32 {
        // SAFETY: forwarded from the caller.
        f32::from(unsafe { *p }) * (1.0 / 65535.0)
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const u16) -> f32 {
        let v: u32;
        // SAFETY: forwarded from the caller; the address is a global-memory address.
        unsafe {
            core::arch::asm!("ld.global.nc.u16 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(pure, readonly, nostack))
        };
        v as f32 * (1.0 / 65535.0)
    }
    #[inline(always)]
    fn store(v: f32, mode: Store) -> u16 {
        // As for `u8`: a 16-bit store of an `fma` result would be compiled as a conversion.
        prmt::<0x4410>(to_level(v, 65535.0, mode.trunc_scale), 0) as u16
    }
    #[inline(always)]
    unsafe fn load4(p: *const u16) -> [f32; 4] {
        // SAFETY: forwarded from the caller (8-byte aligned, 4 readable samples).
        let [lo, hi] = unsafe { *p.cast::<[u32; 2]>() };
        // Sample i goes into the low half of 2^23's bit pattern (0x4B00_ssss).
        [
            prmt::<0x7510>(lo, MAGIC_BITS),
            prmt::<0x7532>(lo, MAGIC_BITS),
            prmt::<0x7510>(hi, MAGIC_BITS),
            prmt::<0x7532>(hi, MAGIC_BITS),
        ]
        .map(|bits| (f32::from_bits(bits) - TWO_23) * (1.0 / 65535.0))
    }
    #[inline(always)]
    unsafe fn store4(p: *mut u16, v: [f32; 4], mode: Store) {
        let [a, b, c, d] = levels4(v, 65535.0, mode);
        // SAFETY: forwarded from the caller (8-byte aligned, 4 writable samples).
        unsafe { *p.cast::<[u32; 2]>() = [prmt::<0x5410>(a, b), prmt::<0x5410>(c, d)] };
    }
}

/// 2^23: the `f32` whose bit pattern, with an integer n < 2^23 in its low mantissa bits, is
/// exactly 2^23 + n. Integers become `f32` this way, by a byte permute and a subtraction, instead
/// of the conversion instruction (`I2F`), which runs at a small fraction of the FMA rate. Only the
/// 4-sample loads of the tiled kernels use it: the one-sample loads keep `I2F`, one instruction
/// where this takes two, which is what kernels that load once per tap and are issue-bound want.
const TWO_23: f32 = 8_388_608.0;
/// The bit pattern of [`TWO_23`].
const MAGIC_BITS: u32 = 0x4B00_0000;

/// `v` clamped to [0, 1] (NaN to 0) and scaled by `levels` (at most 2^22), rounded to the nearest
/// integer (ties to even), returned in the low bits: adding 1.5 · 2^23 leaves the rounded integer
/// in the mantissa's low bits, which replaces the `F2I` conversion (a fraction of the FMA rate)
/// and the clamps around it with two full-rate instructions. Where `trunc_scale` is not 0,
/// truncated instead, unclamped ([`level_bits_as`]).
#[inline(always)]
fn to_level(v: f32, levels: f32, trunc_scale: f32) -> u32 {
    if trunc_scale == 0.0 {
        level_bits(saturate(v), levels)
    } else {
        trunc_bits(v, trunc_scale)
    }
}

/// [`to_level`] of 4 values, with one test of `mode` for the 4: each side is straight-line code
/// of its own store (the rounding side the code it was before truncation).
#[inline(always)]
fn levels4(v: [f32; 4], levels: f32, mode: Store) -> [u32; 4] {
    if mode.trunc_scale == 0.0 {
        v.map(|x| to_level(x, levels, 0.0))
    } else {
        v.map(|x| to_level(x, levels, mode.trunc_scale))
    }
}

/// `v`, already in [0, 1], scaled by `levels` and rounded as [`to_level`] does: one FMA.
#[inline(always)]
pub fn level_bits(v: f32, levels: f32) -> u32 {
    crate::device::fma(v, levels, 12_582_912.0).to_bits()
}

/// A level in the low bits: where `trunc_scale` is 0, `v` (already in [0, 1]) rounded as
/// [`level_bits`] does; else `v` (any value) truncated as [`trunc_bits`] does.
#[inline(always)]
pub fn level_bits_as(v: f32, levels: f32, trunc_scale: f32) -> u32 {
    if trunc_scale == 0.0 {
        level_bits(v, levels)
    } else {
        trunc_bits(v, trunc_scale)
    }
}

/// `v · trunc_scale` truncated toward zero, as scipy.ndimage's C cast of a result into an
/// integer array ([`Geometry::trunc_scale`]), as a word whose low 8 or 16 bits are the level
/// (out-of-range results wrapped modulo the type's range), for products of magnitude below
/// 2^24 (others, and NaN, give an unspecified level). The product rounded toward zero
/// (`mul.rz`) keeps its integer part (every integer below 2^24 is an `f32`), which `cvt.rzi`
/// (one `F2I.TRUNC`) returns: two issue slots, where a conversion-free sequence (a sign-chosen
/// bias, `fma.rz` and a two's complement negation) took five.
#[inline(always)]
fn trunc_bits(v: f32, trunc_scale: f32) -> u32 {
    let level: i32;
    // SAFETY: register-only instructions.
    unsafe {
        core::arch::asm!(
            "{{ .reg .f32 p;",
            "mul.rz.f32 p, {v}, {s};",
            "cvt.rzi.s32.f32 {l}, p; }}",
            l = out(reg32) level, v = in(reg32) v, s = in(reg32) trunc_scale, options(pure, nomem, nostack)
        )
    };
    level as u32
}

/// Byte `i` of `word` as an `f32` integer 0-255: the byte goes into the low byte of 2^23's bit
/// pattern (0x4B00_00bb), and 2^23 is subtracted (two full-rate instructions, where the
/// conversion runs at a quarter of the rate). `u8`'s `load4` does the same with immediate
/// selectors, which is what its kernels' schedules were measured with.
#[inline(always)]
pub fn byte_value(word: u32, i: u32) -> f32 {
    f32::from_bits(byte_perm(word, MAGIC_BITS, 0x7540 + i)) - TWO_23
}

/// `v` clamped to [0, 1] as `f32::clamp` does (NaN stays NaN), in two `FMNMX.NAN` where
/// `f32::clamp` compiles to four instructions.
#[inline(always)]
pub fn clamp_keeping_nan(v: f32) -> f32 {
    let c: f32;
    // SAFETY: register-only instructions.
    unsafe {
        core::arch::asm!(
            "min.NaN.f32 {c}, {v}, 0f3F800000;",
            "max.NaN.f32 {c}, {c}, 0f00000000;",
            c = out(reg32) c, v = in(reg32) v, options(pure, nomem, nostack)
        )
    };
    c
}

/// `v` clamped to [0, 1], NaN to 0, in one instruction (`cvt.sat`, an `FADD.SAT`).
#[inline(always)]
fn saturate(v: f32) -> f32 {
    let s: f32;
    // SAFETY: a register-only instruction.
    unsafe {
        core::arch::asm!("cvt.sat.f32.f32 {s}, {v};", s = out(reg32) s, v = in(reg32) v, options(pure, nomem, nostack))
    };
    s
}

/// PTX `prmt.b32` (byte permute) with the selector in a register: byte i of the result is byte
/// `selector`'s nibble i of the eight bytes `b:a` (0-3 from `a`, 4-7 from `b`). A selector the
/// compiler knows becomes the instruction's immediate in ptxas.
#[inline(always)]
pub fn byte_perm(a: u32, b: u32, selector: u32) -> u32 {
    let d: u32;
    // SAFETY: a register-only instruction.
    unsafe {
        core::arch::asm!("prmt.b32 {d}, {a}, {b}, {s};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, s = in(reg32) selector, options(pure, nomem, nostack))
    };
    d
}

/// PTX `prmt.b32` (byte permute): byte i of the result is byte `SEL`'s nibble i of the eight
/// bytes `b:a` (0-3 from `a`, 4-7 from `b`).
#[inline(always)]
fn prmt<const SEL: u32>(a: u32, b: u32) -> u32 {
    let d: u32;
    // SAFETY: a register-only instruction.
    unsafe {
        core::arch::asm!("prmt.b32 {d}, {a}, {b}, {s};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, s = const SEL, options(pure, nomem, nostack))
    };
    d
}
