//! The GPU engine: opens the device, loads the embedded kernels with `cust`, and times work on
//! its stream; [`variant`] describes the kernels, `job.rs` their buffers, `launch.rs` their launches.

#[cfg(feature = "testing")]
mod ceilings;
pub(crate) mod driver;
mod job;
mod launch;
pub mod pipeline;
mod probes;
mod registry;
mod select;
mod stream;
mod tensor_f32;
mod tensor_u8;
mod texture;
pub mod variant;

pub use crate::model::problem::Problem;
pub use job::DeviceJob;
pub(crate) use launch::DEFAULT_SHARED_LIMIT;
pub use launch::Kernel;
pub(crate) use probes::time_on;
pub use select::GpuSelection;
pub use stream::StreamRef;
pub use variant::Variant;

use crate::error::{check, cuda};
use crate::{Error, Result};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use std::ffi::{CString, c_void};
use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::time::Instant;

/// The kernels' PTX, built from `gpu-kernels` by `build.rs` and embedded in the binary.
pub static PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));
/// The same kernels as SASS for the build's architecture (`sm_90`) and as PTX, in one fatbin, when
/// the build found `ptxas`; empty otherwise. On a GPU of that architecture the driver loads the SASS
/// as it is, with no JIT.
pub static FATBIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels.fatbin"));

/// The value of a PTX directive of the embedded kernels (`.target`, `.version`), or `?`.
pub fn ptx_directive(name: &str) -> &'static str {
    PTX.lines()
        .find_map(|l| l.trim().strip_prefix(name)?.strip_prefix(' '))
        .map_or("?", str::trim)
}

/// How many kernel entry points the embedded PTX has.
pub fn ptx_entries() -> usize {
    PTX.lines().filter(|l| l.contains(".entry ")).count()
}

/// Facts about the GPU in use.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    /// Its number among the visible devices.
    pub ordinal: usize,
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// `(major, minor)`, e.g. `(9, 0)`: the kernels need 9.0 or newer.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: i32,
    /// Global memory in bytes.
    pub memory_bytes: usize,
    /// Driver API version, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    /// Peak SM clock the device reports, in MHz.
    pub sm_clock_mhz: i32,
    /// Peak memory clock in MHz.
    pub memory_clock_mhz: i32,
    /// L2 cache size in bytes.
    pub l2_bytes: i32,
}

impl GpuInfo {
    /// The driver API version as `major.minor`, e.g. `13.0`.
    pub fn driver_api(&self) -> String {
        format!(
            "{}.{}",
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// What the driver loaded the kernels from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    /// The embedded fatbin: SASS for the build's architecture (used as is on such a GPU) and PTX.
    Fatbin,
    /// The embedded PTX, JIT-compiled by the driver (or taken from its JIT cache).
    Ptx,
}

impl std::fmt::Display for ModuleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModuleKind::Fatbin => "fatbin (SASS + PTX)",
            ModuleKind::Ptx => "PTX (JIT)",
        })
    }
}

/// A ready GPU: context, loaded module and one stream. Cloning it is cheap (the clones share
/// one context, module and stream, as cudarc's context does), so plans and device images own one
/// and need no borrowed lifetime; the context goes when the last clone does.
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Opened>,
}

/// Two handles are equal when they share one CUDA context: clones, and every [`Gpu::open`] of
/// one device (each retains the device's primary context), so memory of one serves the other.
impl PartialEq for Gpu {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.context.as_raw() == other.inner.context.as_raw()
    }
}

impl Eq for Gpu {}

/// What one [`Gpu::open`] made, shared by the clones.
struct Opened {
    // Dropped by hand (`Drop for Opened`): stream and module before the context that owns them,
    // or never, in a forked child.
    stream: ManuallyDrop<Stream>,
    module: ManuallyDrop<Module>,
    info: GpuInfo,
    module_kind: ModuleKind,
    module_load_ms: f64,
    context: ManuallyDrop<Context>,
}

impl Drop for Opened {
    fn drop(&mut self) {
        if crate::fork::cuda_forked() {
            return; // the parent's handles: leaked, as freeing them would call the driver
        }
        // SAFETY: each field is dropped once, here, and never used after; stream and module go
        // before the context that owns them.
        unsafe {
            ManuallyDrop::drop(&mut self.stream);
            ManuallyDrop::drop(&mut self.module);
            ManuallyDrop::drop(&mut self.context);
        }
    }
}

