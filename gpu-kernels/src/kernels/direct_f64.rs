//! The `float64` kernel: `f64` samples and taps, computed in `f64`, for a filter of any shape to
//! [`MAX_SIDE`] × [`MAX_SIDE`] (scipy's float64 arithmetic on the GPU).

/// The entry point (one sample type: `f64`).
pub const ENTRY: &str = "conv_direct_f64";

/// 32 × 4 threads, each computing [`PER_THREAD`] outputs down its column.
pub const BLOCK: (u32, u32) = (32, 4);
/// Neighbouring outputs per thread, down its column.
pub const PER_THREAD: u32 = 8;
/// Output tile of one block: 32 × 32 samples of one channel.
pub const TILE: (u32, u32) = (BLOCK.0, BLOCK.1 * PER_THREAD);
/// Loads a thread has in flight while it fills the tile.
pub const LOADS: usize = 4;
/// Filter rows a thread takes at once: for each column of the filter it reads
/// `PER_THREAD + ROWS - 1` samples and `ROWS` taps into registers for `PER_THREAD · ROWS` fused
/// multiply-adds.
pub const ROWS: u32 = 8;
/// Longest side of a filter (the shared tile of a 127 × 127 filter takes 196 KiB).
pub const MAX_SIDE: u32 = 127;

/// The input tile's column stride in `f64`: `32 + ky - 1` rounded up to an odd count, so that
/// the 16 threads of a half-warp, one column apart, read 16 different bank pairs.
pub const fn column_stride(ky: u32) -> u32 {
    (TILE.1 + ky - 1) | 1
}

/// Shared memory: the input tile of a `ky × kx` filter, `32 + kx - 1` columns of
/// [`column_stride`] `f64`.
pub const fn shared_bytes(ky: u32, kx: u32) -> u32 {
    (TILE.0 + kx - 1) * column_stride(ky) * 8
}

