//! `ferroconv._native`: the library's `Filter2D` plan for the Python package, run on the raw
//! addresses the package takes from numpy arrays (host memory) and from CUDA arrays
//! (`__cuda_array_interface__`: device memory, on the caller's stream). The module is private:
//! `ferroconv/__init__.py` checks every shape, dtype and address before it calls in.

use ferroconv::model::image::DType;
use ferroconv::plan::{Filter2D, Float64Plan, RawImage, StreamRef};
use ferroconv::{Border, Error, Filter, Gpu, fork};
use pyo3::exceptions::{PyRuntimeError, PyRuntimeWarning, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

mod cpu;
mod host;
mod magnitude;

use host::Host;

/// The library's error as a Python exception: faults of the GPU or its driver are
/// `RuntimeError`, everything the caller asked wrongly `ValueError`.
pub(crate) fn to_py(e: Error) -> PyErr {
    match e {
        Error::Cuda { .. }
        | Error::NoGpu(_)
        | Error::Jit(_)
        | Error::Launch(_)
        | Error::WrongResult(_)
        | Error::Autotune(_) => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The library's border called `name`; `cval` is the constant border's value, in sample levels
/// of the image's type (a plan refuses a value that type cannot hold).
fn border(name: &str, cval: f64) -> PyResult<Border> {
    match Border::ALL.into_iter().find(|b| b.name() == name) {
        Some(Border::Constant(_)) => Border::constant(cval).map_err(to_py),
        Some(b) => Ok(b),
        None => Err(PyValueError::new_err(format!("unknown border '{name}'"))),
    }
}

fn dtype(name: &str) -> PyResult<DType> {
    DType::EVERY
        .into_iter()
        .find(|d| d.suffix() == name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown sample type '{name}'")))
}

/// Devices a process may open (CUDA ordinals below this).
const MAX_DEVICES: usize = 64;

/// GPU `ordinal`, opened once per process and shared by every plan on it; never in a child
/// forked after this process started CUDA (`ferroconv::fork`), where the parent's GPUs are kept
/// but not used.
pub(crate) fn gpu(ordinal: usize) -> Result<&'static Gpu, Error> {
    if fork::cuda_forked() {
        return Err(Error::NoGpu(fork::FORKED.into()));
    }
    static GPUS: [OnceLock<Result<Gpu, String>>; MAX_DEVICES] = [const { OnceLock::new() }; MAX_DEVICES];
    let slot = GPUS
        .get(ordinal)
        .ok_or_else(|| Error::InvalidRequest(format!("no CUDA device {ordinal}")))?;
    match slot.get_or_init(|| Gpu::open(ordinal).map_err(|e| e.to_string())) {
        Ok(gpu) => Ok(gpu),
        Err(why) => Err(Error::NoGpu(why.clone())),
    }
}

/// The GPUs this process can use (0 without a driver or a device, and in a child forked after
/// its parent started CUDA).
#[pyfunction]
fn device_count() -> usize {
    if fork::cuda_forked() {
        return 0;
    }
    ferroconv::engine::gpu::device_count().unwrap_or(0)
}

/// Whether a GPU can be used (device 0 opens).
#[pyfunction]
fn gpu_available() -> bool {
    gpu(0).is_ok()
}

/// The library's filter of `taps` (`shape`, row-major) centred by scipy's `origin`: raises
/// `ValueError` with the library's message where it is not one.
fn filter(taps: Vec<f32>, (rows, cols): (usize, usize), origin: (isize, isize)) -> PyResult<Filter> {
    Filter::rect(rows, cols, taps)
        .and_then(|f| f.with_origin(origin))
        .map_err(to_py)
}

/// Checks a filter as [`Plan`] would, without planning it.
#[pyfunction]
fn check_filter(taps: Vec<f32>, shape: (usize, usize), origin: (isize, isize)) -> PyResult<()> {
    filter(taps, shape, origin).map(drop)
}

/// Where a plan runs: a GPU, several GPUs (host batches spread over them), or `"cpu"`.
#[derive(FromPyObject)]
enum Devices {
    One(usize),
    Many(Vec<usize>),
    Named(String),
}

/// A filter and a border planned for device 0 (or the CPU where no GPU can be used), or for
/// `device`: a CUDA device, a list of them (host calls spread over them; device calls run on
/// the first), or `"cpu"`; see `ferroconv.Filter2D`. With `truncate`, integer results are
/// truncated toward zero as scipy.ndimage casts them (the library's `with_truncate`), else
/// rounded to the nearest level.
#[pyclass(module = "ferroconv._native")]
struct Plan {
    /// One plan per device (one on the CPU), each filtering as the first.
    plans: Mutex<Vec<Filter2D>>,
    /// The filter and border, for the CPU plan a forked child runs instead of a GPU plan.
    filter: Filter,
    border: Border,
    /// Integer results are truncated (else rounded).
    truncate: bool,
    /// The process that built the plan: in another (a forked child), the plan is left alone.
    pid: u32,
}

/// Whether the CPU-in-a-forked-child warning was given (once per process).
static WARNED: AtomicBool = AtomicBool::new(false);

/// Warns once that a forked child computes host arrays on the CPU.
fn warn_forked(py: Python<'_>) -> PyResult<()> {
    if WARNED.swap(true, Ordering::Relaxed) {
        return Ok(());
    }
    let message = std::ffi::CString::new(format!(
        "ferroconv: {}; numpy arrays are filtered on the CPU in this process",
        fork::FORKED
    ))
    .expect("no NUL in the message");
    PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &message, 1)
}

#[pymethods]
impl Plan {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (taps, shape, origin, border_name, cval=0.0, device=None, truncate=false))]
    fn new(
        py: Python<'_>,
        taps: Vec<f32>,
        shape: (usize, usize),
        origin: (isize, isize),
        border_name: &str,
        cval: f64,
        device: Option<Devices>,
        truncate: bool,
    ) -> PyResult<Self> {
        let filter = filter(taps, shape, origin)?;
        let border = border(border_name, cval)?;
        let on = |d: usize| Filter2D::new(gpu(d)?, &filter, border);
        let plans = match device {
            Some(Devices::One(d)) => vec![on(d)],
            Some(Devices::Many(ds)) if !ds.is_empty() => ds.into_iter().map(on).collect(),
            Some(Devices::Named(name)) if name == "cpu" => vec![Ok(Filter2D::cpu(&filter, border))],
            Some(_) => return Err(PyValueError::new_err("device must be a GPU index, a list of them, or 'cpu'")),
            None => vec![match gpu(0) {
                Ok(g) => Filter2D::new(g, &filter, border),
                Err(Error::NoGpu(_)) => {
                    if fork::cuda_forked() {
                        warn_forked(py)?;
                    }
                    Ok(Filter2D::cpu(&filter, border))
                }
                Err(e) => Err(e),
            }],
        };
        let plans = plans
            .into_iter()
            // Every channel is filtered, alpha included, as scipy and PyTorch do.
            .map(|p| p.map(|p| p.with_filter_alpha(true).with_truncate(truncate)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_py)?;
        Ok(Self {
            plans: Mutex::new(plans),
            filter,
            border,
            truncate,
            pid: fork::process_id(),
        })
    }

    /// Whether integer results are truncated (else rounded).
    #[getter]
    fn truncate(&self) -> bool {
        self.truncate
    }

    /// Whether the plan runs on a GPU.
    #[getter]
    fn on_gpu(&self) -> bool {
        // In a forked child the parent's plan runs on the CPU (`run_host`), and its lock, which a
        // thread that was not copied may hold, is never taken.
        self.pid == fork::process_id() && self.lock()[0].gpu().is_some()
    }

    /// The GPU variant chosen for the last shape run (`None` on the CPU, before a run, and in a
    /// forked child).
    #[getter]
    fn variant(&self) -> Option<&'static str> {
        if self.pid != fork::process_id() {
            return None;
        }
        self.lock()[0].variant().map(|v| v.name())
    }

    /// Runs the plan on `images` host images stacked one below the other: `src` and `dst` are
    /// addresses of rows `src_stride` and `dst_stride` samples apart, of `dtype_name` samples.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (src, src_stride, dst, dst_stride, width, height, channels, dtype_name, images))]
    fn run_host(
        &self,
        py: Python<'_>,
        src: usize,
        src_stride: usize,
        dst: usize,
        dst_stride: usize,
        width: usize,
        height: usize,
        channels: usize,
        dtype_name: &str,
        images: usize,
    ) -> PyResult<()> {
        let shape = Host {
            src,
            src_stride,
            dst,
            dst_stride,
            width,
            height,
            channels,
            images,
        };
        let d = dtype(dtype_name)?;
        if self.pid != fork::process_id() {
            // A plan of the parent in a forked child: its lock may be held by a thread that was
            // not copied, and its GPU cannot be used. A CPU plan of the same filter runs instead.
            if fork::cuda_forked() {
                warn_forked(py)?;
            }
            let mut cpu = Filter2D::cpu(&self.filter, self.border)
                .with_filter_alpha(true)
                .with_truncate(self.truncate);
            return py.detach(|| shape.run_any(d, std::slice::from_mut(&mut cpu))).map_err(to_py);
        }
        py.detach(|| shape.run_any(d, &mut self.lock())).map_err(to_py)
    }

    /// Queues the plan on `images` device images (packed rows `pitch` bytes apart, images
    /// `height · pitch` bytes apart) on the CUDA stream `stream` (a raw handle; 0 is the legacy
    /// default stream); returns without waiting.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (src, src_pitch, dst, dst_pitch, width, height, channels, dtype_name, images, stream))]
    fn run_device(
        &self,
        py: Python<'_>,
        src: u64,
        src_pitch: usize,
        dst: u64,
        dst_pitch: usize,
        width: usize,
        height: usize,
        channels: usize,
        dtype_name: &str,
        images: usize,
        stream: usize,
    ) -> PyResult<()> {
        let d = dtype(dtype_name)?;
        self.in_its_process()?;
        py.detach(|| {
            let mut plans = self.lock();
            let plan = &mut plans[0];
            let (ow, oh) = plan.output_size(width, height)?;
            let raw = |ptr, pitch, width, height| RawImage {
                ptr,
                pitch,
                width,
                height,
                channels,
                dtype: d,
                images,
            };
            // SAFETY: the package passes the data pointers of live CUDA arrays of the plan's
            // device that it holds references to until the call returns and that the stream
            // orders (their own framework's current stream, or the caller's `stream=`): `src`
            // of `images × height` rows at `src_pitch`, `dst` a separate array of the result's
            // shape, and `stream` a stream handle of the framework, in the device's primary
            // context. The frameworks' allocators keep the memory until work queued on their
            // stream before a free has run.
            unsafe {
                plan.run_raw(
                    raw(src, src_pitch, width, height),
                    raw(dst, dst_pitch, ow, oh),
                    StreamRef::from_raw(stream as *mut _),
                )
            }
        })
        .map_err(to_py)
    }

    /// Queues `sqrt(c * c + v * v)` of the plan's float32 result `v` of `images` packed images at
    /// `src` and the sample `c` at the same place of the packed float32 array `with_` (of the
    /// result's shape; it may be `dst`) into `dst`, on `stream`; returns whether it did (False,
    /// nothing queued, where the plan's variant for the shape cannot: then filter and combine
    /// apart).
    #[allow(clippy::too_many_arguments)]
    fn run_device_hypot(
        &self,
        py: Python<'_>,
        src: u64,
        with_: u64,
        dst: u64,
        width: usize,
        height: usize,
        channels: usize,
        images: usize,
        stream: usize,
    ) -> PyResult<bool> {
        self.in_its_process()?;
        py.detach(|| {
            let mut plans = self.lock();
            let plan = &mut plans[0];
            let (ow, oh) = plan.output_size(width, height)?;
            let raw = |ptr, width: usize, height| RawImage {
                ptr,
                pitch: width * channels * 4,
                width,
                height,
                channels,
                dtype: DType::F32,
                images,
            };
            // SAFETY: the package passes the data pointers of live, packed float32 CUDA arrays
            // of the plan's device that it holds until the call returns and that the stream
            // orders (the framework's current stream): `src` of `images` images of this shape,
            // `dst` a separate array of the result's shape and `with_` one of that shape too
            // (`dst` itself, or an array nothing else writes meanwhile); `stream` a stream of the
            // device's primary context.
            unsafe { plan.run_raw_hypot(raw(src, width, height), with_, raw(dst, ow, oh), StreamRef::from_raw(stream as *mut _)) }
        })
        .map_err(to_py)
    }
}