/// An entry point of a GPU's module, resolved once; it holds a clone of the GPU, so the module
/// that owns the handle stays loaded while it lives.
pub(crate) struct EntryPoint {
    raw: cust::sys::CUfunction,
    _gpu: Gpu,
}

// SAFETY: a `CUfunction` is an immutable driver handle that the (thread-safe) driver API takes
// from any thread, as cust's own `Function` is sent and shared; the module it belongs to lives
// as long as `_gpu`.
unsafe impl Send for EntryPoint {}
// SAFETY: as above; nothing mutates the handle.
unsafe impl Sync for EntryPoint {}

impl EntryPoint {
    /// The driver's handle, for `cuLaunchKernel` and `cuFuncSetAttribute`.
    pub(crate) fn raw(&self) -> cust::sys::CUfunction {
        self.raw
    }
}

/// Loads the driver library and starts the driver (never in a child forked after its parent
/// started it: [`crate::fork`]).
fn start_driver() -> Result<()> {
    crate::fork::check()?;
    driver::load().map_err(Error::NoGpu)?;
    cust::init(cust::CudaFlags::empty())
        .map_err(|e| Error::NoGpu(format!("the CUDA driver did not start: {}", cuda("cuInit")(e))))?;
    crate::fork::note_cuda_started();
    Ok(())
}

/// How many GPUs this process can use (the driver applies `CUDA_VISIBLE_DEVICES`, so these are
/// the visible ones, numbered from 0); an error where there is no usable driver or no GPU.
pub fn device_count() -> Result<usize> {
    start_driver()?;
    match Device::num_devices().map_err(cuda("count the devices"))? {
        0 => Err(Error::NoGpu("no CUDA device was found".into())),
        n => Ok(n as usize),
    }
}

impl Gpu {
    /// Loads the driver, opens device 0 and loads the embedded PTX.
    pub fn new() -> Result<Self> {
        Self::open(0)
    }

    /// Loads the driver, opens visible device `ordinal` (its own context, current on this thread)
    /// and loads the embedded PTX.
    pub fn open(ordinal: usize) -> Result<Self> {
        start_driver()?;
        let device = Device::get_device(ordinal as u32).map_err(|e| match e {
            cust::error::CudaError::NoDevice => Error::NoGpu("no CUDA device was found".into()),
            cust::error::CudaError::InvalidDevice => {
                Error::NoGpu(format!("there is no GPU {ordinal} (count them with `host info`)"))
            }
            e => cuda("open the device")(e),
        })?;
        let context = Context::new(device).map_err(cuda("create a context"))?;
        let attr = |a| device.get_attribute(a).map_err(cuda("read a device attribute"));
        let info = GpuInfo {
            ordinal,
            name: device.name().map_err(cuda("read the device name"))?,
            compute_capability: (
                attr(DeviceAttribute::ComputeCapabilityMajor)?,
                attr(DeviceAttribute::ComputeCapabilityMinor)?,
            ),
            multiprocessors: attr(DeviceAttribute::MultiprocessorCount)?,
            memory_bytes: device.total_memory().map_err(cuda("read the memory size"))?,
            sm_clock_mhz: attr(DeviceAttribute::ClockRate)? / 1000,
            memory_clock_mhz: attr(DeviceAttribute::MemoryClockRate)? / 1000,
            l2_bytes: attr(DeviceAttribute::L2CacheSize)?,
            driver_version: cust::CudaApiVersion::get()
                .map(|v| v.major() * 1000 + v.minor() * 10)
                .map_err(cuda("read the driver version"))?,
        };
        let started = Instant::now();
        // The fatbin's SASS needs no JIT; the PTX alone is the fallback (no ptxas at build time,
        // or a driver that refuses the fatbin) and shows the JIT's log if it fails too.
        let (module, module_kind) = match Module::from_fatbin(FATBIN, &[]) {
            Ok(module) if !FATBIN.is_empty() => (module, ModuleKind::Fatbin),
            _ => (load_module(PTX)?, ModuleKind::Ptx),
        };
        let module_load_ms = started.elapsed().as_secs_f64() * 1e3;
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(cuda("create a stream"))?;
        let opened = Opened {
            stream: ManuallyDrop::new(stream),
            module: ManuallyDrop::new(module),
            info,
            module_kind,
            module_load_ms,
            context: ManuallyDrop::new(context),
        };
        Ok(Self {
            inner: Arc::new(opened),
        })
    }

