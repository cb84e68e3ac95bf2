//! TIFF files through the `tiff` crate: every page or the one picked, each checked against the
//! memory bound and the file's length before its samples are decoded; gray, gray+alpha (widened
//! to RGBA), RGB and RGBA, chunky or planar, 1- to 64-bit samples.

use super::{Metadata, check_memory};
use crate::io::files::FileError;
use crate::model::image::{Image, Samples, check_dims};
use std::io::{BufRead, Seek};
use std::path::Path;

/// Reads a TIFF from `source` (a file of `file_len` bytes, named `path` in errors): `page` where
/// one is picked, else its only page, or every page where `all` allows several.
pub(super) fn read_tiff<R: BufRead + Seek>(
    source: R,
    path: &Path,
    file_len: u64,
    max_bytes: u64,
    page: Option<usize>,
    all: bool,
) -> Result<(Vec<Image>, Metadata), FileError> {
    use tiff::decoder::{Decoder, Limits};
    let decode = |e| tiff_error(path, e);
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    // A gigapixel image has hundreds of thousands of strips: their offset and size tables grow
    // with it (the default allows 1 MiB).
    limits.ifd_value_size = limits.ifd_value_size.max(limits.decoding_buffer_size / 256);
    let mut decoder = Decoder::new(source).map_err(decode)?.with_limits(limits);
    let metadata = Metadata {
        dpi: tiff_dpi(&mut decoder),
        icc: tiff_icc(&mut decoder),
        ..Metadata::default()
    };
    let mut pages = 1;
    while decoder.more_images() {
        decoder.next_image().map_err(decode)?;
        pages += 1;
    }
    let last = pages - 1;
    let wanted: Vec<usize> = match page {
        Some(n) if n > last => {
            return Err(FileError::Decode {
                path: path.to_path_buf(),
                reason: format!("has {pages} page(s): no page {n} (0-based)"),
            });
        }
        Some(n) => vec![n],
        None if pages > 1 && !all => {
            return Err(FileError::MultiPage {
                path: path.to_path_buf(),
                pages,
            });
        }
        None => (0..pages).collect(),
    };
    // The pages together take at most `max_bytes`.
    let mut left = max_bytes;
    let mut images = Vec::with_capacity(wanted.len());
    for n in wanted {
        decoder.seek_to_image(n).map_err(decode)?;
        let image = read_tiff_page(&mut decoder, path, file_len, left)?;
        left = left.saturating_sub(image.byte_len() as u64);
        images.push(image);
    }
    Ok((images, metadata))
}

/// The ICC profile of a TIFF's first page (tag 34675), where it has one.
fn tiff_icc<R: std::io::Read + Seek>(decoder: &mut tiff::decoder::Decoder<R>) -> Option<Vec<u8>> {
    use tiff::decoder::ifd::Value;
    match decoder.find_tag(tiff::tags::Tag::IccProfile).ok()?? {
        Value::List(values) => values
            .into_iter()
            .map(|v| match v {
                Value::Byte(b) => Some(b),
                _ => None,
            })
            .collect(),
        Value::Byte(b) => Some(vec![b]),
        _ => None,
    }
}

/// The resolution of a TIFF's first page, in dots per inch (ResolutionUnit 2: the inch, 3: the
/// centimetre; 1, none, gives only the aspect ratio).
fn tiff_dpi<R: std::io::Read + Seek>(decoder: &mut tiff::decoder::Decoder<R>) -> Option<(f64, f64)> {
    use tiff::tags::Tag;
    let unit = decoder
        .find_tag_unsigned::<u16>(Tag::ResolutionUnit)
        .ok()
        .flatten()
        .unwrap_or(2);
    let scale = match unit {
        2 => 1.0,
        3 => 2.54,
        _ => return None,
    };
    let mut value = |tag| match decoder.find_tag(tag).ok()?? {
        tiff::decoder::ifd::Value::Rational(n, d) if d > 0 => Some(f64::from(n) / f64::from(d)),
        other => other.into_f64().ok(),
    };
    let (x, y) = (value(Tag::XResolution)?, value(Tag::YResolution)?);
    (x > 0.0 && y > 0.0).then_some((x * scale, y * scale))
}

