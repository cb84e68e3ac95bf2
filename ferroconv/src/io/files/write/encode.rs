//! Encoding one image in the format of its file's extension, with the bit depth kept: PNG, JPEG,
//! BMP and PNM through the `image` crate (binary PGM and PPM written here, with the input's
//! maxval), RAW `f32`, and TIFF through [`write_tiff`]; the metadata each format holds.

use super::Encoding;
use super::tiff_file::write_tiff;
use crate::io::files::{EXTENSIONS, FileError, Format, Metadata, lower_extension};
use crate::model::image::{DType, Image, Samples};
use image::{ExtendedColorType, ImageEncoder as _, ImageFormat};
use std::io::{Seek, Write};
use std::path::Path;

/// Encodes `image` into `writer` in the format of `path`'s extension, with `metadata` where the
/// format holds it (PNG and JPEG: the ICC profile and the Exif block).
pub(super) fn encode<W: Write + Seek>(
    image: &Image,
    path: &Path,
    encoding: &Encoding,
    metadata: &Metadata,
    writer: &mut W,
) -> Result<(), FileError> {
    let unsupported = |reason| FileError::unsupported(path, reason);
    let encode_err = |reason: String| FileError::Encode {
        path: path.to_path_buf(),
        reason,
    };
    let ext = lower_extension(path);
    let format = Format::of(path).ok_or_else(|| {
        unsupported(format!(
            "unknown output extension '{ext}' (use one of: {})",
            EXTENSIONS.join(", ")
        ))
    })?;
    let (ch, dtype) = (image.channels(), image.dtype());
    format.check_encodable(&ext, ch, dtype).map_err(unsupported)?;
    if encoding.int16 && format != Format::Tiff {
        return Err(unsupported(format!(
            "16-bit signed results are written to TIFF, not {}: use .tif",
            ext.to_ascii_uppercase()
        )));
    }
    let (w, h) = (image.width() as u32, image.height() as u32);
    let bytes = image.samples().as_bytes();
    match format {
        Format::Raw => {
            let values: Vec<u8> = (0..image.samples().len())
                .flat_map(|i| image.samples().value_f32(i).to_le_bytes())
                .collect();
            writer.write_all(&values).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Tiff => write_tiff(std::slice::from_ref(image), encoding, metadata, writer)
            .map_err(|e| encode_err(e.to_string())),
        Format::Pnm if ext != "pam" && ch != 4 => {
            // Binary PGM (P5) or PPM (P6), 8-bit or 16-bit (big-endian samples), maxval 255 or
            // 65535, or the input's maxval (its levels scaled back from the full range).
            let full = dtype.levels().unwrap_or(255.0);
            let maxval = metadata.pnm_maxval.map_or(full, f64::from);
            let mut data = pnm_header(ch, w as usize, h as usize, maxval);
            let level = |v: f64| (v * maxval / full).round();
            match image.samples() {
                Samples::U16(v) if maxval < 256.0 => {
                    data.extend(v.iter().map(|&x| level(f64::from(x)) as u8))
                }
                Samples::U16(v) => {
                    data.extend(v.iter().flat_map(|&x| (level(f64::from(x)) as u16).to_be_bytes()))
                }
                Samples::U8(v) if maxval != full => data.extend(v.iter().map(|&x| level(f64::from(x)) as u8)),
                _ => data.extend(bytes),
            }
            writer.write_all(&data).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Jpeg => {
            use image::codecs::jpeg::{JpegEncoder, PixelDensity, PixelDensityUnit};
            let mut encoder = JpegEncoder::new_with_quality(writer, encoding.jpeg_quality);
            if let Some((x, y)) = metadata.dpi {
                let dots = |v: f64| v.round().clamp(1.0, 65535.0) as u16;
                encoder.set_pixel_density(PixelDensity {
                    density: (dots(x), dots(y)),
                    unit: PixelDensityUnit::Inches,
                });
            }
            with_metadata(encoder, metadata)
                .write_image(bytes, w, h, color_type(ch, dtype))
                .map_err(|e| encode_err(e.to_string()))
        }
        Format::Png => {
            use image::codecs::png::{CompressionType, FilterType, PngEncoder};
            let level = match encoding.png_level {
                Some(0) => CompressionType::Uncompressed,
                Some(n) => CompressionType::Level(n),
                None => CompressionType::default(),
            };
            // Encoded in memory first where a pHYs chunk goes in after the header.
            let mut png = Vec::new();
            with_metadata(
                PngEncoder::new_with_quality(&mut png, level, FilterType::Adaptive),
                metadata,
            )
            .write_image(bytes, w, h, color_type(ch, dtype))
            .map_err(|e| encode_err(e.to_string()))?;
            if let Some(dpi) = metadata.dpi {
                png = with_phys(png, dpi);
            }
            writer.write_all(&png).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Bmp | Format::Pnm => {
            let format = match format {
                Format::Bmp => ImageFormat::Bmp,
                _ => ImageFormat::Pnm,
            };
            image::write_buffer_with_format(writer, bytes, w, h, color_type(ch, dtype), format)
                .map_err(|e| encode_err(e.to_string()))
        }
    }
}

/// The header of a binary PGM (`P5`, one channel) or PPM (`P6`) of `maxval`.
pub(super) fn pnm_header(channels: usize, width: usize, height: usize, maxval: f64) -> Vec<u8> {
    let magic = if channels == 1 { "P5" } else { "P6" };
    format!("{magic}\n{width} {height}\n{maxval}\n").into_bytes()
}

/// `png` with a pHYs chunk of `dpi` (pixels per metre) right after its header chunk.
fn with_phys(png: Vec<u8>, (x, y): (f64, f64)) -> Vec<u8> {
    let per_metre = |dpi: f64| ((dpi / 0.0254).round() as u32).to_be_bytes();
    let mut chunk = b"pHYs".to_vec();
    chunk.extend(per_metre(x));
    chunk.extend(per_metre(y));
    chunk.push(1);
    // The signature (8 bytes), then IHDR: length, type, 13 bytes of data, CRC.
    let after_header = 8 + 4 + 4 + 13 + 4;
    let mut out = png[..after_header].to_vec();
    out.extend(9u32.to_be_bytes());
    out.extend(&chunk);
    out.extend(crc32(&chunk).to_be_bytes());
    out.extend(&png[after_header..]);
    out
}

/// The CRC-32 of PNG chunks (ISO 3309, reflected, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| {
        (0..8).fold(crc ^ u32::from(b), |c, _| {
            if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            }
        })
    })
}

/// `encoder` with the ICC profile and Exif block of `metadata` (both formats that take them
/// accept them).
fn with_metadata<E: image::ImageEncoder>(mut encoder: E, metadata: &Metadata) -> E {
    if let Some(icc) = &metadata.icc {
        let _ = encoder.set_icc_profile(icc.clone());
    }
    if let Some(exif) = &metadata.exif {
        let _ = encoder.set_exif_metadata(exif.clone());
    }
    encoder
}

fn color_type(channels: usize, dtype: DType) -> ExtendedColorType {
    match (channels, dtype) {
        (1, DType::U8) => ExtendedColorType::L8,
        (3, DType::U8) => ExtendedColorType::Rgb8,
        (4, DType::U8) => ExtendedColorType::Rgba8,
        (1, DType::U16) => ExtendedColorType::L16,
        (3, DType::U16) => ExtendedColorType::Rgb16,
        (4, DType::U16) => ExtendedColorType::Rgba16,
        (3, DType::F32) => ExtendedColorType::Rgb32F,
        (4, DType::F32) => ExtendedColorType::Rgba32F,
        _ => ExtendedColorType::Unknown(0),
    }
}
