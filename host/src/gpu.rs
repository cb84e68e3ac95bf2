//! The GPU side: loads the embedded PTX with `cust` and offers one typed launch per kernel.

use crate::error::{check, cuda};
use crate::filter::{Separable, taps_param};
use crate::image::{DType, Image, Samples};
use crate::texture::TextureInput;
use crate::{Border, Error, Filter, Result, driver, stats};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::event::{Event, EventFlags};
use cust::function::Function;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use gpu_kernels::launch::{self, Geometry, Taps, border, names};
use std::ffi::{CString, c_void};
use std::time::Instant;

/// The kernels' PTX, built from `gpu-kernels` by `build.rs` and embedded in the binary.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));
/// The same kernels as SASS for the build's architecture (`sm_90`) and as PTX, in one fatbin, when
/// the build found `ptxas`; empty otherwise. On a GPU of that architecture the driver loads the SASS
/// as it is, with no JIT.
pub const FATBIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/kernels.fatbin"));

/// The GPU kernel variants, in the order the textbook and the reports introduce them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Filter and image both from global memory.
    Naive,
    /// Filter in the constant bank, image from global memory.
    Constant,
    /// Image through the read-only data cache (`ld.global.nc`), filter in the constant bank.
    Readonly,
    /// Image through a 2D texture object, filter in the constant bank.
    Texture,
    /// Blocks the size of the input tile; whole tile in shared memory.
    Tiled,
    /// Blocks the size of the output tile (block shape `TILED_OUTPUT_BLOCKS[i]`); haloed tile
    /// loaded in batches.
    TiledOutput(usize),
    /// Only the tile's interior in shared memory; halo through the caches.
    TiledCache,
    /// Row pass then column pass (rank-1 filters only).
    Separable,
    /// Row pass into shared memory then column pass, in one kernel (rank-1 filters only).
    SeparableFused,
    /// Register-blocked (4 × 4 outputs per thread), radius fixed at compile time.
    Fast,
    /// As [`Variant::Fast`] with 4 × 2 outputs per thread: half the tile, fewer registers.
    Fast4x2,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 13] = [
        Variant::Naive,
        Variant::Constant,
        Variant::Readonly,
        Variant::Texture,
        Variant::Tiled,
        Variant::TiledOutput(0),
        Variant::TiledOutput(1),
        Variant::TiledOutput(2),
        Variant::TiledCache,
        Variant::Separable,
        Variant::SeparableFused,
        Variant::Fast,
        Variant::Fast4x2,
    ];

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Constant => "constant",
            Variant::Readonly => "readonly",
            Variant::Texture => "texture",
            Variant::Tiled => "tiled",
            Variant::TiledOutput(0) => "tiled-output-16x16",
            Variant::TiledOutput(1) => "tiled-output-32x16",
            Variant::TiledOutput(_) => "tiled-output-32x32",
            Variant::TiledCache => "tiled-cache",
            Variant::Separable => "separable",
            Variant::SeparableFused => "separable-fused",
            Variant::Fast => "fast",
            Variant::Fast4x2 => "fast-4x2",
        }
    }

    /// Whether the variant only works with rank-1 (separable) filters.
    pub fn needs_rank1(self) -> bool {
        matches!(self, Variant::Separable | Variant::SeparableFused)
    }

    /// The variant called `name`.
    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The kernels' entry points for samples of type `dtype`: two for the separable passes, one
    /// per radius (index = radius) for `fast` and `separable-fused`.
    fn entries(self, dtype: DType) -> Vec<String> {
        let t = dtype.suffix();
        let bases: &[&str] = match self {
            Variant::Fast | Variant::Fast4x2 | Variant::SeparableFused => {
                let base = match self {
                    Variant::Fast => names::FAST,
                    Variant::Fast4x2 => names::FAST_4X2,
                    _ => names::SEP_FUSED,
                };
                return (0..=launch::MAX_RADIUS)
                    .map(|r| format!("{base}_{t}_r{r}"))
                    .collect();
            }
            Variant::Naive => &[names::NAIVE],
            Variant::Constant => &[names::CONSTANT],
            Variant::Readonly => &[names::READONLY],
            Variant::Texture => &[names::TEXTURE],
            Variant::Tiled => &[names::TILED],
            Variant::TiledOutput(_) => &[names::TILED_OUTPUT],
            Variant::TiledCache => &[names::TILED_CACHE],
            Variant::Separable => &[names::SEP_ROWS, names::SEP_COLS],
        };
        bases.iter().map(|b| format!("{b}_{t}")).collect()
    }

    /// Output rows per thread of a `fast` variant (4 for other variants, which do not use it).
    fn fast_rows(self) -> u32 {
        match self {
            Variant::Fast4x2 => launch::FAST_ROWS[1],
            _ => launch::FAST_ROWS[0],
        }
    }

    /// Global-memory (or texture) loads per output sample, counted by hand as the reports do.
    pub fn global_loads_per_pixel(self, radius: usize) -> f64 {
        let r = radius as f64;
        let k = 2.0 * r + 1.0;
        let halo = |w: f64, h: f64| (w + 2.0 * r) * (h + 2.0 * r) / (w * h);
        match self {
            Variant::Naive => 2.0 * k * k,
            Variant::Constant | Variant::Readonly | Variant::Texture => k * k,
            Variant::Tiled => {
                let out = f64::from(launch::tiled_out(radius as u32));
                (f64::from(launch::TILED_IN) / out).powi(2)
            }
            Variant::TiledOutput(i) => {
                let (w, h) = launch::TILED_OUTPUT_BLOCKS[i];
                halo(f64::from(w), f64::from(h))
            }
            Variant::TiledCache => {
                // One load per thread for the tile, plus every tap that falls outside the tile.
                let (w, h) = launch::TILED_CACHE_BLOCK;
                let inside = |n: u32| -> f64 {
                    (0..n as i64)
                        .map(|t| {
                            (0..2 * radius as i64 + 1)
                                .filter(|j| (0..n as i64).contains(&(t + j - radius as i64)))
                                .count() as f64
                        })
                        .sum()
                };
                let total = f64::from(w * h) * k * k;
                1.0 + (total - inside(w) * inside(h)) / f64::from(w * h)
            }
            Variant::Separable => {
                let rows = f64::from(launch::ROW_SPAN);
                let cols = f64::from(launch::COL_SPAN);
                (rows + 2.0 * r) / rows + (cols + 2.0 * r) / cols
            }
            Variant::Fast | Variant::Fast4x2 => {
                let (w, h) = launch::fast_tile(self.fast_rows());
                f64::from(launch::fast_stride(radius as u32)) * (f64::from(h) + 2.0 * r) / f64::from(w * h)
            }
            Variant::SeparableFused => {
                // Every row-pass item reads its 4 + 2r pixels, once per row of the haloed tile.
                let h = f64::from(launch::FUSED_TILE.1);
                (4.0 + 2.0 * r) / 4.0 * (h + 2.0 * r) / h
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
    /// Peak SM clock and memory clock the device reports, in MHz.
    pub sm_clock_mhz: i32,
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

/// A ready GPU: context, loaded module and one stream.
pub struct Gpu {
    // Field order is drop order: stream and module go before the context that owns them.
    stream: Stream,
    module: Module,
    info: GpuInfo,
    module_kind: ModuleKind,
    module_load_ms: f64,
    _context: Context,
}

/// What to compute: everything about a convolution except the pixels.
#[derive(Clone, Debug)]
pub struct Problem {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub dtype: DType,
    pub filter: Filter,
    pub border: Border,
    /// Clamp `f32` results to [0, 1].
    pub clamp: bool,
}

impl Problem {
    /// The problem of convolving `image`.
    pub fn of(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Self {
        Self {
            width: image.width(),
            height: image.height(),
            channels: image.channels(),
            dtype: image.dtype(),
            filter: filter.clone(),
            border,
            clamp,
        }
    }

    /// The output size.
    pub fn output_size(&self) -> Result<(usize, usize)> {
        self.border
            .output_size(self.width, self.height, self.filter.radius())
    }

    /// Bytes a convolution must move at least: the input read once and the output written once.
    pub fn min_bytes(&self) -> Result<f64> {
        let (ow, oh) = self.output_size()?;
        Ok(((self.width * self.height + ow * oh) * self.channels * self.dtype.size()) as f64)
    }

    fn geometry(&self) -> Result<Geometry> {
        let (ow, oh) = self.output_size()?;
        let r = self.filter.radius();
        let u = |v: usize| {
            u32::try_from(v).map_err(|_| Error::Image(format!("{v} does not fit the kernels' 32-bit sizes")))
        };
        Ok(Geometry {
            in_width: u(self.width)?,
            in_height: u(self.height)?,
            out_width: u(ow)?,
            out_height: u(oh)?,
            channels: u(self.channels)?,
            radius: u(r)?,
            border: self.border.kernel_code(),
            offset: if self.border == Border::Valid { u(r)? } else { 0 },
            clamp: u32::from(self.clamp),
        })
    }
}

/// Where a job's input lives on the device.
enum Input {
    Linear(DeviceBuffer<u8>),
    Texture(TextureInput),
}

/// The separable variant's extra state.
struct SeparableJob {
    tmp: DeviceBuffer<f32>,
    row: Box<Taps>,
    column: Box<Taps>,
}

/// Device buffers and parameters of one convolution on the GPU, for one variant.
pub struct DeviceJob {
    variant: Variant,
    dtype: DType,
    geometry: Geometry,
    input: Input,
    output: DeviceBuffer<u8>,
    filter: DeviceBuffer<f32>,
    taps: Box<Taps>,
    separable: Option<SeparableJob>,
    /// Page-locked host memory that uploads and downloads go through, once [`Gpu::pin`] gave the
    /// job one; reused for every image of the job's shape.
    staging: Option<LockedBuffer<u8>>,
}

/// A variant's kernels resolved from the module for one sample type, ready to launch; resolving
/// happens outside timed regions.
pub struct Kernel<'a> {
    variant: Variant,
    dtype: DType,
    functions: Vec<Function<'a>>,
}

impl DeviceJob {
    /// Bytes of the input image.
    fn input_bytes(&self) -> usize {
        let g = &self.geometry;
        (g.in_width * g.in_height * g.channels) as usize * self.dtype.size()
    }

    /// Device addresses of the input and output buffers, or `None` for a texture input.
    pub(crate) fn linear_buffers(&self) -> Option<(u64, u64)> {
        match &self.input {
            Input::Linear(buf) => Some((buf.as_device_ptr().as_raw(), self.output.as_device_ptr().as_raw())),
            Input::Texture(_) => None,
        }
    }
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
        cust::init(cust::CudaFlags::empty())
            .map_err(|e| Error::NoGpu(format!("the CUDA driver did not start: {}", cuda("cuInit")(e))))?;
        let device = Device::get_device(0).map_err(|e| match e {
            cust::error::CudaError::NoDevice => Error::NoGpu("no CUDA device was found".into()),
            e => cuda("open device 0")(e),
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
        Ok(Self {
            stream,
            module,
            info,
            module_kind,
            module_load_ms,
            _context: context,
        })
    }

    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// Time the driver took to load the kernels (and JIT-compile them, for PTX), in ms.
    pub fn module_load_ms(&self) -> f64 {
        self.module_load_ms
    }

    /// What the kernels were loaded from.
    pub fn module_kind(&self) -> ModuleKind {
        self.module_kind
    }

    /// Resolves a variant's kernels for samples of `dtype`.
    pub fn kernel(&self, variant: Variant, dtype: DType) -> Result<Kernel<'_>> {
        let functions = variant
            .entries(dtype)
            .iter()
            .map(|name| {
                self.module
                    .get_function(name)
                    .map_err(cuda("find a kernel in the module"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Kernel {
            variant,
            dtype,
            functions,
        })
    }

    /// Allocates (uninitialized) device buffers for `problem` as `variant` needs them, and uploads
    /// the filter (a few hundred bytes) for the naive kernel.
    pub fn alloc(&self, variant: Variant, problem: &Problem) -> Result<DeviceJob> {
        crate::image::check_dims(problem.width, problem.height)?;
        let mut geometry = problem.geometry()?;
        let (ow, oh) = problem.output_size()?;
        let size = problem.dtype.size();
        let in_bytes = problem.width * problem.height * problem.channels * size;
        let out_bytes = ow * oh * problem.channels * size;
        let input = if variant == Variant::Texture {
            let tex = TextureInput::new(
                problem.width,
                problem.height,
                problem.channels,
                problem.dtype,
                problem.border,
            )?;
            if tex.hardware_border {
                geometry.border = border::NONE;
            }
            Input::Texture(tex)
        } else {
            // SAFETY: the buffer is written by an upload before any kernel reads it.
            Input::Linear(
                unsafe { DeviceBuffer::uninitialized(in_bytes) }.map_err(cuda("allocate the input"))?,
            )
        };
        // SAFETY: the output is poisoned or written by a kernel before it is read.
        let output =
            unsafe { DeviceBuffer::uninitialized(out_bytes) }.map_err(cuda("allocate the output"))?;
        let filter = DeviceBuffer::from_slice(problem.filter.taps()).map_err(cuda("upload the filter"))?;
        let rank1 = if variant.needs_rank1() {
            Some(problem.filter.rank1().ok_or_else(|| {
                Error::Filter(format!(
                    "the {} variant needs a rank-1 (separable) filter",
                    variant.name()
                ))
            })?)
        } else {
            None
        };
        let taps = match &rank1 {
            Some(Separable { column, row, .. }) if variant == Variant::SeparableFused => {
                taps_param(&[row.as_slice(), column.as_slice()].concat())
            }
            _ => problem.filter.to_param(),
        };
        let separable = if let (Variant::Separable, Some(Separable { column, row, .. })) = (variant, rank1) {
            // SAFETY: the row pass writes every element before the column pass reads it.
            let tmp = unsafe { DeviceBuffer::uninitialized(ow * problem.height * problem.channels) }
                .map_err(cuda("allocate the separable intermediate"))?;
            Some(SeparableJob {
                tmp,
                row: taps_param(&row),
                column: taps_param(&column),
            })
        } else {
            None
        };
        Ok(DeviceJob {
            variant,
            dtype: problem.dtype,
            geometry,
            input,
            output,
            filter,
            taps,
            separable,
            staging: None,
        })
    }

    /// Gives `job` a page-locked staging buffer: later uploads and downloads copy through it, so
    /// the DMA runs at full PCIe speed and the buffer is reused for every image of that shape.
    pub fn pin(&self, job: &mut DeviceJob) -> Result<()> {
        let len = job.output.len().max(job.input_bytes());
        // SAFETY: the staging bytes are always written (image copy or DMA) before they are read.
        job.staging =
            Some(unsafe { LockedBuffer::uninitialized(len) }.map_err(cuda("allocate pinned memory"))?);
        Ok(())
    }

    /// Copies `image` to the job's input (through the pinned staging buffer if the job has one);
    /// returns the copy's GPU time in ms.
    pub fn upload(&self, job: &mut DeviceJob, image: &Image) -> Result<f64> {
        let g = &job.geometry;
        if (image.width(), image.height(), image.channels(), image.dtype())
            != (
                g.in_width as usize,
                g.in_height as usize,
                g.channels as usize,
                job.dtype,
            )
        {
            return Err(Error::Image(
                "the image does not match the job it is uploaded to".into(),
            ));
        }
        let bytes = image.samples().as_bytes();
        let source: &[u8] = match (&mut job.staging, &job.input) {
            (Some(staging), Input::Linear(_)) => {
                staging[..bytes.len()].copy_from_slice(bytes);
                &staging[..bytes.len()]
            }
            _ => bytes,
        };
        self.time(|gpu| match &mut job.input {
            // SAFETY (both arms): `time` waits for an event recorded after this copy before it
            // returns, so the source outlives the copy.
            Input::Linear(buf) => {
                unsafe { buf.async_copy_from(source, &gpu.stream) }.map_err(cuda("copy the image to the GPU"))
            }
            Input::Texture(tex) => unsafe { tex.queue_upload(image, &gpu.stream) },
        })
    }

    /// Fills the output buffer with `byte` repeated (or, for `f32` outputs when `byte` is `None`,
    /// with NaN); returns the GPU time in ms.
    pub fn poison(&self, job: &mut DeviceJob, byte: Option<u8>) -> Result<f64> {
        let ptr = job.output.as_device_ptr().as_raw();
        let len = job.output.len();
        self.time(|gpu| {
            // SAFETY: the fill covers exactly the output buffer, which we own; `time` waits for it.
            let status = unsafe {
                match byte {
                    Some(b) => cust::sys::cuMemsetD8Async(ptr, b, len, gpu.stream.as_inner()),
                    None => {
                        cust::sys::cuMemsetD32Async(ptr, f32::NAN.to_bits(), len / 4, gpu.stream.as_inner())
                    }
                }
            };
            check("poison the output", status)
        })
    }

    /// Copies the job's output into a new image (through the pinned staging buffer if the job
    /// has one); returns it and the copy's GPU time in ms.
    pub fn download(&self, job: &mut DeviceJob) -> Result<(Image, f64)> {
        let g = &job.geometry;
        let (w, h, c) = (g.out_width as usize, g.out_height as usize, g.channels as usize);
        let mut samples = Samples::filled(job.dtype, w * h * c);
        let len = job.output.len();
        let ms = {
            let target: &mut [u8] = match &mut job.staging {
                Some(staging) => &mut staging[..len],
                None => samples.as_bytes_mut(),
            };
            let output = &job.output;
            self.time(|gpu| {
                // SAFETY: `time` waits for an event recorded after this copy before it returns,
                // so the target outlives the copy.
                unsafe { output.async_copy_to(target, &gpu.stream) }
                    .map_err(cuda("copy the result from the GPU"))
            })?
        };
        if let Some(staging) = &job.staging {
            samples.as_bytes_mut().copy_from_slice(&staging[..len]);
        }
        Ok((Image::new(w, h, c, samples)?, ms))
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

    /// Times `runs` calls of `work` (each queues GPU work on this stream; it gets the call's
    /// index) back to back: a `gpu_spin` kernel queued first keeps the GPU busy while the host
    /// queues every call between its own pair of events, so each time is the GPU's alone, without
    /// the host's launch latency (the method of `peers.cu`). Returns the times in ms, in order.
    pub fn time_back_to_back(
        &self,
        runs: usize,
        mut work: impl FnMut(&Self, usize) -> Result<()>,
    ) -> Result<Vec<f64>> {
        let events = (0..2 * runs)
            .map(|_| Event::new(EventFlags::DEFAULT))
            .collect::<Result<Vec<_>, _>>()
            .map_err(cuda("create an event"))?;
        let spin = self
            .module
            .get_function(names::GPU_SPIN)
            .map_err(cuda("find the spin kernel"))?;
        // 1 ms, plus 20 us per call for the host to queue it (as peers.cu).
        let ns = 1_000_000u64 + 20_000 * runs as u64;
        // SAFETY: the argument matches `gpu_spin(ns: u64)`, which touches no memory.
        unsafe { self.stream.launch(&spin, (1, 1, 1), (1, 1, 1), 0, &[arg(&ns)]) }
            .map_err(cuda("launch the spin kernel"))?;
        for (r, pair) in events.chunks_exact(2).enumerate() {
            pair[0].record(&self.stream).map_err(cuda("record an event"))?;
            work(self, r)?;
            pair[1].record(&self.stream).map_err(cuda("record an event"))?;
        }
        self.sync()?;
        events
            .chunks_exact(2)
            .map(|pair| {
                pair[1]
                    .elapsed_time_f32(&pair[0])
                    .map(f64::from)
                    .map_err(cuda("read an event time"))
            })
            .collect()
    }

    /// Queues `kernel` on the job (does not wait).
    pub fn launch(&self, kernel: &Kernel<'_>, job: &mut DeviceJob) -> Result<()> {
        self.launch_on(kernel, job, job.geometry, &self.stream)
    }

    /// Queues `kernel` on `stream` over the job's first `in_height` input rows, as if the image
    /// were that tall (the output shrinks to match); for strips of a larger image.
    pub(crate) fn launch_rows(
        &self,
        kernel: &Kernel<'_>,
        job: &DeviceJob,
        in_height: usize,
        stream: &Stream,
    ) -> Result<()> {
        let mut g = job.geometry;
        let rows = u32::try_from(in_height)
            .ok()
            .filter(|&h| h <= g.in_height && h > 2 * g.offset);
        let Some(rows) = rows else {
            return Err(Error::Image(format!(
                "a strip of {in_height} rows does not fit a job of {} rows",
                g.in_height
            )));
        };
        g.in_height = rows;
        g.out_height = rows - 2 * g.offset;
        self.launch_on(kernel, job, g, stream)
    }

    fn launch_on(&self, kernel: &Kernel<'_>, job: &DeviceJob, g: Geometry, stream: &Stream) -> Result<()> {
        if (kernel.variant, kernel.dtype) != (job.variant, job.dtype) {
            return Err(Error::Image(
                "kernel and job are for different variants or sample types".into(),
            ));
        }
        let (ow, oh, ch, r) = (g.out_width, g.out_height, g.channels, g.radius);
        let input = match &job.input {
            Input::Linear(buf) => buf.as_device_ptr().as_raw(),
            Input::Texture(tex) => tex.object(),
        };
        let output = job.output.as_device_ptr().as_raw();
        let f = &kernel.functions;
        let pixel_grid = (
            ow.div_ceil(launch::PIXEL_BLOCK.0),
            oh.div_ceil(launch::PIXEL_BLOCK.1),
            ch,
        );
        let common = [arg(&input), arg(&output), arg(&g)];
        let with_taps = [common[0], common[1], common[2], arg(&*job.taps)];
        match job.variant {
            Variant::Naive => {
                let filter = job.filter.as_device_ptr().as_raw();
                let args = [common[0], common[1], common[2], arg(&filter)];
                raw_launch(stream, &f[0], pixel_grid, launch::PIXEL_BLOCK, 0, &args)
            }
            Variant::Constant | Variant::Readonly | Variant::Texture => {
                raw_launch(stream, &f[0], pixel_grid, launch::PIXEL_BLOCK, 0, &with_taps)
            }
            Variant::Tiled => {
                let out = launch::tiled_out(r);
                let grid = (ow.div_ceil(out), oh.div_ceil(out), ch);
                let block = (launch::TILED_IN, launch::TILED_IN);
                raw_launch(stream, &f[0], grid, block, launch::TILED_SHARED_BYTES, &with_taps)
            }
            Variant::TiledOutput(i) => {
                let block = launch::TILED_OUTPUT_BLOCKS[i];
                let grid = (ow.div_ceil(block.0), oh.div_ceil(block.1), ch);
                let shared = launch::tiled_output_shared_bytes(block, r);
                raw_launch(stream, &f[0], grid, block, shared, &with_taps)
            }
            Variant::TiledCache => {
                let block = launch::TILED_CACHE_BLOCK;
                let grid = (ow.div_ceil(block.0), oh.div_ceil(block.1), ch);
                raw_launch(
                    stream,
                    &f[0],
                    grid,
                    block,
                    launch::TILED_CACHE_SHARED_BYTES,
                    &with_taps,
                )
            }
            Variant::Fast | Variant::Fast4x2 | Variant::SeparableFused => {
                let (tile, block, shared) = if job.variant != Variant::SeparableFused {
                    let rows = job.variant.fast_rows();
                    (
                        launch::fast_tile(rows),
                        launch::FAST_BLOCK,
                        launch::fast_shared_bytes(r, rows),
                    )
                } else {
                    (
                        launch::FUSED_TILE,
                        launch::FUSED_BLOCK,
                        launch::fused_shared_bytes(r),
                    )
                };
                let grid = (ow.div_ceil(tile.0), oh.div_ceil(tile.1), ch);
                // One entry point per radius: index r.
                raw_launch(stream, &f[r as usize], grid, block, shared, &with_taps)
            }
            Variant::Separable => {
                let sep = job
                    .separable
                    .as_ref()
                    .ok_or_else(|| Error::Filter("no separable state".into()))?;
                let tmp = sep.tmp.as_device_ptr().as_raw();
                let rows = [arg(&input), arg(&tmp), arg(&g), arg(&*sep.row)];
                let grid = (
                    ow.div_ceil(launch::ROW_SPAN),
                    g.in_height.div_ceil(launch::ROW_BLOCK.1),
                    ch,
                );
                raw_launch(
                    stream,
                    &f[0],
                    grid,
                    launch::ROW_BLOCK,
                    launch::row_shared_bytes(r),
                    &rows,
                )?;
                let cols = [arg(&tmp), arg(&output), arg(&g), arg(&*sep.column)];
                let grid = (
                    ow.div_ceil(launch::COL_BLOCK.0),
                    oh.div_ceil(launch::COL_SPAN),
                    ch,
                );
                raw_launch(
                    stream,
                    &f[1],
                    grid,
                    launch::COL_BLOCK,
                    launch::col_shared_bytes(r),
                    &cols,
                )
            }
        }
    }

    /// Device-to-device copy bandwidth, counting bytes read plus bytes written, in GB/s: the
    /// median of `runs` copies of a `bytes`-byte buffer after a warm-up copy.
    pub fn copy_bandwidth(&self, bytes: usize, runs: usize) -> Result<f64> {
        let src = DeviceBuffer::from_slice(&vec![1u8; bytes]).map_err(cuda("allocate the copy probe"))?;
        // SAFETY: written by the copies below before anything reads it.
        let mut dst =
            unsafe { DeviceBuffer::<u8>::uninitialized(bytes) }.map_err(cuda("allocate the copy probe"))?;
        let mut copy = |gpu: &Self| {
            // SAFETY: both buffers are device memory of `bytes` bytes that outlive the copy (`time`
            // waits for it).
            unsafe { dst.async_copy_from(&*src, &gpu.stream) }.map_err(cuda("copy on the device"))
        };
        self.time(&mut copy)?;
        let ms = stats::repeat(runs, || self.time(&mut copy))?.map_or(f64::NAN, |t| t.median);
        Ok(2.0 * bytes as f64 / ms / 1e6)
    }

    /// The FP32 fused multiply-add rate, in GFLOP/s, measured with the `fma_probe` kernel on
    /// enough blocks to fill every SM: the median of `runs` launches after a warm-up.
    pub fn fma_peak(&self, runs: usize) -> Result<f64> {
        let probe = self
            .module
            .get_function(names::FMA_PROBE)
            .map_err(cuda("find the FMA probe"))?;
        let (block, iters) = (256u32, 4096u32);
        let blocks = 16 * self.info.multiprocessors as u32;
        let threads = (block * blocks) as usize;
        // SAFETY: every element is written by the probe.
        let out =
            unsafe { DeviceBuffer::<f32>::uninitialized(threads) }.map_err(cuda("allocate the probe"))?;
        let ptr = out.as_device_ptr().as_raw();
        let seed = 0.5f32;
        let args = [arg(&ptr), arg(&iters), arg(&seed)];
        let run = |gpu: &Self| {
            // SAFETY: the arguments match `fma_probe(out: *mut f32, iters: u32, seed: f32)` and `out`
            // has one element per thread of the grid.
            unsafe { gpu.stream.launch(&probe, (blocks, 1, 1), (block, 1, 1), 0, &args) }
                .map_err(cuda("launch the FMA probe"))
        };
        self.time(run)?;
        let ms = stats::repeat(runs, || self.time(run))?.map_or(f64::NAN, |t| t.median);
        Ok(2.0 * 8.0 * f64::from(iters) * threads as f64 / ms / 1e6)
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        cust::memory::mem_get_info().map_err(cuda("read the free memory"))
    }
}

fn raw_launch(
    stream: &Stream,
    function: &Function<'_>,
    grid: (u32, u32, u32),
    block: (u32, u32),
    shared_bytes: u32,
    args: &[*mut c_void],
) -> Result<()> {
    if grid.1 > 65_535 {
        return Err(Error::Image(format!(
            "the image is too tall for this kernel ({} block rows, at most 65535)",
            grid.1
        )));
    }
    // SAFETY: `args` matches the kernel's PTX signature in number, order and type (each arm of
    // `launch` mirrors the kernel's Rust signature in gpu-kernels), the buffers were sized
    // from the same Geometry the kernel receives, and block and shared-memory sizes are those
    // the kernel documents.
    unsafe { stream.launch(function, grid, (block.0, block.1, 1), shared_bytes, args) }
        .map_err(cuda("launch a kernel"))
}

/// A kernel argument: a pointer to the value, as `cuLaunchKernel` takes it.
fn arg<T>(value: &T) -> *mut c_void {
    value as *const T as *mut c_void
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
