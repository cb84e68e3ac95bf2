//! Shared memory, as `cuda_std::shared` names it: the block's dynamic shared memory.

/// The block's dynamic shared memory (`extern __shared__`), sized by the host at launch, as a
/// pointer to `T` (aligned for `T`, uninitialized). Every call in a kernel yields the same memory;
/// the caller keeps its reads and writes inside the size the launch gives and orders them across
/// threads with [`sync_threads`](super::thread::sync_threads).
#[inline(always)]
pub fn dynamic_shared_mem<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}
