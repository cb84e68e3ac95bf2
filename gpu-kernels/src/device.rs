//! A small device-side API so kernels read like the textbook: indices, barrier, shared tile, taps,
//! sample types, border handling and the sources a kernel reads pixels from.

use crate::launch::{ExactTaps, Geometry, border};
use core::arch::nvptx;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}

/// `threadIdx.y`.
#[inline(always)]
pub fn thread_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_y() }
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_x() }
}

/// `blockIdx.y`.
#[inline(always)]
pub fn block_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_y() }
}

/// `blockIdx.z`: the channel every kernel's block works on.
#[inline(always)]
pub fn block_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_z() }
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_x() }
}

/// `blockDim.y`.
#[inline(always)]
pub fn block_dim_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_y() }
}

/// The global `(x, y)` of this thread: `blockIdx * blockDim + threadIdx` on both axes.
#[inline(always)]
pub fn global_xy() -> (u32, u32) {
    (
        block_x() * block_dim_x() + thread_x(),
        block_y() * block_dim_y() + thread_y(),
    )
}

/// `__syncthreads()`: every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: callers only call this from control flow that all threads of the block reach.
    unsafe { nvptx::_syncthreads() }
}

/// The block's dynamic shared memory (`extern __shared__`), sized by the host at launch.
#[inline(always)]
pub fn shared_tile() -> *mut f32 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f32>()
}

/// Four `f32` with 16-byte alignment: one vector load or store (`ld.shared.v4`, `st.global.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct F32x4(pub [f32; 4]);

/// The block's dynamic shared memory as 16-byte-aligned vectors (same memory as [`shared_tile`]).
#[inline(always)]
pub fn shared_tile_x4() -> *mut F32x4 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<F32x4>()
}

/// Fused multiply-add `a * b + c` with one rounding (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

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

/// Maps coordinate `i` on an axis of `n` pixels into the image by the border `mode`; -1 means
/// "outside, reads as 0" (the zero border). [`border::NONE`] returns `i` unchanged.
#[inline(always)]
pub fn resolve(i: i32, n: i32, mode: u32) -> i32 {
    if (i as u32) < (n as u32) || mode == border::NONE {
        return i;
    }
    match mode {
        border::REPLICATE => {
            if i < 0 {
                0
            } else {
                n - 1
            }
        }
        border::REFLECT => {
            if n == 1 {
                return 0;
            }
            let period = 2 * (n - 1);
            let m = i.rem_euclid(period);
            if m >= n { period - m } else { m }
        }
        border::WRAP => i.rem_euclid(n),
        _ => -1,
    }
}

/// Where a kernel reads input samples of its channel from. Coordinates are already resolved by
/// [`resolve`] (so inside the image, except for a texture that handles the border itself).
pub trait Source {
    fn fetch(&self, x: i32, y: i32) -> f32;
}

/// Interleaved samples in global memory, read with ordinary loads.
#[derive(Clone, Copy)]
pub struct Global<T> {
    pub ptr: *const T,
    pub width: u32,
    pub channels: u32,
    pub channel: u32,
}

impl<T> Global<T> {
    /// The source of this block's channel of `input`, laid out as `g` describes.
    #[inline(always)]
    pub fn new(ptr: *const T, g: &Geometry) -> Self {
        Self {
            ptr,
            width: g.in_width,
            channels: g.channels,
            channel: block_z(),
        }
    }

    #[inline(always)]
    fn at(&self, x: i32, y: i32) -> *const T {
        let index =
            (y as usize * self.width as usize + x as usize) * self.channels as usize + self.channel as usize;
        self.ptr.wrapping_add(index)
    }
}

impl<T: Sample> Source for Global<T> {
    #[inline(always)]
    fn fetch(&self, x: i32, y: i32) -> f32 {
        // SAFETY: callers pass resolved coordinates inside the image the pointer addresses.
        unsafe { T::load(self.at(x, y)) }
    }
}

/// Like [`Global`], but every load goes through the read-only data cache.
#[derive(Clone, Copy)]
pub struct ReadOnly<T>(pub Global<T>);

impl<T: Sample> Source for ReadOnly<T> {
    #[inline(always)]
    fn fetch(&self, x: i32, y: i32) -> f32 {
        // SAFETY: as for Global; the input is never written by a convolution kernel.
        unsafe { T::load_nc(self.0.at(x, y)) }
    }
}

/// A 2D texture object of one channel whose texel row is the image's interleaved sample row
/// (`width · channels` texels); the texture unit converts integer samples to [0, 1].
#[derive(Clone, Copy)]
pub struct Texture {
    pub object: u64,
    pub channels: u32,
    pub channel: u32,
}

