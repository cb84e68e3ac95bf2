//! Parsers of option values: counts, seeds, sigmas, sizes, byte sizes, variant names and encoder
//! choices. Each
//! returns the message clap prints after `invalid value '...' for '--option':`.

use super::args::{Compress, FileVariant, ShardChoice, TapList};
use ferroconv::engine::gpu::variant::InputKind;
use ferroconv::engine::gpu::{GpuSelection, Variant};
use ferroconv::io::files::TiffCompression;
use ferroconv::model::filter::MAX_SEPARABLE_SIZE;
use host_tools::batch::shard::Shard;

/// Parses a whole number of at least 0, saying what is wrong with a negative or fractional one.
pub fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim();
    t.parse::<usize>().map_err(|_| match t.parse::<f64>() {
        Ok(v) if v < 0.0 => "it is negative: give a whole number of at least 0".to_string(),
        Ok(_) => "give a whole number, without a fraction".to_string(),
        Err(_) => "not a number".to_string(),
    })
}

/// Parses a filter shape: `K` (square) or `RxC`, rows × columns as a numpy shape, each from 1.
pub fn parse_shape(s: &str) -> Result<(usize, usize), String> {
    let t = s.trim().to_ascii_lowercase();
    let side = |v: &str| match v.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a filter shape{}: give K or RxC with whole numbers from 1, e.g. 5 or 3x7",
            if t.contains('-') {
                " (a side is negative)"
            } else {
                ""
            }
        )),
    };
    match t.split_once('x') {
        Some((r, c)) => Ok((side(r)?, side(c)?)),
        None => side(&t).map(|k| (k, k)),
    }
}

/// Refuses a filter shape past the largest filter's (1023 a side) before anything of its size is
/// made: a box allocates its `rows × cols` taps before it checks them (40 GB for `--mask 100000`,
/// an overflow for `--mask 9223372036854775808`). `Filter::rect` checks the shape before the taps.
pub fn check_shape((rows, cols): (usize, usize)) -> ferroconv::Result<()> {
    if rows.max(cols) > MAX_SEPARABLE_SIZE {
        ferroconv::Filter::rect(rows, cols, Vec::new())?;
    }
    Ok(())
}

/// Parses `--origin`: `DY,DX` (or one value for both), whole numbers of either sign.
pub fn parse_origin(s: &str) -> Result<(isize, isize), String> {
    let v: Vec<isize> = s
        .split(',')
        .map(|t| t.trim().parse::<isize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("'{s}' is not an origin: give DY,DX, whole numbers, e.g. 0,-1"))?;
    match v[..] {
        [o] => Ok((o, o)),
        [dy, dx] => Ok((dy, dx)),
        _ => Err(format!(
            "'{s}' is not an origin: give DY,DX (two numbers) or one for both"
        )),
    }
}

/// Parses a finite number.
pub fn parse_finite(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err("give a finite number".to_string()),
    }
}

/// Parses a seed: a whole number from 0 to 2^64 - 1.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| "give a whole number from 0 to 18446744073709551615".to_string())
}

/// Parses a list of filter taps: numbers separated by commas or spaces.
pub fn parse_taps(s: &str) -> Result<TapList, String> {
    let taps: Vec<f32> = s
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f32>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(|| "give finite numbers separated by commas or spaces, e.g. 1,2,1".to_string())?;
    if taps.is_empty() {
        return Err("no taps: give at least one number".into());
    }
    Ok(TapList(taps))
}

/// Parses a JPEG quality: a whole number from 1 to 100.
pub fn parse_quality(s: &str) -> Result<u8, String> {
    match s.trim().parse::<u8>() {
        Ok(q @ 1..=100) => Ok(q),
        _ => Err("give a whole number from 1 to 100".to_string()),
    }
}

/// Parses `--compress`: `none`, `lzw` or `deflate` (TIFF), or a level from 0 to 9 (PNG).
pub fn parse_compress(s: &str) -> Result<Compress, String> {
    match s.trim() {
        "none" => Ok(Compress::Tiff(TiffCompression::None)),
        "lzw" => Ok(Compress::Tiff(TiffCompression::Lzw)),
        "deflate" => Ok(Compress::Tiff(TiffCompression::Deflate)),
        t => match t.parse::<u8>() {
            Ok(level @ 0..=9) => Ok(Compress::Png(level)),
            _ => Err("give none, lzw or deflate (TIFF), or a level from 0 to 9 (PNG)".to_string()),
        },
    }
}

/// Parses a Gaussian's standard deviation: a positive, finite number.
pub fn parse_sigma(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err("sigma must be a positive number".to_string()),
        Err(_) => Err("not a number".to_string()),
    }
}

/// Parses an image size, `WIDTHxHEIGHT`.
pub fn parse_size(s: &str) -> Result<(usize, usize), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{s}' is not WIDTHxHEIGHT"))
    };
    Ok((num(w)?, num(h)?))
}

/// Parses a GPU variant's name.
pub fn parse_variant(s: &str) -> Result<Variant, String> {
    Variant::parse(s).ok_or_else(|| {
        let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
        format!("unknown variant '{s}' (one of: {})", names.join(", "))
    })
}

/// Parses `--variant`: `cpu`, `auto` or a GPU variant.
pub fn parse_file_variant(s: &str) -> Result<FileVariant, String> {
    match s {
        "cpu" => return Ok(FileVariant::Cpu),
        "auto" => return Ok(FileVariant::Auto),
        _ => {}
    }
    let variant = parse_variant(s).map_err(|e| format!("{e}, auto or cpu"))?;
    if variant.spec().input == InputKind::Texture {
        // Files run through plans, which filter the caller's buffers; this one needs a texture.
        return Err(format!(
            "the {} variant runs in the main job only (it copies each image into a texture); \
             files take any other variant, auto or cpu",
            variant.name()
        ));
    }
    Ok(FileVariant::Gpu(variant))
}

/// Parses `--gpus`: `all`, a count, or a list of GPU numbers.
pub fn parse_gpus(s: &str) -> Result<GpuSelection, String> {
    GpuSelection::parse(s)
}

/// Parses `--shard`: `I/N` (0-based) or `off`.
pub fn parse_shard(s: &str) -> Result<ShardChoice, String> {
    if s == "off" {
        return Ok(ShardChoice::Off);
    }
    Shard::parse(s).map(ShardChoice::Shard)
}

/// Parses a size in bytes with an optional K, M, G or T suffix (powers of 1024; `B` optional).
pub fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim().trim_end_matches(['B', 'b']);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("'{s}' is not a size such as 256M or 2G")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: usize = digits
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 256M or 2G"))?;
    n.checked_mul(1usize << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("'{s}' is not a usable size"))
}

/// Parses a whole number of at least 1.
pub fn parse_positive(s: &str) -> Result<usize, String> {
    match parse_count(s)? {
        0 => Err("give a whole number of at least 1".to_string()),
        n => Ok(n),
    }
}

/// Parses a filter's side: odd, from 1 to the largest the kernels take.
pub fn parse_filter_size(s: &str) -> Result<usize, String> {
    let k = parse_count(s)?;
    ferroconv::model::filter::check_size(k).map_err(|e| e.to_string())?;
    Ok(k)
}
