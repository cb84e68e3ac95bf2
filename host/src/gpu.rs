//! The GPU side: loads the embedded PTX with `cust` and offers one typed launch per kernel.

use crate::error::cuda;
use crate::{Error, Filter, Plane, Result, driver};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::event::{Event, EventFlags};
use cust::function::Function;
use cust::memory::{AsyncCopyDestination, DeviceBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use gpu_kernels::launch::{self, Taps, names};
use std::ffi::{CString, c_void};
use std::time::Instant;

/// The kernels' PTX, built from `gpu-kernels` by `build.rs` and embedded in the binary.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// The quiet NaN written over every output buffer before a checked run: a pixel the kernel does
/// not write stays NaN and fails the comparison.
pub const POISON: f32 = f32::NAN;

/// The GPU kernel variants, in the order the textbook introduces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// Filter and image both from global memory.
    Naive,
    /// Filter in the constant bank, image from global memory.
    Constant,
    /// Input tile with halo in shared memory, filter in the constant bank.
    Tiled,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Naive, Variant::Constant, Variant::Tiled];

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Constant => "constant",
            Variant::Tiled => "tiled",
        }
    }

    /// The PTX entry point.
    pub fn entry(self) -> &'static str {
        match self {
            Variant::Naive => names::NAIVE,
            Variant::Constant => names::CONSTANT,
            Variant::Tiled => names::TILED,
        }
    }

    /// Global-memory loads per output pixel, counted by hand as the reports do: the naive kernel
    /// loads every pixel and tap (2k²), the constant kernel only pixels (k²), and the tiled kernel
    /// one pixel per thread of a block whose inner (32-2r)² threads write output.
    pub fn global_loads_per_pixel(self, radius: usize) -> f64 {
        let k = (2 * radius + 1) as f64;
        match self {
            Variant::Naive => 2.0 * k * k,
            Variant::Constant => k * k,
            Variant::Tiled => {
                let (tile_in, tile_out) = (launch::TILED_IN as f64, launch::tiled_out(radius as u32) as f64);
                (tile_in * tile_in) / (tile_out * tile_out)
            }
        }
    }
}

/// Facts about the GPU in use.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    pub name: String,
    pub compute_capability: (i32, i32),
    pub multiprocessors: i32,
    pub memory_bytes: usize,
    /// Driver API version, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
}

/// A ready GPU: context, loaded module and one stream.
pub struct Gpu {
    // Field order is drop order: stream and module go before the context that owns them.
    stream: Stream,
    module: Module,
    info: GpuInfo,
    module_load_ms: f64,
    _context: Context,
}

/// Device buffers and parameters of one convolution on the GPU.
pub struct DeviceJob {
    width: u32,
    height: u32,
    radius: u32,
    input: DeviceBuffer<f32>,
    output: DeviceBuffer<f32>,
    filter: DeviceBuffer<f32>,
    taps: Box<Taps>,
}

/// A kernel resolved from the module, ready to launch; resolving happens outside timed regions.
pub struct Kernel<'a> {
    variant: Variant,
    function: Function<'a>,
}

impl Kernel<'_> {
    pub fn variant(&self) -> Variant {
        self.variant
    }
}

