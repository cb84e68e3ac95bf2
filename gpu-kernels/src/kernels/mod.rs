//! The kernels, one per file. Each is a generic `#[kernel]` function whose attribute writes its
//! PTX entry points (see `kernel-macros`); the names the host looks them up by are in
//! [`launch::names`](crate::launch::names).

mod constant;
mod fast;
mod naive;
mod probe;
mod readonly;
mod sep_cols;
mod sep_fused;
mod sep_rows;
mod spin;
mod stream;
mod tensor;
mod tensor_split;
mod texture;
mod tiled;
mod tiled_cache;
mod tiled_output;