    /// Facts about this GPU.
    pub fn info(&self) -> &GpuInfo {
        &self.inner.info
    }

    /// The loaded module's entry point `name`, holding this GPU (so the module stays loaded).
    pub(crate) fn entry(&self, name: &str) -> Result<EntryPoint> {
        let function = self
            .inner
            .module
            .get_function(name)
            .map_err(cuda("find a kernel in the module"))?;
        Ok(EntryPoint {
            raw: function.to_raw(),
            _gpu: self.clone(),
        })
    }

    /// Makes this GPU's context current on the calling thread. [`Gpu::new`] makes it current on the
    /// thread that opens it; a `Gpu` handed to another thread (a pool shared by tests, say) must be
    /// made current there before its first call.
    pub fn make_current(&self) -> Result<()> {
        crate::fork::check()?;
        cust::context::CurrentContext::set_current(&*self.inner.context)
            .map_err(cuda("make the context current"))
    }

    /// The GPU's own stream (non-blocking), for plans' device calls.
    pub fn stream(&self) -> StreamRef {
        // SAFETY: a stream of this GPU's context, alive while `self` is.
        unsafe { StreamRef::from_raw(self.inner.stream.as_inner()) }
    }

    /// Makes this GPU's context current on the calling thread until the guard is dropped, when
    /// the context that was current before (the caller's, or none) is current again.
    pub(crate) fn enter(&self) -> Result<Entered> {
        crate::fork::check()?;
        // SAFETY: the context is the retained primary context of this GPU, alive while `self` is.
        check("make the GPU's context current", unsafe {
            cust::sys::cuCtxPushCurrent_v2(self.inner.context.as_raw())
        })?;
        Ok(Entered(std::marker::PhantomData))
    }

    /// Time the driver took to load the kernels (and JIT-compile them, for PTX), in ms.
    pub fn module_load_ms(&self) -> f64 {
        self.inner.module_load_ms
    }

    /// What the kernels were loaded from.
    pub fn module_kind(&self) -> ModuleKind {
        self.inner.module_kind
    }

    /// Waits for everything queued on the stream and reports any error a kernel raised.
    pub fn sync(&self) -> Result<()> {
        self.inner.stream.synchronize().map_err(cuda("wait for the GPU"))
    }

    /// Free and total device memory of this GPU in bytes, whichever context the calling thread
    /// has current.
    pub fn memory(&self) -> Result<(usize, usize)> {
        let _current = self.enter()?;
        cust::memory::mem_get_info().map_err(cuda("read the free memory"))
    }
}

/// This GPU's context pushed on the calling thread's context stack ([`Gpu::enter`]); popped
/// when dropped, on the same thread (the guard cannot be sent).
pub(crate) struct Entered(std::marker::PhantomData<*const ()>);

impl Drop for Entered {
    fn drop(&mut self) {
        let mut popped = std::ptr::null_mut();
        // SAFETY: pops the context `enter` pushed on this thread; nothing else is freed.
        unsafe { cust::sys::cuCtxPopCurrent_v2(&mut popped) };
    }
}

/// Loads PTX; if the driver refuses it, loads it again with a log buffer to show the JIT's reason.
fn load_module(ptx: &str) -> Result<Module> {
    Module::from_ptx(ptx, &[]).map_err(|e| {
        let log = jit_error_log(ptx);
        Error::Jit(format!("{}; JIT log: {log}", cuda("cuModuleLoadDataEx")(e)))
    })
}

/// The driver JIT's error log for `ptx` (empty if it loads).
fn jit_error_log(ptx: &str) -> String {
    use cust::sys::{CUjit_option, CUmodule, cuModuleLoadDataEx, cuModuleUnload, cudaError_enum};
    let Ok(image) = CString::new(ptx) else {
        return "the PTX contains a NUL byte".into();
    };
    let mut log = vec![0u8; 1 << 16];
    let mut options = [
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // cuModuleLoadDataEx takes values that fit in a pointer by value, cast to pointers.
    let mut values = [log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: `image` is NUL-terminated PTX, the option arrays have 2 entries each, and the log
    // buffer is as large as its declared size and outlives the call.
    unsafe {
        let status = cuModuleLoadDataEx(
            &mut module,
            image.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        );
        if status == cudaError_enum::CUDA_SUCCESS {
            cuModuleUnload(module);
        }
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    String::from_utf8_lossy(&log[..end]).trim().to_string()
}