impl Gpu {
    /// Loads the driver, opens device 0 and loads the embedded PTX.
    pub fn new() -> Result<Self> {
        driver::load().map_err(Error::NoGpu)?;
        cust::init(cust::CudaFlags::empty()).map_err(|e| {
            Error::NoGpu(format!(
                "the CUDA driver did not start: {}",
                Error::Cuda {
                    op: "cuInit",
                    source: e
                }
            ))
        })?;
        let device = Device::get_device(0).map_err(|e| match e {
            cust::error::CudaError::NoDevice => Error::NoGpu("no CUDA device was found".into()),
            e => Error::Cuda {
                op: "open device 0",
                source: e,
            },
        })?;
        let context = Context::new(device).map_err(cuda("create a context"))?;
        let attr = |a| device.get_attribute(a).map_err(cuda("read a device attribute"));
        let info = GpuInfo {
            name: device.name().map_err(cuda("read the device name"))?,
            compute_capability: (
                attr(DeviceAttribute::ComputeCapabilityMajor)?,
                attr(DeviceAttribute::ComputeCapabilityMinor)?,
            ),
            multiprocessors: attr(DeviceAttribute::MultiprocessorCount)?,
            memory_bytes: device.total_memory().map_err(cuda("read the memory size"))?,
            driver_version: cust::CudaApiVersion::get()
                .map(|v| v.major() * 1000 + v.minor() * 10)
                .map_err(cuda("read the driver version"))?,
        };
        let started = Instant::now();
        let module = load_module(PTX)?;
        let module_load_ms = started.elapsed().as_secs_f64() * 1e3;
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(cuda("create a stream"))?;
        Ok(Self {
            stream,
            module,
            info,
            module_load_ms,
            _context: context,
        })
    }

    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// Time the driver took to JIT-compile and load the PTX, in ms.
    pub fn module_load_ms(&self) -> f64 {
        self.module_load_ms
    }

    /// Resolves a variant's kernel.
    pub fn kernel(&self, variant: Variant) -> Result<Kernel<'_>> {
        let function = self
            .module
            .get_function(variant.entry())
            .map_err(cuda("find a kernel in the module"))?;
        Ok(Kernel { variant, function })
    }

    /// Allocates (uninitialized) device buffers for a `width × height` image and `filter`, and
    /// uploads the filter (a few hundred bytes) for the naive kernel.
    pub fn alloc(&self, width: usize, height: usize, filter: &Filter) -> Result<DeviceJob> {
        crate::plane::check_dims(width, height)?;
        let n = width * height;
        // SAFETY: the buffers are written (upload, poison or kernel) before they are read.
        let (input, output) = unsafe {
            (
                DeviceBuffer::uninitialized(n).map_err(cuda("allocate the input buffer"))?,
                DeviceBuffer::uninitialized(n).map_err(cuda("allocate the output buffer"))?,
            )
        };
        let filter_buf = DeviceBuffer::from_slice(filter.taps()).map_err(cuda("upload the filter"))?;
        Ok(DeviceJob {
            width: width as u32,
            height: height as u32,
            radius: filter.radius() as u32,
            input,
            output,
            filter: filter_buf,
            taps: filter.to_param(),
        })
    }

    /// Copies `image` to the job's input buffer; returns the copy's GPU time in ms.
    pub fn upload(&self, job: &mut DeviceJob, image: &Plane) -> Result<f64> {
        check_len(image.data().len(), job)?;
        self.time(|g| {
            // SAFETY: `time` waits for an event recorded after this copy before it returns, so
            // `image` outlives the copy.
            unsafe { job.input.async_copy_from(image.data(), &g.stream) }
                .map_err(cuda("copy the image to the GPU"))
        })
    }

    /// Fills the output buffer with [`POISON`]; returns the GPU time in ms.
    pub fn poison(&self, job: &mut DeviceJob) -> Result<f64> {
        self.time(|g| {
            // SAFETY: the buffer is ours and `time` waits for the fill before returning.
            unsafe { job.output.set_32_async(POISON.to_bits(), &g.stream) }.map_err(cuda("poison the output"))
        })
    }

    /// Copies the job's output into `out`; returns the copy's GPU time in ms.
    pub fn download(&self, job: &DeviceJob, out: &mut [f32]) -> Result<f64> {
        check_len(out.len(), job)?;
        self.time(|g| {
            // SAFETY: `time` waits for an event recorded after this copy before it returns, so
            // `out` outlives the copy.
            unsafe { job.output.async_copy_to(out, &g.stream) }.map_err(cuda("copy the result from the GPU"))
        })
    }

    /// Waits for everything queued on the stream and reports any error a kernel raised.
    pub fn sync(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda("wait for the GPU"))
    }

    /// Runs `work` (which queues GPU work on this stream) between two events, waits, and returns
    /// the GPU time between the events in ms.
    pub fn time(&self, work: impl FnOnce(&Self) -> Result<()>) -> Result<f64> {
        let start = Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"))?;
        let stop = Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"))?;
        start.record(&self.stream).map_err(cuda("record an event"))?;
        work(self)?;
        stop.record(&self.stream).map_err(cuda("record an event"))?;
        stop.synchronize().map_err(cuda("wait for the GPU"))?;
        Ok(f64::from(
            stop.elapsed_time_f32(&start)
                .map_err(cuda("read an event time"))?,
        ))
    }

    /// Queues `kernel` on the job (does not wait).
    pub fn launch(&self, kernel: &Kernel<'_>, job: &mut DeviceJob) -> Result<()> {
        let (w, h, r) = (job.width, job.height, job.radius);
        let input = job.input.as_device_ptr();
        let output = job.output.as_device_ptr();
        match kernel.variant {
            Variant::Naive => {
                let filter = job.filter.as_device_ptr();
                let args = [arg(&input), arg(&output), arg(&w), arg(&h), arg(&filter), arg(&r)];
                self.raw_launch(kernel, pixel_grid(w, h), launch::PIXEL_BLOCK, 0, &args)
            }
            Variant::Constant => {
                let args = [
                    arg(&input),
                    arg(&output),
                    arg(&w),
                    arg(&h),
                    arg(&r),
                    arg(&*job.taps),
                ];
                self.raw_launch(kernel, pixel_grid(w, h), launch::PIXEL_BLOCK, 0, &args)
            }
            Variant::Tiled => {
                let out = launch::tiled_out(r);
                let grid = (w.div_ceil(out), h.div_ceil(out));
                let args = [
                    arg(&input),
                    arg(&output),
                    arg(&w),
                    arg(&h),
                    arg(&r),
                    arg(&*job.taps),
                ];
                let block = (launch::TILED_IN, launch::TILED_IN);
                self.raw_launch(kernel, grid, block, launch::TILED_SHARED_BYTES, &args)
            }
        }
    }

    fn raw_launch(
        &self,
        kernel: &Kernel<'_>,
        grid: (u32, u32),
        block: (u32, u32),
        shared_bytes: u32,
        args: &[*mut c_void],
    ) -> Result<()> {
        if grid.1 > 65_535 {
            return Err(Error::Image(format!(
                "the image is too tall for the {} kernel ({} block rows, at most 65535)",
                kernel.variant.name(),
                grid.1
            )));
        }
        // SAFETY: `args` matches the kernel's PTX signature in number, order and type (each arm
        // of `launch` mirrors the kernel's Rust signature in gpu-kernels), the buffers hold
        // width × height pixels, and block and shared-memory sizes are those the kernel documents.
        unsafe {
            self.stream
                .launch(&kernel.function, grid, block, shared_bytes, args)
        }
        .map_err(cuda("launch a kernel"))
    }
}

