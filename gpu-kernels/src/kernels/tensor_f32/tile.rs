//! The `tensor-f32` kernel's load phase: a block's input tile split into FP16 high and low planes
//! in shared memory, and the scale each channel's tile is split at.

use super::Shape;
use crate::device::mma::{load_global_words2, pack_f16x2, split_f16x2};
use crate::device::thread::{sync_threads, warp_max};
use crate::device::{Bytes16, resolve, unroll};
use crate::launch::Geometry;

/// Runs of 4 pixels a gray thread loads before storing any, so their latencies overlap.
const LOAD_BATCH: usize = 4;
/// The same for RGB and RGBA threads, which load every channel of a run.
const COLOUR_BATCH: usize = 2;

/// A block's input tile of a `CH`-channel image for radius `R`: where it lies in the image and
/// where its planes go. Arrays of filtered channels have room for 3; a gray block uses the first.
pub(super) struct Tile<'a, const R: usize, const CH: usize> {
    pub(super) g: &'a Geometry,
    /// The image's samples (`CH` interleaved a pixel).
    pub(super) samples: *const f32,
    /// The image channel of the block's first filtered channel.
    pub(super) channel: u32,
    /// The input column and row of the tile's column 0 and row 0.
    pub(super) x0: i32,
    pub(super) y0: i32,
    /// Each filtered channel's planes in shared memory: its high parts', then its low parts'
    /// (words of two halves, `stride` words a row).
    pub(super) planes: *mut u32,
    /// Whether the image's rows and the tile's first column are multiples of 4 pixels.
    pub(super) aligned: bool,
    /// Whether the tile lies wholly inside the image.
    pub(super) whole: bool,
}

impl<'a, const R: usize, const CH: usize> Tile<'a, R, CH> {
    /// The tile at input column `x0` and row `y0`.
    #[inline(always)]
    pub(super) fn new(
        g: &'a Geometry,
        samples: *const f32,
        channel: u32,
        (x0, y0): (i32, i32),
        planes: *mut u32,
    ) -> Self {
        let (columns, rows) = (Shape::<R, CH>::COLUMNS, Shape::<R, CH>::ROWS);
        Self {
            g,
            samples,
            channel,
            x0,
            y0,
            planes,
            aligned: g.in_width.is_multiple_of(4) && x0 % 4 == 0,
            whole: x0 >= 0 && y0 >= 0 && x0 as u32 + columns <= g.in_width && y0 as u32 + rows <= g.in_height,
        }
    }

    /// Stores channel `ch`'s tile samples 4q .. 4q + 4 of row `row`, times `scale`, as their FP16
    /// parts, and raises `largest` to their largest finite magnitude's bits plus 2^23: non-finite
    /// magnitudes (bits from 0x7F80_0000) become negative as `i32` and never win.
    #[inline(always)]
    fn put(&self, row: u32, q: u32, ch: usize, v: [f32; 4], scale: f32, largest: &mut i32) {
        let (stride, plane_words) = (Shape::<R, CH>::STRIDE, Shape::<R, CH>::PLANE_WORDS);
        // Written out (a `for` over the array left its iterator in local memory here).
        unroll!(I < 4; [0, 1, 2, 3] {
            *largest = (*largest).max(((v[I].to_bits() & 0x7FFF_FFFF) + 0x0080_0000) as i32);
        });
        let [a, b, c2, d] = v.map(|x| x * scale);
        let ((h01, l01), (h23, l23)) = (split_f16x2(a, b), split_f16x2(c2, d));
        let at = 2 * ch * plane_words + (row * stride + 2 * q) as usize;
        // SAFETY: words 2q, 2q + 1 of the row in each of the channel's planes (2q + 1 < columns / 2
        // <= stride), 8-aligned (stride, plane_words and the maxima's words are even).
        unsafe {
            *self.planes.add(at).cast::<u64>() = u64::from(h01) | u64::from(h23) << 32;
            *self.planes.add(at + plane_words).cast::<u64>() = u64::from(l01) | u64::from(l23) << 32;
        }
    }