/// A TIFF decoding error as a file error: an early end of the data says the file is truncated.
fn tiff_error(path: &Path, e: tiff::TiffError) -> FileError {
    FileError::Decode {
        path: path.to_path_buf(),
        reason: match e {
            tiff::TiffError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                format!("the file is truncated or corrupt: its TIFF data ends early ({e})")
            }
            e => e.to_string(),
        },
    }
}

/// The page `decoder` is at, refused if its samples would take more than `max_bytes`.
fn read_tiff_page<R: std::io::Read + Seek>(
    decoder: &mut tiff::decoder::Decoder<R>,
    path: &Path,
    file_len: u64,
    max_bytes: u64,
) -> Result<Image, FileError> {
    use tiff::decoder::DecodingResult;
    let decode = |e| tiff_error(path, e);
    let refuse = |reason: String| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let (w, h) = decoder.dimensions().map_err(decode)?;
    check_dims(w as usize, h as usize).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })?;
    let unsupported = |what: String| {
        FileError::unsupported(
            path,
            format!("{what} TIFF images are not supported (gray, gray+alpha, RGB or RGBA)"),
        )
    };
    let color = decoder.colortype().map_err(decode)?;
    // Channels in the file, and in the image read (gray+alpha is widened to RGBA, as for PNG).
    let (stored, channels, bits) = match color {
        tiff::ColorType::Gray(b) => (1, 1, b),
        // The `tiff` crate calls gray+alpha "multiband" with 2 samples.
        tiff::ColorType::GrayA(b)
        | tiff::ColorType::Multiband {
            bit_depth: b,
            num_samples: 2,
        } => (2, 4, b),
        tiff::ColorType::RGB(b) => (3, 3, b),
        tiff::ColorType::RGBA(b) => (4, 4, b),
        tiff::ColorType::Palette(_) => return Err(unsupported("palette (indexed colour)".into())),
        tiff::ColorType::CMYK(_) | tiff::ColorType::CMYKA(_) => return Err(unsupported("CMYK".into())),
        tiff::ColorType::YCbCr(_) => return Err(unsupported("YCbCr".into())),
        tiff::ColorType::Lab(_) => return Err(unsupported("CIE L*a*b*".into())),
        tiff::ColorType::Multiband { num_samples, .. } => {
            return Err(unsupported(format!("{num_samples}-sample (multiband)")));
        }
        other => return Err(unsupported(format!("{} samples a pixel", other.num_samples()))),
    };
    let planar = matches!(
        decoder.find_tag_unsigned::<u16>(tiff::tags::Tag::PlanarConfiguration),
        Ok(Some(2))
    );
    if planar && (bits < 8 || decoder.get_chunk_type() != tiff::decoder::ChunkType::Strip) {
        return Err(unsupported(
            "tiled or sub-byte planar (a plane per channel)".into(),
        ));
    }
    if bits < 8 && stored != 1 {
        return Err(unsupported(format!("{bits}-bit colour")));
    }
    // Bytes a decoded sample takes (1-, 2- and 4-bit gray become 8-bit), then the larger of the
    // decoder's buffer and the image made of it (gray+alpha widened, 64-bit floats narrowed).
    let sample_bytes = u64::from(bits.max(8)).div_ceil(8);
    let (wide, high) = (u64::from(w), u64::from(h));
    let decoded = wide * high * stored as u64 * sample_bytes;
    let image = wide * high * channels as u64 * sample_bytes.min(4);
    check_memory(decoded.max(image), max_bytes).map_err(refuse)?;
    // Compression 1 is none: the samples are all in the file (rows of whole bytes).
    let in_file = (wide * stored as u64 * u64::from(bits)).div_ceil(8) * high;
    let compression = decoder.find_tag_unsigned::<u32>(tiff::tags::Tag::Compression);
    if matches!(compression, Ok(None | Some(1))) && file_len < in_file {
        return Err(refuse(format!(
            "the file is truncated: its header declares {w}x{h} uncompressed {bits}-bit samples, \
             {stored} a pixel, which need {in_file} bytes, but the file has {file_len}"
        )));
    }
    let (w, h) = (w as usize, h as usize);
    let result = if planar {
        read_planar(decoder, stored).map_err(decode)?
    } else {
        decoder.read_image().map_err(decode)?
    };
    let samples = match result {
        DecodingResult::U8(v) if bits < 8 => Samples::U8(unpack_gray(&v, w, h, bits)),
        DecodingResult::U8(v) => Samples::U8(v),
        DecodingResult::U16(v) => Samples::U16(v),
        DecodingResult::F32(v) => Samples::F32(v),
        DecodingResult::F64(v) => Samples::F32(v.into_iter().map(|x| x as f32).collect()),
        _ => return Err(unsupported("signed, 32-bit integer and 16-bit float".into())),
    };
    let samples = if stored == 2 {
        gray_alpha_to_rgba(samples)
    } else {
        samples
    };
    Image::new(w, h, channels, samples).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })
}

