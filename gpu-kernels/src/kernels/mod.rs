//! The kernels, one per file, named as their variants. Each file starts with the kernel's launch
//! (entry-point name, block shape, tile, shared memory, register limit), compiled for every target
//! so the host reads it from here, then the kernel itself: a generic `#[kernel]` function whose
//! attribute writes its PTX entry points (see `kernel-macros`), compiled for the GPU only.

pub mod blocked;
pub mod constant;
pub mod direct_f64;
pub mod lines_u8;
pub mod magnitude;
pub mod naive;
pub mod probe;
pub mod readonly;
pub mod separable_cols;
pub mod separable_fused;
pub mod separable_rows;
pub mod spin;
pub mod tensor_f32;
pub mod tensor_u8;
pub mod texture;
pub mod tiled;
pub mod tiled_cache;
pub mod tiled_output;
pub mod warp_rows;

/// The base names of the kernels with one entry point per sample type, `<base>_<type>`.
pub const PER_TYPE: [&str; 9] = [
    naive::ENTRY,
    constant::ENTRY,
    readonly::ENTRY,
    texture::ENTRY,
    tiled::ENTRY,
    tiled_output::ENTRY,
    tiled_cache::ENTRY,
    separable_rows::ENTRY,
    separable_cols::ENTRY,
];
