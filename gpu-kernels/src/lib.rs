//! 2D convolution kernels in `no_std` Rust for NVIDIA GPUs, compiled to PTX by rustc's nvptx64 target.
//!
//! On the GPU target this crate is the kernels; on every other target it is only [`launch`], the
//! geometry and parameter layout that the kernels and the host must agree on. Defining them once,
//! here, is what keeps the two sides from drifting apart.
//!
//! Every kernel computes the correlation `out(y,x) = Σ_{i,j=-r..r} in(y+i, x+j) · f(i+r, j+r)` on a
//! single-channel `f32` image stored row-major, with ghost cells (pixels outside the image) read as 0
//! and the output the same size as the input.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod launch;

#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod device;
#[cfg(target_arch = "nvptx64")]
mod constant;
#[cfg(target_arch = "nvptx64")]
mod naive;
#[cfg(target_arch = "nvptx64")]
mod tiled;
