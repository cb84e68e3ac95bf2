//! 2D convolution kernels in `no_std` Rust for NVIDIA GPUs, compiled to PTX by rustc's nvptx64 target.
//!
//! On the GPU target this crate is the kernels; on every other target it is only what the host
//! must agree on with them: [`launch`] (geometry, taps, borders) and each kernel's launch at the
//! top of its file in [`kernels`] (entry name, block, tile, shared memory, register limit).
//! Defining them once, here, is what keeps the two sides from drifting apart.
//!
//! Every kernel computes the correlation `out(y,x) = Σ_{i,j=-r..r} in(y+i, x+j) · f(i+r, j+r)` on an
//! interleaved image of 1, 3 or 4 channels (RGBA's alpha is copied) stored row-major as `u8`, `u16`
//! or `f32` samples, with the border mode and output size given by
//! [`Geometry`](launch::Geometry). Each kernel is one generic function in `kernels/`, and its
//! `#[kernel]` attribute (crate `kernel-macros`) writes its entry points: one per sample type,
//! named `<kernel>_<type>`, and for kernels compiled per radius one per type and radius,
//! `<kernel>_<type>_r<radius>` (a kernel of one sample type has it in `<kernel>`, and no suffix).
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        f16,
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod launch;

// The kernels and the device API they use exist only on the GPU target.
#[cfg(target_arch = "nvptx64")]
mod device;
pub mod kernels;
