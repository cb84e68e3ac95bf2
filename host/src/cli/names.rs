//! clap's parsers of the library's named enums ([`ferroconv::named::Named`]): their names, aliases and
//! the help `--help` prints for each value.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use ferroconv::model::filter::FilterKind;
use ferroconv::named::{self, Named};
use ferroconv::{Border, DType};
use host_tools::bench::sweep::TimingMethod;
use host_tools::verify::jobs::SeparableMode;

/// The parser of a [`Named`] enum, offering its names (and aliases) with `help` for each.
fn parser<T: Named + Send + Sync>(help: fn(T) -> &'static str) -> impl TypedValueParser<Value = T> {
    let values = T::VALUES.iter().map(|&v| {
        PossibleValue::new(v.name())
            .aliases(v.aliases().iter().copied())
            .help(help(v))
    });
    PossibleValuesParser::new(values).try_map(|s| named::parse::<T>(&s))
}

/// `--border`, `--borders`.
pub fn border() -> impl TypedValueParser<Value = Border> {
    parser(|b| match b {
        Border::Zero => "Pixels outside are 0 (\"ghost cells\")",
        Border::Replicate => "Clamp to the nearest edge pixel: `a a | a b c d | d d`",
        Border::Reflect => {
            "Mirror without repeating the edge pixel: `c b | a b c d | c b` (scipy's mirror, OpenCV's REFLECT_101)"
        }
        Border::Symmetric => {
            "Mirror repeating the edge pixel: `b a | a b c d | d c` (scipy's reflect, OpenCV's REFLECT)"
        }
        Border::Wrap => "Periodic: `c d | a b c d | a b`",
        Border::Constant(_) => {
            "Pixels outside are --cval, in levels of the sample type: 0 to 255 for 8-bit images, 0 to 65535 \
             for 16-bit ones, the value itself for f32 (OpenCV's borderValue)"
        }
        Border::Valid => "No padding: only outputs whose whole window is inside; (W - 2r) × (H - 2r)",
    })
}

/// `--dtype`, `--dtypes`.
pub fn dtype() -> impl TypedValueParser<Value = DType> {
    parser(|d| match d {
        DType::U8 => "8-bit unsigned; value = sample / 255",
        DType::U16 => "16-bit unsigned; value = sample / 65535",
        DType::F32 => "32-bit float, used as is",
        DType::F16 => "16-bit float, used as is",
        DType::BF16 => "bfloat16, used as is",
    })
}

/// `--filter`.
pub fn filter() -> impl TypedValueParser<Value = FilterKind> {
    parser(|k| match k {
        FilterKind::Box => "Averaging filter: every tap 1/k²",
        FilterKind::Sharpen => "Sharpen: every tap -1, the centre k² (taps sum to 1)",
        FilterKind::Edge => "Edge detection (Laplacian): every tap -1, the centre k² - 1 (taps sum to 0)",
        FilterKind::Gaussian => {
            "Gaussian blur with standard deviation --sigma, normalized to sum 1 (separable)"
        }
        FilterKind::SobelX => {
            "Sobel derivative along x: binomial smoothing down, binomial difference across (k >= 3)"
        }
        FilterKind::SobelY => "Sobel derivative along y (k >= 3)",
        FilterKind::Emboss => "Emboss: tap (i, j) = i + j - 2r, the centre 1",
        FilterKind::Identity => "Identity: 1 at the centre",
    })
}

/// `--separable`.
pub fn separable() -> impl TypedValueParser<Value = SeparableMode> {
    parser(|m| match m {
        SeparableMode::On => "Include it, and fail if the filter is not rank-1",
        SeparableMode::Off => "Leave it out",
        SeparableMode::Auto => "Include it when the filter is rank-1",
    })
}

/// `host bench --timing`.
pub fn timing() -> impl TypedValueParser<Value = TimingMethod> {
    parser(|t| match t {
        TimingMethod::BackToBack => {
            "The timed launches are queued behind a GPU-side wait and run back to back, each between \
             its own pair of events: the kernel's GPU time alone, as `peers.cu` measures (the default)"
        }
        TimingMethod::HostLaunched => {
            "Each launch is queued from the host between two events and waited for: short kernels \
             then include the host's launch latency (the method before `back-to-back`)"
        }
    })
}
