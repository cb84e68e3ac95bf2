//! The `tensor-u8` kernel's byte permutes that split 16 interleaved RGB or RGBA pixels into one
//! vector per channel, for the planes of its shared tile.

use crate::device::{byte_perm, unroll};

/// 16 interleaved pixels of `C` channels (the first `C` vectors, little-endian) as one vector per
/// channel: pixel `p`'s channel `c` becomes byte `p` of vector `c`.
#[inline(always)]
pub(super) fn deinterleave<const C: usize>(v: [[u32; 4]; 4]) -> [[u32; 4]; 4] {
    if C == 1 {
        return v;
    }
    let mut planes = [[0u32; 4]; 4];
    unroll!(CH < C; [0, 1, 2, 3] {
        unroll!(W < 4; [0, 1, 2, 3] {
            // Pixels 4W .. 4W + 3 are words C · W .. C · W + C - 1.
            let word = |i: usize| v[(C * W + i) / 4][(C * W + i) % 4];
            planes[CH][W] = channel_word([word(0), word(1), word(2), word(C - 1)], C, CH);
        });
    });
    planes
}

/// Channel `c`'s bytes of 4 interleaved pixels held in `w` (the first 12 bytes for RGB, all 16 for
/// RGBA, little-endian), as one word: pixel `p`'s byte `p · channels + c` becomes byte `p`. Two
/// byte permutes for RGB, three for RGBA (the selectors are constants where `channels` and `c`
/// are).
#[inline(always)]
fn channel_word(w: [u32; 4], channels: usize, c: usize) -> u32 {
    // The first permute takes the bytes in w[0..2]; each later one keeps the bytes so far
    // (nibbles 0-3) and takes those in its word (4-7).
    let mut first = 0u32;
    let mut later = [0x3210u32; 2];
    unroll!(I < 4; [0, 1, 2, 3] {
        let at = channels * I + c;
        if at < 8 {
            first |= (at as u32) << (4 * I);
        } else {
            let s = &mut later[at / 4 - 2];
            *s = (*s & !(0xf << (4 * I))) | ((4 + at % 4) as u32) << (4 * I);
        }
    });
    let v = byte_perm(byte_perm(w[0], w[1], first), w[2], later[0]);
    if channels == 4 {
        byte_perm(v, w[3], later[1])
    } else {
        v
    }
}