impl Source for Texture {
    #[inline(always)]
    fn fetch(&self, x: i32, y: i32) -> f32 {
        // Float coordinates at texel centres: the address mode (clamp, border) applies to these,
        // while integer-coordinate fetches bypass it.
        let tx = (x * self.channels as i32 + self.channel as i32) as f32 + 0.5;
        let ty = y as f32 + 0.5;
        let (v, _, _, _): (f32, f32, f32, f32);
        // SAFETY: `object` is a valid texture object handle (the host creates it for this launch);
        // out-of-range coordinates are handled by its address mode.
        unsafe {
            core::arch::asm!(
                "tex.2d.v4.f32.f32 {{{a}, {b}, {c}, {d}}}, [{t}, {{{x}, {y}}}];",
                a = out(reg32) v, b = out(reg32) _, c = out(reg32) _, d = out(reg32) _,
                t = in(reg64) self.object, x = in(reg32) tx, y = in(reg32) ty,
                options(pure, readonly, nostack),
            );
        }
        v
    }
}

/// Whether this block's channel is the alpha channel of an RGBA image (copied, not filtered).
#[inline(always)]
pub fn is_alpha(g: &Geometry, channel: u32) -> bool {
    g.channels == 4 && channel == 3
}

/// The address of output sample `(x, y)` of this block's channel.
#[inline(always)]
pub fn out_index(g: &Geometry, x: u32, y: u32, channel: u32) -> usize {
    (y as usize * g.out_width as usize + x as usize) * g.channels as usize + channel as usize
}

/// The correlation at output pixel `(x, y)` reading every tap from `src`, borders per `g`.
/// Shared by the one-thread-per-sample kernels, which differ only in where input and taps live.
#[inline(always)]
pub fn correlate(g: &Geometry, src: &impl Source, x: u32, y: u32, tap: impl Fn(u32) -> f32) -> f32 {
    let (r, k) = (g.radius as i32, 2 * g.radius + 1);
    let x0 = (x + g.offset) as i32 - r;
    let y0 = (y + g.offset) as i32 - r;
    let mut acc = 0.0f32;
    for i in 0..k {
        let yy = resolve(y0 + i as i32, g.in_height as i32, g.border);
        if yy < 0 && g.border != border::NONE {
            continue;
        }
        for j in 0..k {
            let xx = resolve(x0 + j as i32, g.in_width as i32, g.border);
            if xx >= 0 || g.border == border::NONE {
                acc = fma(src.fetch(xx, yy), tap(i * k + j), acc);
            }
        }
    }
    acc
}

/// The input value at `(x, y)` after border resolution, or 0 where the result is outside the image
/// (the zero border; with [`border::NONE`], positions no output uses, which must not be read).
#[inline(always)]
pub fn fetch_or_zero(g: &Geometry, src: &impl Source, x: i32, y: i32) -> f32 {
    let (xx, yy) = (
        resolve(x, g.in_width as i32, g.border),
        resolve(y, g.in_height as i32, g.border),
    );
    if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
        src.fetch(xx, yy)
    } else {
        0.0
    }
}

/// The correlation over the `k × k` window of a shared-memory tile whose top-left element is
/// `window`, rows `stride` apart.
///
/// # Safety
/// The whole window lies inside the block's shared tile, written before the last barrier.
#[inline(always)]
pub unsafe fn correlate_tile(window: *const f32, stride: u32, k: u32, taps: ParamTaps) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..k {
        let row = window.wrapping_add((i * stride) as usize);
        for j in 0..k {
            // SAFETY: inside the window (caller's contract).
            acc = fma(unsafe { *row.add(j as usize) }, taps.get(i * k + j), acc);
        }
    }
    acc
}

/// Writes output sample `(x, y, c)`: clamped/rounded for the output type, except RGBA's alpha,
/// which is stored as read.
///
/// # Safety
/// `(x, y, c)` is inside the output `g` describes.
#[inline(always)]
pub unsafe fn store_sample<T: Sample>(output: *mut T, g: &Geometry, x: u32, y: u32, c: u32, v: f32) {
    let clamp = g.clamp != 0 && !is_alpha(g, c);
    // SAFETY: forwarded from the caller.
    unsafe { *output.add(out_index(g, x, y, c)) = T::store(v, clamp) };
}

