//! Sample types: how `u8`, `u16` and `f32` samples are read as values in [0, 1] and written back,
//! one at a time or as 4-sample vectors.

/// Four `f32` with 16-byte alignment: one vector load or store (`ld.shared.v4`, `st.global.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct F32x4(pub [f32; 4]);

/// A sample type: how it is read as a value in [0, 1] (`f32`: as is) and written back.
pub trait Sample: Copy {
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
    /// Converts a value back: integers are clamped to [0, 1] and rounded to the nearest level;
    /// `f32` is clamped only if `clamp`.
    fn store(v: f32, clamp: bool) -> Self;

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
    unsafe fn store4(p: *mut Self, v: [f32; 4], clamp: bool) {
        // SAFETY: forwarded from the caller; the default writes sample by sample.
        unsafe {
            for (i, x) in v.into_iter().enumerate() {
                *p.add(i) = Self::store(x, clamp);
            }
        }
    }
}

impl Sample for f32 {
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
    fn store(v: f32, clamp: bool) -> f32 {
        if clamp { v.clamp(0.0, 1.0) } else { v }
    }
    #[inline(always)]
    unsafe fn load4(p: *const f32) -> [f32; 4] {
        // SAFETY: forwarded from the caller (16-byte aligned, 4 readable values).
        unsafe { (*p.cast::<F32x4>()).0 }
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: [f32; 4], clamp: bool) {
        // SAFETY: forwarded from the caller (16-byte aligned, 4 writable values).
        unsafe { *p.cast::<F32x4>() = F32x4(v.map(|x| Self::store(x, clamp))) };
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
    fn store(v: f32, _clamp: bool) -> u8 {
        (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
    }
    #[inline(always)]
    unsafe fn load4(p: *const u8) -> [f32; 4] {
        // SAFETY: forwarded from the caller (4-byte aligned, 4 readable bytes).
        let bytes = unsafe { *p.cast::<u32>() }.to_le_bytes();
        bytes.map(|b| f32::from(b) * (1.0 / 255.0))
    }
    #[inline(always)]
    unsafe fn store4(p: *mut u8, v: [f32; 4], clamp: bool) {
        // SAFETY: forwarded from the caller (4-byte aligned, 4 writable bytes).
        unsafe { *p.cast::<u32>() = u32::from_le_bytes(v.map(|x| Self::store(x, clamp))) };
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
    fn store(v: f32, _clamp: bool) -> u16 {
        (v.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16
    }
    #[inline(always)]
    unsafe fn load4(p: *const u16) -> [f32; 4] {
        // SAFETY: forwarded from the caller (8-byte aligned, 4 readable samples).
        let bits = unsafe { *p.cast::<u64>() };
        [0, 16, 32, 48].map(|shift| f32::from((bits >> shift) as u16) * (1.0 / 65535.0))
    }
    #[inline(always)]
    unsafe fn store4(p: *mut u16, v: [f32; 4], clamp: bool) {
        let [a, b, c, d] = v.map(|x| u64::from(Self::store(x, clamp)));
        // SAFETY: forwarded from the caller (8-byte aligned, 4 writable samples).
        unsafe { *p.cast::<u64>() = a | b << 16 | c << 32 | d << 48 };
    }
}
