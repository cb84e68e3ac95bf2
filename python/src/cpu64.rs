//! `Host64`: the library's float64 CPU plan on the raw addresses of packed float64 numpy arrays.

use crate::to_py;
use ferroconv::plan::CpuFloat64Plan;
use ferroconv::{Border, Error};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A float64 filter on the CPU: `f64` taps on packed `f64` host arrays, computed in `f64`.
#[pyclass(frozen, module = "ferroconv._native")]
pub(crate) struct Host64 {
    plan: CpuFloat64Plan,
}

#[pymethods]
impl Host64 {
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
        let plan = CpuFloat64Plan::new(&taps, shape, centre, border, cval).map_err(to_py)?;
        Ok(Self { plan })
    }

    /// Filters `images` packed `width x height x channels` float64 images at host address `src`
    /// into another array of that shape at `dst`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        src: usize,
        dst: usize,
        width: usize,
        height: usize,
        channels: usize,
        images: usize,
    ) -> PyResult<()> {
        let len = images
            .checked_mul(height)
            .and_then(|n| n.checked_mul(width))
            .and_then(|n| n.checked_mul(channels))
            .filter(|&n| n > 0)
            .ok_or_else(|| to_py(Error::InvalidRequest("an empty or too large batch".into())))?;
        let bytes = len * size_of::<f64>();
        if src < dst + bytes && dst < src + bytes {
            // Two slices over one memory would be undefined behaviour; the package computes
            // such calls into a new array.
            return Err(to_py(Error::InvalidRequest(
                "the output overlaps the input".into(),
            )));
        }
        if src % align_of::<f64>() != 0 || dst % align_of::<f64>() != 0 {
            return Err(to_py(Error::InvalidRequest("unaligned float64 arrays".into())));
        }
        // SAFETY: the package passes the data addresses of live, packed, aligned (checked above)
        // float64 numpy arrays of `len` samples that it holds until the call returns: `src` the
        // input, `dst` a separate writable array (not overlapping, checked above); nothing else
        // writes them during the call.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(src as *const f64, len),
                std::slice::from_raw_parts_mut(dst as *mut f64, len),
            )
        };
        py.detach(|| self.plan.run(src, dst, (width, height, channels, images)))
            .map_err(to_py)
    }
}