impl Plan {
    /// An error unless this is the process that made the plan: a forked child must not use the
    /// parent's GPU handles.
    fn in_its_process(&self) -> PyResult<()> {
        if self.pid == fork::process_id() {
            return Ok(());
        }
        Err(PyRuntimeError::new_err(if fork::cuda_forked() {
            fork::FORKED
        } else {
            "a plan made before this process was forked cannot run CUDA arrays here: \
             start worker processes with the 'spawn' (or 'forkserver') method"
        }))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Filter2D>> {
        self.plans.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A float64 filter on one GPU: `f64` taps on packed `f64` CUDA arrays, computed in `f64`.
#[pyclass(frozen)]
struct Plan64 {
    plan: Float64Plan,
    /// The device the plan runs on.
    device: usize,
    /// The process that made it (a forked child must not use the parent's GPU handles).
    pid: u32,
}

#[pymethods]
impl Plan64 {
    /// `taps` of a `shape` filter (row-major) whose tap `centre` lies over the output sample,
    /// with the library's border called `border_name` and its constant `cval`, on GPU `device`.
    #[new]
    #[pyo3(signature = (taps, shape, centre, border_name, cval, device))]
    fn new(
        taps: Vec<f64>,
        shape: (usize, usize),
        centre: (usize, usize),
        border_name: &str,
        cval: f64,
        device: usize,
    ) -> PyResult<Self> {
        let border = match Border::ALL.into_iter().find(|b| b.name() == border_name) {
            Some(b) => b,
            None => return Err(PyValueError::new_err(format!("unknown border '{border_name}'"))),
        };
        let gpu = gpu(device).map_err(to_py)?;
        let plan = Float64Plan::new(gpu, &taps, shape, centre, border, cval).map_err(to_py)?;
        Ok(Self {
            plan,
            device,
            pid: fork::process_id(),
        })
    }

    /// The GPU the plan runs on.
    #[getter]
    fn device(&self) -> usize {
        self.device
    }

    /// Queues the filter of `images` packed `width x height x channels` float64 images at
    /// device address `src` into a separate array of that shape at `dst` on `stream`.
    #[allow(clippy::too_many_arguments)]
    fn run_device(
        &self,
        py: Python<'_>,
        src: u64,
        dst: u64,
        width: usize,
        height: usize,
        channels: usize,
        images: usize,
        stream: usize,
    ) -> PyResult<()> {
        if self.pid != fork::process_id() {
            return Err(PyRuntimeError::new_err(fork::FORKED));
        }
        // SAFETY: the package passes the data pointers of live, packed float64 CUDA arrays of
        // the plan's device that it holds until the call returns and that the stream orders
        // (the framework's current stream): `src` of `images` images of this shape, `dst` a
        // fresh array of the same shape; `stream` a stream of the device's primary context.
        py.detach(|| unsafe {
            self.plan.run_raw(
                src,
                dst,
                (width, height, channels, images),
                StreamRef::from_raw(stream as *mut _),
            )
        })
        .map_err(to_py)
    }
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Plan>()?;
    m.add_class::<Plan64>()?;
    m.add_class::<magnitude::Magnitude>()?;
    m.add_class::<cpu::CpuPlan>()?;
    m.add_function(wrap_pyfunction!(gpu_available, m)?)?;
    m.add_function(wrap_pyfunction!(device_count, m)?)?;
    m.add_function(wrap_pyfunction!(check_filter, m)?)?;
    Ok(())
}
