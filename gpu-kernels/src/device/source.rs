//! Where a kernel reads input samples from: global memory, the read-only data cache, or a texture.

use super::sample::Sample;
use super::thread::block_idx_z;
use crate::launch::Geometry;

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
            channel: block_idx_z(),
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