    /// Filtered channel `ch`'s sample the border rule reads for tile position (col, row), or the
    /// constant outside the image.
    #[inline(always)]
    fn resolved(&self, col: u32, row: u32, ch: usize) -> f32 {
        let g = self.g;
        let xx = resolve(self.x0 + col as i32, g.in_width as i32, g.border);
        let yy = resolve(self.y0 + row as i32, g.in_height as i32, g.border);
        if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
            let at = (yy as usize * g.in_width as usize + xx as usize) * CH + self.channel as usize + ch;
            // SAFETY: (xx, yy) is inside the image.
            unsafe { *self.samples.add(at) }
        } else {
            // Outside: the constant border, or (border NONE) a position no output uses.
            g.cval
        }
    }

    /// The filtered channels' samples of the 4 pixels from pixel `pixel` on (inside the image, the
    /// callers check, and vector loads: gray rows of whole vectors, or colour): for gray one
    /// vector, 16-aligned (the vector's column and the width are multiples of 4; the host's
    /// buffers are 256-byte aligned); for RGB and RGBA blocks of three channels `CH` vectors
    /// where 4 pixels from a multiple of 4 columns on are whole vectors (always for RGBA, 16 bytes
    /// a pixel; for RGB where `aligned`), 16-aligned likewise; else samples `CH` apart one by one.
    #[inline(always)]
    fn load_pixels(&self, pixel: usize) -> [[f32; 4]; 3] {
        let samples = self.samples;
        let mut v = [[0.0f32; 4]; 3];
        if CH == 1 {
            // SAFETY: as above.
            v[0] = unsafe { Bytes16::load_global(samples.add(pixel).cast::<u8>()) }
                .0
                .map(f32::from_bits);
        } else if Shape::<R, CH>::PLANES == 3 && (CH == 4 || self.aligned) {
            let mut words = [0u32; 16];
            unroll!(W < CH; [0, 1, 2, 3] {
                // SAFETY: as above; vector W of the 4 pixels' `4 · CH` samples.
                let w = unsafe { Bytes16::load_global(samples.add(pixel * CH + 4 * W).cast::<u8>()) }.0;
                words[4 * W..4 * W + 4].copy_from_slice(&w);
            });
            unroll!(P < Shape::<R, CH>::PLANES; [0, 1, 2] {
                v[P] = [0, 1, 2, 3].map(|i| f32::from_bits(words[i * CH + P]));
            });
        } else {
            unroll!(P < Shape::<R, CH>::PLANES; [0, 1, 2] {
                // SAFETY: as above, P < CH.
                v[P] = [0, 1, 2, 3].map(|i| unsafe { *samples.add((pixel + i) * CH + self.channel as usize + P) });
            });
        }
        v
    }

    /// Whether the 4 pixels of vector e of the tile lie inside the image (used only for tiles not
    /// wholly inside, and for gray rows not of whole vectors).
    #[inline(always)]
    fn inside(&self, e: u32) -> bool {
        let per_row = Shape::<R, CH>::COLUMNS / 4;
        let (gx, gy) = (self.x0 + 4 * (e % per_row) as i32, self.y0 + (e / per_row) as i32);
        gx >= 0 && gy >= 0 && gx as u32 + 4 <= self.g.in_width && (gy as u32) < self.g.in_height
    }

    /// Fills every channel's planes with the tile times the channel's `scale`, thread `first` of
    /// `threads` taking every `threads`-th vector: the vectors [`Self::inside`] says are one load,
    /// the rest sample by sample with the border resolved. Returns, per channel, the bits of the
    /// largest finite magnitude this thread stored, plus 2^23 (0: none).
    #[inline(always)]
    pub(super) fn load(&self, first: u32, threads: u32, scale: &[f32; 3]) -> [i32; 3] {
        let g = self.g;
        let per_row = Shape::<R, CH>::COLUMNS / 4;
        let total = per_row * Shape::<R, CH>::ROWS;
        // Gray rows of whole vectors from the tile's first column on, and every RGB or RGBA image.
        let vector_loads = CH > 1 || self.aligned;
        let mut largest = [0i32; 3];
        if !(vector_loads && self.whole) {
            let mut e = first;
            while e < total {
                let (q, row) = (e % per_row, e / per_row);
                let pixel = || {
                    (self.y0 + row as i32) as usize * g.in_width as usize + (self.x0 + 4 * q as i32) as usize
                };
                let v = if vector_loads && self.inside(e) {
                    self.load_pixels(pixel())
                } else if self.inside(e) {
                    // Gray, off a whole vector: the 4 samples one by one.
                    let mut v = [[0.0f32; 4]; 3];
                    // SAFETY: inside the image (`inside`).
                    v[0] = [0, 1, 2, 3].map(|i| unsafe { *self.samples.add(pixel() + i) });
                    v
                } else {
                    let mut v = [[0.0f32; 4]; 3];
                    unroll!(P < Shape::<R, CH>::PLANES; [0, 1, 2] {
                        // Written out (not `map`, which a call in `resolve` left a loop over an
                        // array in local memory).
                        let at = |i: u32| self.resolved(4 * q + i, row, P);
                        v[P] = [at(0), at(1), at(2), at(3)];
                    });
                    v
                };
                unroll!(P < Shape::<R, CH>::PLANES; [0, 1, 2] {
                    self.put(row, q, P, v[P], scale[P], &mut largest[P]);
                });
                e += threads;
            }
        } else {
            // A tile wholly inside the image: every vector is one load, none is checked.
            let origin = self.y0 as usize * g.in_width as usize + self.x0 as usize;
            let batch_len = if CH == 1 { LOAD_BATCH } else { COLOUR_BATCH };
            let mut e0 = first;
            while e0 < total {
                let mut batch = [[[0.0f32; 4]; 3]; LOAD_BATCH];
                unroll!(B < batch_len; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        // 4 pixels inside the image (the tile is).
                        batch[B] = self.load_pixels(origin + (e / per_row) as usize * g.in_width as usize + 4 * (e % per_row) as usize);
                    }
                });
                unroll!(B < batch_len; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        unroll!(P < Shape::<R, CH>::PLANES; [0, 1, 2] {
                            self.put(e / per_row, e % per_row, P, batch[B][P], scale[P], &mut largest[P]);
                        });
                    }
                });
                e0 += batch_len as u32 * threads;
            }
        }
        largest
    }
}