/// The one-thread-per-output-sample kernel body: thread `(x, y)` of block plane `z` writes output
/// sample `(x, y, z)`: the correlation, or for RGBA's alpha the input sample it is centred on.
///
/// # Safety
/// `output` points to `out_width · out_height · channels` samples; `src` covers the input.
#[inline(always)]
pub unsafe fn per_sample<T: Sample>(
    g: &Geometry,
    src: &impl Source,
    output: *mut T,
    tap: impl Fn(u32) -> f32,
) {
    let (x, y) = global_xy();
    let c = block_z();
    if x >= g.out_width || y >= g.out_height {
        return;
    }
    let v = if is_alpha(g, c) {
        src.fetch((x + g.offset) as i32, (y + g.offset) as i32)
    } else {
        correlate(g, src, x, y, tap)
    };
    // SAFETY: (x, y, c) is inside the output.
    unsafe { store_sample(output, g, x, y, c, v) };
}

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
    /// `base` must be the address of a `Taps` kernel parameter of the running kernel.
    #[inline(always)]
    pub unsafe fn from_param_address(base: u64) -> Self {
        Self { base }
    }

    /// Tap number `index` (row-major); `index` must be below `MAX_TAPS`.
    #[inline(always)]
    pub fn get(self, index: u32) -> f32 {
        let value: f32;
        // SAFETY: `base` addresses a Taps parameter of `MAX_TAPS` f32 values (see `from_param_address`)
        // and every caller keeps `index` below `k * k <= MAX_TAPS`.
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
}

/// Where a kernel reads its taps from: a kernel parameter through its address ([`ParamTaps`],
/// any index), or a by-value array parameter indexed directly (only with indices known at compile
/// time, which become constant-bank operands of the instructions that use them).
pub trait TapRead: Copy {
    /// Tap number `index` (row-major).
    fn tap(self, index: usize) -> f32;
}

impl TapRead for ParamTaps {
    #[inline(always)]
    fn tap(self, index: usize) -> f32 {
        self.get(index as u32)
    }
}

impl<const N: usize> TapRead for &ExactTaps<N> {
    #[inline(always)]
    fn tap(self, index: usize) -> f32 {
        self.0[index]
    }
}

/// `param_taps!(kernel_name, N)`: the [`ParamTaps`] of parameter number `N` (counting from 0) of
/// the kernel `kernel_name`. Must be used in that kernel's own body, since PTX names parameters
/// `<kernel>_param_<N>` only there.
macro_rules! param_taps {
    ($kernel:ident, $index:literal) => {{
        let base: u64;
        // SAFETY: only takes the address of a parameter of the enclosing kernel.
        unsafe {
            core::arch::asm!(
                concat!("mov.b64 {b}, ", stringify!($kernel), "_param_", stringify!($index), ";"),
                b = out(reg64) base,
                options(pure, nomem, nostack),
            );
            $crate::device::ParamTaps::from_param_address(base)
        }
    }};
}

/// `unroll!(N < bound; [0, 1, ...] { body })` pastes `body` once per listed literal, with the
/// constant `N` set to it, each copy guarded by `N < bound`. With `bound` known at compile time the
/// surplus copies vanish, so every register-array index in `body` is a constant: LLVM alone stops
/// unrolling long loops and would otherwise move such arrays to local memory.
macro_rules! unroll {
    ($n:ident < $bound:expr; [$($v:literal),*] $body:block) => {$({
        const $n: usize = $v;
        if $n < $bound $body
    })*};
}

/// Writes a thread's 4 × PY patch of outputs (PY ≤ 4) with top-left `(x, y)` in channel `c`: one vector
/// store per row where the 4 samples are aligned and inside a single-channel output, else sample by
/// sample, skipping samples outside the output. RGBA's alpha is stored as it is.
///
/// # Safety
/// `output` points to the output `g` describes and `(x, y)` is inside it.
#[inline(always)]
pub unsafe fn store_patch<T: Sample, const PY: usize>(
    output: *mut T,
    g: &Geometry,
    x: u32,
    y: u32,
    c: u32,
    acc: &[[f32; 4]; PY],
) {
    let clamp = g.clamp != 0 && !is_alpha(g, c);
    let vector_store = g.channels == 1 && g.out_width.is_multiple_of(4) && x + 3 < g.out_width;
    unroll!(OY < PY; [0, 1, 2, 3] {
        let yy = y + OY as u32;
        if yy < g.out_height {
            if vector_store {
                // SAFETY: 4 pixels of one channel inside the output, 4-aligned (x and the row
                // width are multiples of 4).
                unsafe { T::store4(output.add(out_index(g, x, yy, c)), acc[OY], clamp) };
            } else {
                unroll!(OX < 4; [0, 1, 2, 3] {
                    let xx = x + OX as u32;
                    if xx < g.out_width {
                        // SAFETY: (xx, yy, c) is inside the output.
                        unsafe { *output.add(out_index(g, xx, yy, c)) = T::store(acc[OY][OX], clamp) };
                    }
                });
            }
        }
    });
}