/// Sizes and mode of one `f64` correlation, passed by value.
///
/// Images are interleaved (`channels` samples per pixel, every channel filtered), row-major,
/// packed, `images` of them one after another; output sample `(x, y)` is the sum over the taps
/// `(i, j)` of `taps[j·ky + i] · in(x + j - cx, y + i - cy)` (the taps column by column),
/// positions outside resolved by `border` (one of [`border`](crate::launch::border), not `NONE`)
/// or, for the constant border, `cval`.
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
/// A block of [`BLOCK`] = 32 × 4 threads produces a 32 × 32 output tile of one channel. It loads
/// the tile's input window, `(32 + kx - 1) × (32 + ky - 1)` samples, into shared memory column by
/// column, consecutive threads on consecutive samples of a row: where the window lies inside the
/// image, as asynchronous copies (`cp.async`, every copy of a thread in flight at once, none
/// through registers); elsewhere border-resolved through registers, four loads in flight. Then
/// each thread takes the filter [`ROWS`] rows at a time: for each filter column it reads the
/// `8 + ROWS - 1` tile samples under its 8 outputs (one column of the tile: constant offsets, no
/// bank conflict) and the `ROWS` taps (the same addresses for the whole warp, through the
/// read-only data cache) into registers, then does `8 · ROWS` fused multiply-adds. A tile sample
/// is read from shared memory `(8 + ROWS - 1) / (8 · ROWS)` times per output and tap (0.3 for a
/// 5 × 5 filter, against 1 for a sample per tap). Each output's sum is a chain of fused
/// multiply-adds over its taps: within `2n·2⁻⁵³·Σ|w|·max|x|` of the exact sum.
///
/// # Thread mapping
/// Block `(bx, by, z)`, thread `(tx, ty)` writes output samples `(bx·32 + tx, by·32 + 8·ty + o)`,
/// `o < 8`, of channel `z % channels` of image `z / channels`, where inside the image.
///
/// # Safety
/// `input` and `output` hold `images · width · height · channels` `f64` each, not overlapping;
/// `taps` points to `ky · kx` `f64`, column by column (`taps[j·ky + i]` is filter row `i`,
/// column `j`); `ky, kx <= MAX_SIDE`, `cy < ky`, `cx < kx`; launch with block `BLOCK`, grid
/// `(⌈width/32⌉, ⌈height/32⌉, channels · images)` and `shared_bytes(ky, kx)` bytes of dynamic
/// shared memory.
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
    let z = block_idx_z() as usize;
    let (image, c) = (z / ch, z % ch);
    let plane = w * h * ch;
    let (input, output) = (
        input.wrapping_add(image * plane + c),
        output.wrapping_add(image * plane + c),
    );
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let tile = dynamic_shared_mem::<f64>();
    // SAFETY: forwarded from the caller; the barrier orders the tile's stores before its reads.
    unsafe { fill_tile(input, tile, g, ty * BLOCK.0 + tx) };
    sync_threads();
    let x = (block_idx_x() * TILE.0 + tx) as usize;
    let y = (block_idx_y() * TILE.1 + PER_THREAD * ty) as usize;
    if x >= w || y >= h {
        return;
    }
    let stride = column_stride(ky) as usize;
    // Tile column tx, row 8·ty: the window of output 0 under filter row 0.
    let column = tile.wrapping_add(tx as usize * stride + (PER_THREAD * ty) as usize);
    let mut acc = [0.0f64; PER_THREAD as usize];
    let mut i0 = 0;
    while i0 < ky {
        let rows = if ky - i0 < ROWS { ky - i0 } else { ROWS };
        let (at, t) = (column.wrapping_add(i0 as usize), taps.wrapping_add(i0 as usize));
        // SAFETY: rows `i0 .. i0 + rows` of the filter, read as the contract of `rows_of` says.
        unsafe {
            match rows {
                1 => rows_of::<1>(at, stride, t, ky, kx, &mut acc),
                2 => rows_of::<2>(at, stride, t, ky, kx, &mut acc),
                3 => rows_of::<3>(at, stride, t, ky, kx, &mut acc),
                4 => rows_of::<4>(at, stride, t, ky, kx, &mut acc),
                5 => rows_of::<5>(at, stride, t, ky, kx, &mut acc),
                6 => rows_of::<6>(at, stride, t, ky, kx, &mut acc),
                7 => rows_of::<7>(at, stride, t, ky, kx, &mut acc),
                _ => rows_of::<8>(at, stride, t, ky, kx, &mut acc),
            }
        }
        i0 += rows;
    }
    unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        if y + O < h {
            // SAFETY: (x, y + O) is inside the image.
            unsafe { *output.add(((y + O) * w + x) * ch) = acc[O] };
        }
    });
}

#[cfg(target_arch = "nvptx64")]
/// Fills the shared tile, column-major with [`column_stride`], from the image's channel at
/// `input` (its sample `(x, y)` at `input[(y·w + x)·channels]`): thread `tid` of the block takes
/// window samples `tid, tid + 128, ...` in row-major order, as asynchronous copies where the
/// window lies inside the image, else border-resolved, four loads in flight.
///
/// # Safety
/// `input` as in `conv_direct_f64`'s contract, moved to the block's image and channel; `tile`
/// holds `shared_bytes(ky, kx)` bytes.
#[inline(always)]
unsafe fn fill_tile(input: *const f64, tile: *mut f64, g: &Direct64, tid: u32) {
    let (w, h, ch) = (g.width as i32, g.height as i32, g.channels as usize);
    let (tw, th) = (TILE.0 + g.kx - 1, TILE.1 + g.ky - 1);
    let stride = column_stride(g.ky);
    let x0 = (block_idx_x() * TILE.0) as i32 - g.cx as i32;
    let y0 = (block_idx_y() * TILE.1) as i32 - g.cy as i32;
    let inside = x0 >= 0 && y0 >= 0 && x0 + tw as i32 <= w && y0 + th as i32 <= h;
    let threads = BLOCK.0 * BLOCK.1;
    // Window sample tid and the step between a thread's samples, as (row, column).
    let (mut ly, mut lx) = (tid / tw, tid % tw);
    let (step_y, step_x) = (threads / tw, threads % tw);
    let fetch = |ly: u32, lx: u32| {
        let (yy, xx) = (
            resolve(y0 + ly as i32, h, g.border),
            resolve(x0 + lx as i32, w, g.border),
        );
        if xx < 0 || yy < 0 {
            return g.cval;
        }
        // SAFETY: (xx, yy) inside the image, which the kernel does not write.
        unsafe { load_nc(input.add((yy as usize * w as usize + xx as usize) * ch)) }
    };
    if inside {
        while ly < th {
            // SAFETY: (x0 + lx, y0 + ly) inside the image (`inside`); (ly, lx) inside the tile.
            unsafe {
                copy_async(
                    tile.add((lx * stride + ly) as usize),
                    input.add(((y0 + ly as i32) as usize * w as usize + (x0 + lx as i32) as usize) * ch),
                )
            };
            (ly, lx) = (ly + step_y, lx + step_x);
            if lx >= tw {
                (ly, lx) = (ly + 1, lx - tw);
            }
        }
        wait_async();
        return;
    }
    while ly < th {
        let mut at = [(0u32, 0u32); LOADS];
        let mut v = [0.0f64; LOADS];
        unroll!(Q < 4; [0, 1, 2, 3] {
            at[Q] = (ly, lx);
            if ly < th {
                v[Q] = fetch(ly, lx);
            }
            (ly, lx) = (ly + step_y, lx + step_x);
            if lx >= tw {
                (ly, lx) = (ly + 1, lx - tw);
            }
        });
        unroll!(Q < 4; [0, 1, 2, 3] {
            let (ry, rx) = at[Q];
            if ry < th {
                // SAFETY: row ry < th, column rx < tw: inside the tile the launch allocates.
                unsafe { *tile.add((rx * stride + ry) as usize) = v[Q] };
            }
        });
    }
}