/// Gray samples of `bits` < 8 bits, packed in rows of whole bytes (most significant bit first,
/// as TIFF stores them; 0 is black), as 8-bit levels: 1-bit 0 and 255, 2- and 4-bit scaled.
fn unpack_gray(packed: &[u8], w: usize, h: usize, bits: u8) -> Vec<u8> {
    let (bits, top) = (usize::from(bits), (1u16 << bits) - 1);
    let row = (w * bits).div_ceil(8);
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (y, x)))
        .map(|(y, x)| {
            let at = x * bits;
            let byte = packed.get(y * row + at / 8).copied().unwrap_or(0);
            let v = (u16::from(byte) >> (8 - bits - at % 8)) & top;
            (v * 255 / top) as u8
        })
        .collect()
}

/// A planar TIFF's samples (its strips a plane of one channel after another), interleaved as
/// a chunky one's are.
fn read_planar<R: std::io::Read + Seek>(
    decoder: &mut tiff::decoder::Decoder<R>,
    channels: usize,
) -> tiff::TiffResult<tiff::decoder::DecodingResult> {
    use tiff::decoder::DecodingResult as D;
    fn interleave<T: Copy>(planes: Vec<Vec<T>>) -> Vec<T> {
        let n = planes.first().map_or(0, Vec::len);
        (0..n).flat_map(|i| planes.iter().map(move |p| p[i])).collect()
    }
    let strips = decoder.strip_count()? as usize;
    let per_plane = strips / channels.max(1);
    let mut planes: Vec<D> = Vec::with_capacity(channels);
    for p in 0..channels {
        let mut plane: Option<D> = None;
        for i in p * per_plane..(p + 1) * per_plane {
            let chunk = decoder.read_chunk(i as u32)?;
            plane = Some(match (plane, chunk) {
                (None, c) => c,
                (Some(D::U8(mut a)), D::U8(b)) => {
                    a.extend(b);
                    D::U8(a)
                }
                (Some(D::U16(mut a)), D::U16(b)) => {
                    a.extend(b);
                    D::U16(a)
                }
                (Some(D::F32(mut a)), D::F32(b)) => {
                    a.extend(b);
                    D::F32(a)
                }
                (Some(D::F64(mut a)), D::F64(b)) => {
                    a.extend(b);
                    D::F64(a)
                }
                _ => {
                    return Err(tiff::TiffError::FormatError(
                        tiff::TiffFormatError::InconsistentSizesEncountered,
                    ));
                }
            });
        }
        planes.extend(plane);
    }
    let unsupported = || tiff::TiffError::UnsupportedError(tiff::TiffUnsupportedError::UnknownInterpretation);
    macro_rules! gather {
        ($variant:ident) => {
            D::$variant(interleave(
                planes
                    .into_iter()
                    .map(|p| match p {
                        D::$variant(v) => Ok(v),
                        _ => Err(unsupported()),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        };
    }
    Ok(match planes.first() {
        Some(D::U8(_)) => gather!(U8),
        Some(D::U16(_)) => gather!(U16),
        Some(D::F32(_)) => gather!(F32),
        Some(D::F64(_)) => gather!(F64),
        _ => return Err(unsupported()),
    })
}

/// Gray+alpha samples as RGBA (the gray in each of R, G and B).
fn gray_alpha_to_rgba(samples: Samples) -> Samples {
    fn widen<T: Copy>(v: &[T]) -> Vec<T> {
        v.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect()
    }
    match samples {
        Samples::U8(v) => Samples::U8(widen(&v)),
        Samples::U16(v) => Samples::U16(widen(&v)),
        Samples::F32(v) => Samples::F32(widen(&v)),
        Samples::F16(v) => Samples::F16(widen(&v)),
        Samples::BF16(v) => Samples::BF16(widen(&v)),
    }
}