/// The FP16 tiles of the `conv_tensor_f16` entries (`CH` = 1, the image's channels read from the
/// geometry; the other entries never call these).
impl<const R: usize, const CH: usize> Tile<'_, R, CH> {
    /// Stores the words of tile samples 4q .. 4q + 4 of row `row` (FP16, two a word) in the
    /// high plane.
    #[inline(always)]
    fn put_half(&self, row: u32, q: u32, words: [u32; 2]) {
        let at = (row * Shape::<R, CH>::STRIDE + 2 * q) as usize;
        // SAFETY: words 2q, 2q + 1 of the row of the high plane, 8-aligned (as in `put`).
        unsafe { *self.planes.add(at).cast::<u64>() = u64::from(words[0]) | u64::from(words[1]) << 32 };
    }

    /// The sample the border rule reads for tile position (col, row) of the block's channel of
    /// an FP16 image of `g.channels` interleaved channels, or the constant outside the image.
    #[inline(always)]
    fn resolved_half(&self, col: u32, row: u32) -> f32 {
        let g = self.g;
        let xx = resolve(self.x0 + col as i32, g.in_width as i32, g.border);
        let yy = resolve(self.y0 + row as i32, g.in_height as i32, g.border);
        if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
            let at = (yy as usize * g.in_width as usize + xx as usize) * g.channels as usize
                + self.channel as usize;
            // SAFETY: (xx, yy) is inside the image.
            f16::from_bits(unsafe { *self.samples.cast::<u16>().add(at) }) as f32
        } else {
            g.cval
        }
    }

    /// Fills the high plane with the tile of the block's channel of an FP16 image (its samples
    /// as they are: the low plane is not used), thread `first` of `threads` taking every
    /// `threads`-th run of 4 pixels: one 8-byte load where the image is gray and the run starts
    /// on a multiple of 4 columns (`aligned`), else sample by sample (the border resolved
    /// outside the image).
    #[inline(always)]
    pub(super) fn load_half(&self, first: u32, threads: u32) {
        let g = self.g;
        let per_row = Shape::<R, CH>::COLUMNS / 4;
        let total = per_row * Shape::<R, CH>::ROWS;
        let halves = self.samples.cast::<u16>();
        let (width, channels) = (g.in_width as usize, g.channels as usize);
        let vector = channels == 1 && self.aligned;
        if vector && self.whole {
            // A gray tile wholly inside the image: every run is one load, none is checked.
            let origin = self.y0 as usize * width + self.x0 as usize;
            let mut e0 = first;
            while e0 < total {
                let mut batch = [[0u32; 2]; LOAD_BATCH];
                unroll!(B < LOAD_BATCH; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        let at = origin + (e / per_row) as usize * width + 4 * (e % per_row) as usize;
                        // SAFETY: 4 samples inside the image, 8-aligned (the column and the width
                        // are multiples of 4; the host's buffers are 256-byte aligned).
                        batch[B] = unsafe { load_global_words2(halves.add(at).cast()) };
                    }
                });
                unroll!(B < LOAD_BATCH; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        self.put_half(e / per_row, e % per_row, batch[B]);
                    }
                });
                e0 += LOAD_BATCH as u32 * threads;
            }
            return;
        }
        let mut e = first;
        while e < total {
            let (q, row) = (e % per_row, e / per_row);
            let words = if self.inside(e) {
                let pixel = (self.y0 + row as i32) as usize * width + (self.x0 + 4 * q as i32) as usize;
                if vector {
                    // SAFETY: as above.
                    unsafe { load_global_words2(halves.add(pixel).cast()) }
                } else {
                    let at = |i: usize| {
                        // SAFETY: the 4 pixels are inside the image (`inside`).
                        u32::from(unsafe { *halves.add((pixel + i) * channels + self.channel as usize) })
                    };
                    [at(0) | at(1) << 16, at(2) | at(3) << 16]
                }
            } else {
                let at = |i: u32| self.resolved_half(4 * q + i, row);
                [pack_f16x2(at(0), at(1)), pack_f16x2(at(2), at(3))]
            };
            self.put_half(row, q, words);
            e += threads;
        }
    }
}