#[cfg(target_arch = "nvptx64")]
/// Adds `R` filter rows to a thread's 8 outputs: for each filter column `j`, the tile samples
/// `at[j·stride + m]`, `m < 8 + R - 1`, and the taps `taps[j·ky + k]`, `k < R`, go to
/// registers; output `o` adds sample `o + k` times tap `k`.
///
/// # Safety
/// `at` points into the shared tile with `at[j·stride + m]` inside it for `j < kx`,
/// `m < 8 + R - 1`; `taps[j·ky + k]` readable for `j < kx`, `k < R`.
#[inline(always)]
unsafe fn rows_of<const R: usize>(
    at: *const f64,
    stride: usize,
    taps: *const f64,
    ky: u32,
    kx: u32,
    acc: &mut [f64; PER_THREAD as usize],
) {
    let (mut at, mut taps) = (at, taps);
    for _ in 0..kx {
        let mut v = [0.0f64; 15];
        unroll!(M < PER_THREAD as usize + R - 1; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
            // SAFETY: M < 8 + R - 1: inside the tile (the contract).
            v[M] = unsafe { *at.add(M) };
        });
        let mut t = [0.0f64; 8];
        unroll!(K < R; [0, 1, 2, 3, 4, 5, 6, 7] {
            // SAFETY: K < R: one of the taps (the contract).
            t[K] = unsafe { load_nc(taps.add(K)) };
        });
        unroll!(K < R; [0, 1, 2, 3, 4, 5, 6, 7] {
            unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
                acc[O] = core::intrinsics::fmaf64(v[O + K], t[K], acc[O]);
            });
        });
        (at, taps) = (at.wrapping_add(stride), taps.wrapping_add(ky as usize));
    }
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

#[cfg(target_arch = "nvptx64")]
/// Starts a copy of one `f64` from global to shared memory (`cp.async.ca.shared.global`, 8
/// bytes), finished by [`wait_async`].
///
/// # Safety
/// `dst` points into the block's shared memory, `src` to a readable `f64` of global memory.
#[inline(always)]
unsafe fn copy_async(dst: *mut f64, src: *const f64) {
    // SAFETY: forwarded from the caller.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 sa; .reg .u32 sb; cvta.to.shared.u64 sa, {d}; cvt.u32.u64 sb, sa; cp.async.ca.shared.global [sb], [{s}], 8; }}",
            d = in(reg64) dst, s = in(reg64) src, options(nostack)
        )
    };
}

#[cfg(target_arch = "nvptx64")]
/// Waits for the thread's copies of [`copy_async`] (`cp.async.wait_all`).
#[inline(always)]
fn wait_async() {
    // SAFETY: waits for this thread's own copies; touches nothing else.
    unsafe { core::arch::asm!("cp.async.wait_all;", options(nostack)) };
}
