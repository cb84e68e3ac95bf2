//! Batches in one launch: the images of a batch follow each other packed in memory, and the
//! grid's z dimension holds every image's planes (`planes` per image: its channels for a kernel
//! with one plane per channel, else 1).

use super::thread::block_idx_z;
use crate::launch::Geometry;

/// The plane of its image this block works on, and `input` and `output` moved to that image
/// (image `blockIdx.z / planes`; the first image of a batch of one is the image itself).
///
/// # Safety
/// The launch's grid z is `planes` times the batch's image count, and `input` and `output` hold
/// that many packed images of `g`'s input and output sizes.
#[inline(always)]
pub unsafe fn batch_image<T, U>(
    input: *const T,
    output: *mut U,
    g: &Geometry,
    planes: u32,
) -> (*const T, *mut U, u32) {
    let z = block_idx_z();
    if z < planes {
        // The first image (every block of a launch of one image): no division, no offsets.
        return (input, output, z);
    }
    // The lengths computed here only, past the first image's branch (computed ahead of it, they
    // moved the register allocation of the kernels that call this).
    let image = (z / planes) as usize;
    let in_len = g.in_width as usize * g.in_height as usize * g.channels as usize;
    let out_len = g.out_width as usize * g.out_height as usize * g.channels as usize;
    // SAFETY: the caller's contract: image `image` of the batch lies at these offsets.
    unsafe { (input.add(image * in_len), output.add(image * out_len), z % planes) }
}

/// Like [`batch_image`] for images of `lengths.0` input and `lengths.1` output samples (a pass
/// that reads or writes an intermediate image of another size than the input or the output).
///
/// # Safety
/// The launch's grid z is `planes` times the batch's image count, and `input` and `output` hold
/// that many packed images of these lengths.
#[inline(always)]
pub unsafe fn batch_lengths<T, U>(
    input: *const T,
    output: *mut U,
    planes: u32,
    (in_len, out_len): (usize, usize),
) -> (*const T, *mut U, u32) {
    let z = block_idx_z();
    if z < planes {
        // The first image (every block of a launch of one image): no division, no offsets.
        return (input, output, z);
    }
    let image = (z / planes) as usize;
    // SAFETY: the caller's contract: image `image` of the batch lies at these offsets.
    unsafe { (input.add(image * in_len), output.add(image * out_len), z % planes) }
}