/// Channel `ch`'s largest finite magnitude in the tile (bits), from the warps' area `maxima` of a
/// block of `warps` warps once it is written.
#[inline(always)]
pub(super) fn tile_top(maxima: *const u32, warps: u32, ch: usize) -> u32 {
    (0..warps).fold(0, |m, w| {
        // SAFETY: the warps' area, written before a barrier.
        m.max(unsafe { *maxima.add(ch * warps as usize + w as usize) })
    })
}

/// The biased exponent of the tile's scale for its largest magnitude `top`: 127 (a scale of 1)
/// where the unscaled split is right.
#[inline(always)]
pub(super) fn scale_exponent(top: u32) -> u32 {
    if top == 0 || (0x3E00_0000..0x4700_0000).contains(&top) {
        127
    } else {
        (268 - (top >> 23) as i32).clamp(1, 253) as u32
    }
}

/// The scales of a block's tile once every thread has loaded it unscaled (`largest`, as
/// [`Tile::load`] returns): the warps' largest magnitudes meet in `maxima` behind a barrier, and
/// each channel's scale exponent (`exponent`, 255 before the first tile) and `scale` follow. A
/// channel whose tile has larger magnitudes than the blocks before (`LOOPS`: blocks of taps may be
/// more than one) lowers its exponent, and the warp's sums so far (`acc`) are scaled down to
/// match. Returns whether any channel's tile must be split again, scaled.
#[inline(always)]
pub(super) fn choose_scales<const R: usize, const CH: usize, const LOOPS: bool>(
    maxima: *mut u32,
    (tx, ty): (u32, u32),
    largest: &[i32; 3],
    (exponent, scale): (&mut [u32; 3], &mut [f32; 3]),
    acc: &mut [[f32; 4]; 8],
) -> bool {
    let (planes, warps) = (Shape::<R, CH>::PLANES, Shape::<R, CH>::WARPS);
    unroll!(P < planes; [0, 1, 2] {
        let warp_largest = warp_max((largest[P] as u32).saturating_sub(0x0080_0000));
        if tx == 0 {
            // SAFETY: word `ty` of channel P's part of the warps' area.
            unsafe { *maxima.add(P * warps as usize + ty as usize) = warp_largest };
        }
    });
    sync_threads();
    let mut again = false;
    // The scale of the warp's channel before this tile and after.
    let (mut before, mut after) = (255, 255);
    let warp_channel = if planes == 1 {
        0
    } else {
        (ty / Shape::<R, CH>::CHANNEL_WARPS) as usize
    };
    unroll!(P < planes; [0, 1, 2] {
        let e = if LOOPS {
            scale_exponent(tile_top(maxima, warps, P)).min(exponent[P])
        } else {
            scale_exponent(tile_top(maxima, warps, P))
        };
        if P == warp_channel {
            (before, after) = (exponent[P], e);
        }
        exponent[P] = e;
        again |= e != 127;
        scale[P] = f32::from_bits(e << 23);
    });
    if LOOPS && after < before && before != 255 {
        // 2^(after - before), exact (or, below 2^-126, sums too small to matter).
        let down = f32::from_bits((127 + after).saturating_sub(before).max(1) << 23);
        for window in acc.iter_mut() {
            for a in window.iter_mut() {
                *a *= down;
            }
        }
    }
    again
}
