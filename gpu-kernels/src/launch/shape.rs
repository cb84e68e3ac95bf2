//! The host's side of a launch: [`LaunchConfig`] and the counts of global loads per pixel each
//! kernel file derives from its own tile (built for the host targets only).

use super::{Geometry, PIXEL_BLOCK};

/// Grid, block and dynamic shared memory of one kernel launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks along x, y and z.
    pub grid: (u32, u32, u32),
    /// Threads along x and y.
    pub block: (u32, u32),
    /// Dynamic shared memory, in bytes.
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// One block per `tile` of output pixels (`tile` = the block's output), one grid plane per
    /// channel.
    pub fn tiles(g: &Geometry, tile: (u32, u32), block: (u32, u32), shared_bytes: u32) -> Self {
        Self {
            grid: (
                g.out_width.div_ceil(tile.0),
                g.out_height.div_ceil(tile.1),
                g.channels,
            ),
            block,
            shared_bytes,
        }
    }

    /// One thread per output sample in blocks of [`PIXEL_BLOCK`], one grid plane per channel.
    pub fn pixels(g: &Geometry) -> Self {
        Self::tiles(g, PIXEL_BLOCK, PIXEL_BLOCK, 0)
    }
}

/// The taps of a square filter of radius `r`: the loads per pixel of a kernel that reads each
/// tap's pixel from memory.
pub fn taps(r: usize) -> f64 {
    let k = 2.0 * r as f64 + 1.0;
    k * k
}

/// Loads per pixel of a tile of `w × h` outputs with an `r`-pixel halo all round.
pub fn halo(w: u32, h: u32, r: usize) -> f64 {
    let (w, h, r) = (f64::from(w), f64::from(h), r as f64);
    (w + 2.0 * r) * (h + 2.0 * r) / (w * h)
}
