//! The `float64` kernel: `f64` samples and taps, computed in `f64`, for a filter of any shape to
//! [`MAX_SIDE`] × [`MAX_SIDE`] (scipy's float64 arithmetic on the GPU).

/// The entry point (one sample type: `f64`).
pub const ENTRY: &str = "conv_direct_f64";

/// 32 × 8 threads, each computing [`PER_THREAD`] outputs down its column.
pub const BLOCK: (u32, u32) = (32, 8);
/// Neighbouring outputs per thread, down its column.
pub const PER_THREAD: u32 = 4;
/// Output tile of one block: 32 × 32 samples of one channel.
pub const TILE: (u32, u32) = (BLOCK.0, BLOCK.1 * PER_THREAD);
/// Loads a thread has in flight while it fills the tile.
pub const LOADS: usize = 4;
/// Longest side of a filter (the shared tile of a 127 × 127 filter takes 195 KiB).
pub const MAX_SIDE: u32 = 127;

/// Shared memory: the input tile of a `ky × kx` filter, `(32 + kx - 1) × (32 + ky - 1)` `f64`.
pub const fn shared_bytes(ky: u32, kx: u32) -> u32 {
    (TILE.0 + kx - 1) * (TILE.1 + ky - 1) * 8
}

/// Sizes and mode of one `f64` correlation, passed by value.
///
/// Images are interleaved (`channels` samples per pixel, every channel filtered), row-major,
/// packed, `images` of them one after another; output sample `(x, y)` is the sum over the taps
/// `(i, j)` of `taps[i·kx + j] · in(x + j - cx, y + i - cy)`, positions outside resolved by
/// `border` (one of [`border`](crate::launch::border), not `NONE`) or, for the constant
/// border, `cval`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Direct64 {
    /// The constant border's value.
    pub cval: f64,
    pub width: u32,
    pub height: u32,
    pub channels: u32,
    /// Taps down a column and along a row, at most [`MAX_SIDE`].
    pub ky: u32,
    pub kx: u32,
    /// The tap over the output sample: `cy < ky`, `cx < kx`.
    pub cy: u32,
    pub cx: u32,
    pub border: u32,
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::resolve,
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
    },
    crate::device::unroll,
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads produces a 32 × 32 output tile of one channel. It loads
/// the tile's input window, `(32 + kx - 1) × (32 + ky - 1)` samples, border-resolved, into shared
/// memory (consecutive threads on consecutive samples, four loads in flight per thread). Then each
/// thread takes the taps in order, each tap once (the same address for the whole warp, through the
/// read-only data cache) for its 4 outputs: 4 shared loads (one row apart) and 4 fused
/// multiply-adds, no predicate. The sums are fused multiply-adds in the taps' row-major order:
/// within `2n·2⁻⁵³·Σ|w|·max|x|` of the exact sum.
///
/// # Thread mapping
/// Block `(bx, by, z)`, thread `(tx, ty)` writes output samples `(bx·32 + tx, by·32 + 4·ty + o)`,
/// `o < 4`, of channel `z % channels` of image `z / channels`, where inside the image.
///
/// # Safety
/// `input` and `output` hold `images · width · height · channels` `f64` each, not overlapping;
/// `taps` points to `ky · kx` `f64`; `ky, kx <= MAX_SIDE`, `cy < ky`, `cx < kx`; launch with block
/// `BLOCK`, grid `(⌈width/32⌉, ⌈height/32⌉, channels · images)` and `shared_bytes(ky, kx)` bytes
/// of dynamic shared memory.
#[kernel]
pub unsafe fn conv_direct_f64(input: *const f64, output: *mut f64, g: Direct64, taps: *const f64) {
    // SAFETY: the caller follows the launch contract above.
    unsafe { direct_f64(input, output, &g, taps) }
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_direct_f64`.
///
/// # Safety
/// As for `conv_direct_f64`.
#[inline(always)]
unsafe fn direct_f64(input: *const f64, output: *mut f64, g: &Direct64, taps: *const f64) {
    let (w, h, ch) = (g.width as usize, g.height as usize, g.channels as usize);
    let (ky, kx) = (g.ky, g.kx);
    let (tw, th) = (TILE.0 + kx - 1, TILE.1 + ky - 1);
    let z = block_idx_z() as usize;
    let (image, c) = (z / ch, z % ch);
    let plane = w * h * ch;
    let (input, output) = (
        input.wrapping_add(image * plane),
        output.wrapping_add(image * plane),
    );
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let x0 = (block_idx_x() * TILE.0) as i32 - g.cx as i32;
    let y0 = (block_idx_y() * TILE.1) as i32 - g.cy as i32;
    let tile = dynamic_shared_mem::<f64>();
    let n = tw * th;
    let (tid, threads) = (ty * BLOCK.0 + tx, BLOCK.0 * BLOCK.1);
    // Tile sample e, border-resolved (or the constant).
    let fetch = |e: u32| {
        let ly = e / tw;
        let (yy, xx) = (
            resolve(y0 + ly as i32, h as i32, g.border),
            resolve(x0 + (e - ly * tw) as i32, w as i32, g.border),
        );
        if xx < 0 || yy < 0 {
            g.cval
        } else {
            // SAFETY: (xx, yy) resolved inside the image, which the kernel does not write.
            unsafe { load_nc(input.add((yy as usize * w + xx as usize) * ch + c)) }
        }
    };
    // Four loads in flight per thread before their stores, consecutive threads on consecutive
    // samples.
    let mut base = 0;
    while base < n {
        let mut v = [0.0f64; LOADS];
        unroll!(Q < 4; [0, 1, 2, 3] {
            let e = base + tid + Q as u32 * threads;
            if e < n {
                v[Q] = fetch(e);
            }
        });
        unroll!(Q < 4; [0, 1, 2, 3] {
            let e = base + tid + Q as u32 * threads;
            if e < n {
                // SAFETY: e < tw · th: inside the tile the launch allocates.
                unsafe { *tile.add(e as usize) = v[Q] };
            }
        });
        base += LOADS as u32 * threads;
    }
    sync_threads();
    let x = (block_idx_x() * TILE.0 + tx) as usize;
    let y = (block_idx_y() * TILE.1 + PER_THREAD * ty) as usize;
    if x >= w || y >= h {
        return;
    }
    let mut acc = [0.0f64; PER_THREAD as usize];
    let rows = [0, tw as usize, 2 * tw as usize, 3 * tw as usize];
    for i in 0..ky {
        // Tile row 4·ty + i from column tx: the window of output 0 under filter row i; output
        // o reads the row o below.
        let row = tile.wrapping_add(((PER_THREAD * ty + i) * tw + tx) as usize);
        let row_taps = taps.wrapping_add((i * kx) as usize);
        for j in 0..kx as usize {
            // SAFETY: j < kx: one of the ky · kx taps.
            let t = unsafe { load_nc(row_taps.add(j)) };
            unroll!(O < 4; [0, 1, 2, 3] {
                // SAFETY: row 4·ty + i + O < 32 + ky - 1, column tx + j < 32 + kx - 1: in the tile.
                let v = unsafe { *row.add(rows[O] + j) };
                acc[O] = core::intrinsics::fmaf64(v, t, acc[O]);
            });
        }
    }
    unroll!(O < 4; [0, 1, 2, 3] {
        if y + O < h {
            // SAFETY: (x, y + O) is inside the image.
            unsafe { *output.add(((y + O) * w + x) * ch + c) = acc[O] };
        }
    });
}

#[cfg(target_arch = "nvptx64")]
/// Reads an `f64` of global memory through the read-only data cache (`ld.global.nc.f64`).
///
/// # Safety
/// `p` is a global-memory address of a readable `f64` not written during the kernel.
#[inline(always)]
unsafe fn load_nc(p: *const f64) -> f64 {
    let v: f64;
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!("ld.global.nc.f64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(pure, readonly, nostack))
    };
    v
}