impl DeviceJob {
    /// Bytes the kernel must move at least: the image in and the result out.
    pub fn min_bytes(&self) -> f64 {
        8.0 * f64::from(self.width) * f64::from(self.height)
    }
}

/// A kernel argument: a pointer to the value, as `cuLaunchKernel` takes it.
fn arg<T>(value: &T) -> *mut c_void {
    value as *const T as *mut c_void
}

/// The grid of the one-thread-per-pixel kernels.
fn pixel_grid(width: u32, height: u32) -> (u32, u32) {
    (
        width.div_ceil(launch::PIXEL_BLOCK.0),
        height.div_ceil(launch::PIXEL_BLOCK.1),
    )
}

fn check_len(len: usize, job: &DeviceJob) -> Result<()> {
    let want = job.width as usize * job.height as usize;
    if len != want {
        return Err(Error::Image(format!(
            "buffer of {len} pixels for a job of {want}"
        )));
    }
    Ok(())
}

/// Loads PTX; if the driver refuses it, loads it again with a log buffer to show the JIT's reason.
fn load_module(ptx: &str) -> Result<Module> {
    Module::from_ptx(ptx, &[]).map_err(|e| {
        let log = jit_error_log(ptx);
        Error::Jit(format!(
            "{} ({e:?}); JIT log: {}",
            Error::Cuda {
                op: "cuModuleLoadDataEx",
                source: e
            },
            log
        ))
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
