//! `CpuPlan`: the library's CPU plan of `f64` taps on the raw addresses of packed float64 and
//! float32 numpy arrays, computed in the arrays' own type.

use crate::to_py;
use ferroconv::plan::{CpuPlan as Plan, Real};
use ferroconv::{Border, Error};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A filter on the CPU: `f64` taps on packed float64 or float32 host arrays.
#[pyclass(frozen, module = "ferroconv._native")]
pub(crate) struct CpuPlan {
    plan: Plan,
}

/// Images of `width x height x channels` samples, `images` of them.
type Shape = (usize, usize, usize, usize);

impl CpuPlan {
    /// Runs the plan on `src` into `dst`, host addresses of packed `T` arrays of `shape`.
    fn run<T: Real>(&self, py: Python<'_>, src: usize, dst: usize, shape: Shape) -> PyResult<()> {
        let (width, height, channels, images) = shape;
        let len = images
            .checked_mul(height)
            .and_then(|n| n.checked_mul(width))
            .and_then(|n| n.checked_mul(channels))
            .filter(|&n| n > 0)
            .ok_or_else(|| to_py(Error::InvalidRequest("an empty or too large batch".into())))?;
        let bytes = len * size_of::<T>();
        if src < dst + bytes && dst < src + bytes {
            // Two slices over one memory would be undefined behaviour; the package computes
            // such calls into a new array.
            return Err(to_py(Error::InvalidRequest(
                "the output overlaps the input".into(),
            )));
        }
        if !src.is_multiple_of(align_of::<T>()) || !dst.is_multiple_of(align_of::<T>()) {
            return Err(to_py(Error::InvalidRequest("unaligned arrays".into())));
        }
        // SAFETY: the package passes the data addresses of live, packed, aligned (checked above)
        // numpy arrays of `len` samples of `T` that it holds until the call returns: `src` the
        // input, `dst` a separate writable array (not overlapping, checked above); nothing else
        // writes them during the call.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(src as *const T, len),
                std::slice::from_raw_parts_mut(dst as *mut T, len),
            )
        };
        py.detach(|| self.plan.run(src, dst, shape)).map_err(to_py)
    }
}

#[pymethods]
impl CpuPlan {
    /// `taps` of a `shape` filter (row-major) whose tap `centre` lies over the output sample,
    /// with the library's border called `border_name` and its constant `cval`.
    #[new]
    fn new(
        taps: Vec<f64>,
        shape: (usize, usize),
        centre: (usize, usize),
        border_name: &str,
        cval: f64,
    ) -> PyResult<Self> {
        let Some(border) = Border::ALL.into_iter().find(|b| b.name() == border_name) else {
            return Err(PyValueError::new_err(format!("unknown border '{border_name}'")));
        };
        let plan = Plan::new(&taps, shape, centre, border, cval).map_err(to_py)?;
        Ok(Self { plan })
    }

    /// Filters `images` packed `width x height x channels` float64 images at host address `src`
    /// into another array of that shape at `dst`, in float64.
    #[allow(clippy::too_many_arguments)]
    fn run_f64(
        &self,
        py: Python<'_>,
        src: usize,
        dst: usize,
        width: usize,
        height: usize,
        channels: usize,
        images: usize,
    ) -> PyResult<()> {
        self.run::<f64>(py, src, dst, (width, height, channels, images))
    }

    /// As `run_f64`, on float32 images, in float32.
    #[allow(clippy::too_many_arguments)]
    fn run_f32(
        &self,
        py: Python<'_>,
        src: usize,
        dst: usize,
        width: usize,
        height: usize,
        channels: usize,
        images: usize,
    ) -> PyResult<()> {
        self.run::<f32>(py, src, dst, (width, height, channels, images))
    }
}
