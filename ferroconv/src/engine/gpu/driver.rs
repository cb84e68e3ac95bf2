//! Loads the real CUDA driver (`libcuda.so.1`) at run time through the link-time shim.
//!
//! `ferroconv/build.rs` links every binary against a static shim instead of the driver, so binaries
//! start on machines with no GPU. [`load`] must succeed before any `cust` call; until then every
//! driver entry point answers `CUDA_ERROR_STUB_LIBRARY`.

use std::ffi::{CStr, c_char};
use std::sync::OnceLock;

unsafe extern "C" {
    /// Defined in `cuda-shim/loader.c`: NULL on success, else the dynamic loader's message.
    fn conv_cuda_load() -> *const c_char;
}

static LOADED: OnceLock<Result<(), String>> = OnceLock::new();

/// Loads `libcuda.so.1` once; later calls return the first outcome.
pub(crate) fn load() -> Result<(), String> {
    LOADED
        .get_or_init(|| {
            // SAFETY: conv_cuda_load takes no arguments, runs once (OnceLock), and returns NULL
            // or a NUL-terminated string owned by the dynamic loader, which we copy at once.
            let why = unsafe { conv_cuda_load() };
            if why.is_null() {
                Ok(())
            } else {
                // SAFETY: non-null return values are NUL-terminated C strings (see above).
                let text = unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned();
                Err(format!("the CUDA driver library could not be loaded ({text})"))
            }
        })
        .clone()
}

/// Whether [`load`] has succeeded, i.e. driver calls reach the real driver.
pub(crate) fn is_loaded() -> bool {
    matches!(LOADED.get(), Some(Ok(())))
}
