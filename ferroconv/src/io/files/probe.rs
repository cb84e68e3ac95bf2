//! The sample types of a file's pages from its header alone, without decoding its pixels: what
//! the command line checks a constant border's value against before a batch starts.

use super::{FileError, Format};
use crate::model::image::DType;
use std::io::BufReader;
use std::path::Path;

/// The sample type each page of the image file at `path` decodes to (one page but for a
/// multi-page TIFF; only page `page` when given), read from its header: 8-bit for 1- to 8-bit
/// samples, 16-bit, or `f32` for floats (and RAW files). Reads no pixels; a file the decoders
/// would refuse may still get an answer here, and is refused when it is read.
pub fn sample_types(path: &Path, page: Option<usize>) -> Result<Vec<DType>, FileError> {
    let format = Format::of(path);
    if format == Some(Format::Raw) {
        return Ok(vec![DType::F32]);
    }
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let decode = |reason: String| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(read_err)?;
    let mut reader = image::ImageReader::new(BufReader::new(file));
    if let Ok(f) = image::ImageFormat::from_path(path) {
        reader.set_format(f);
    }
    let reader = reader.with_guessed_format().map_err(read_err)?;
    if reader.format() == Some(image::ImageFormat::Tiff) {
        return tiff_types(reader.into_inner(), page).map_err(|e| decode(e.to_string()));
    }
    let decoder = reader.into_decoder().map_err(|e| decode(e.to_string()))?;
    let color = image::ImageDecoder::color_type(&decoder);
    Ok(vec![
        match color.bytes_per_pixel() / color.channel_count().max(1) {
            1 => DType::U8,
            2 => DType::U16,
            _ => DType::F32,
        },
    ])
}

/// The sample type of each page of a TIFF (or of page `page`), from the bits of its samples.
fn tiff_types<R: std::io::BufRead + std::io::Seek>(
    source: R,
    page: Option<usize>,
) -> Result<Vec<DType>, tiff::TiffError> {
    let mut decoder = tiff::decoder::Decoder::new(source)?;
    let mut types = Vec::new();
    let mut n = 0;
    loop {
        if page.is_none_or(|p| p == n) {
            let bits = decoder.colortype()?.bit_depth();
            types.push(match bits {
                0..=8 => DType::U8,
                9..=16 => DType::U16,
                _ => DType::F32,
            });
        }
        if !decoder.more_images() || page.is_some_and(|p| p <= n) {
            break;
        }
        decoder.next_image()?;
        n += 1;
    }
    Ok(types)
}
