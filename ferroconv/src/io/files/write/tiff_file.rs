//! TIFF files through the `tiff` crate: one or many pages, classic TIFF or BigTIFF by size,
//! compressed or not, 8-, 16- and 32-bit float samples or signed 16-bit (OpenCV's `CV_16S`), with
//! the ICC profile and resolution; then the Predictor tag libtiff warns about taken out of
//! uncompressed pages.

use super::{Encoding, TiffCompression};
use crate::io::files::Metadata;
use crate::model::image::{DType, Image, Samples};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

/// Sample bytes from which a TIFF is written as BigTIFF: classic TIFF's offsets are 32-bit, and
/// the directory and strip tables need room below 4 GiB too.
const BIG_TIFF_BYTES: usize = (4 << 30) - (64 << 20);

/// Writes `pages` as one TIFF (BigTIFF from [`BIG_TIFF_BYTES`] of samples), each page of its own
/// size and layout, compressed as `encoding` says.
pub(super) fn write_tiff<W: Write + Seek>(
    pages: &[Image],
    encoding: &Encoding,
    metadata: &Metadata,
    writer: &mut W,
) -> tiff::TiffResult<()> {
    use tiff::encoder::{Compression, DeflateLevel, Predictor, TiffEncoder};
    let (compression, int16) = (encoding.tiff, encoding.int16);
    let method = match compression {
        TiffCompression::None => Compression::Uncompressed,
        TiffCompression::Lzw => Compression::Lzw,
        TiffCompression::Deflate => Compression::Deflate(DeflateLevel::Balanced),
    };
    // The horizontal predictor (differences along rows) helps integer samples compress; the
    // encoder has none for floats, and steps by the colour's samples, not the alpha's too.
    let predictor = if compression != TiffCompression::None
        && pages
            .iter()
            .all(|p| (int16 || p.dtype() != DType::F32) && p.channels() != 4)
    {
        Predictor::Horizontal
    } else {
        Predictor::None
    };
    // Classic TIFF and BigTIFF encoders are different types: one body for both.
    macro_rules! write_pages {
        ($encoder:expr) => {{
            let mut enc = $encoder?.with_compression(method).with_predictor(predictor);
            pages
                .iter()
                .try_for_each(|p| write_tiff_with(p, int16, &mut enc, metadata))
        }};
    }
    let bytes: usize = pages.iter().map(|p| p.samples().as_bytes().len()).sum();
    if bytes >= BIG_TIFF_BYTES {
        write_pages!(TiffEncoder::new_big(writer))
    } else {
        write_pages!(TiffEncoder::new(writer))
    }
}

/// RGB of signed 16-bit samples, which the `tiff` crate's colour types lack.
struct RgbI16;

impl tiff::encoder::colortype::ColorType for RgbI16 {
    type Inner = i16;
    const TIFF_VALUE: tiff::tags::PhotometricInterpretation = tiff::tags::PhotometricInterpretation::RGB;
    const BITS_PER_SAMPLE: &'static [u16] = &[16; 3];
    const SAMPLE_FORMAT: &'static [tiff::tags::SampleFormat] = &[tiff::tags::SampleFormat::Int; 3];

    fn horizontal_predict(row: &[i16], result: &mut Vec<i16>) {
        result.extend_from_slice(&row[..3.min(row.len())]);
        result.extend(
            row.iter()
                .zip(row.iter().skip(3))
                .map(|(prev, cur)| cur.wrapping_sub(*prev)),
        );
    }
}

fn write_tiff_with<W: Write + Seek, K: tiff::encoder::TiffKind>(
    image: &Image,
    int16: bool,
    enc: &mut tiff::encoder::TiffEncoder<W, K>,
    metadata: &Metadata,
) -> tiff::TiffResult<()> {
    use tiff::encoder::{Rational, colortype as ct};
    let (w, h) = (image.width() as u32, image.height() as u32);
    // A page: RGBA as RGB plus an extra sample marked unassociated alpha (the ExtraSamples tag
    // readers look for), and the resolution where the input had one.
    macro_rules! page {
        ($colour:ty, $v:expr, $alpha:expr) => {{
            let mut page = enc.new_image::<$colour>(w, h)?;
            if $alpha {
                page.extra_samples(&[tiff::tags::ExtraSamples::UnassociatedAlpha])?;
            }
            if let Some(icc) = &metadata.icc {
                page.encoder()
                    .write_tag(tiff::tags::Tag::IccProfile, Undefined(icc))?;
            }
            if let Some((x, y)) = metadata.dpi {
                let rational = |v: f64| Rational {
                    n: (v * 100.0).round() as u32,
                    d: 100,
                };
                page.resolution_unit(tiff::tags::ResolutionUnit::Inch);
                page.x_resolution(rational(x));
                page.y_resolution(rational(y));
            }
            page.write_data($v)
        }};
    }
    if let (true, Samples::F32(v)) = (int16, image.samples()) {
        // Rounded half to even and saturated, as OpenCV converts to CV_16S; NaN is 0.
        let v: Vec<i16> = v
            .iter()
            .map(|&x| x.round_ties_even().clamp(-32768.0, 32767.0) as i16)
            .collect();
        return match image.channels() {
            1 => page!(ct::GrayI16, &v, false),
            3 => page!(RgbI16, &v, false),
            _ => page!(RgbI16, &v, true),
        };
    }
    match (image.channels(), image.samples()) {
        (1, Samples::U8(v)) => page!(ct::Gray8, v, false),
        (3, Samples::U8(v)) => page!(ct::RGB8, v, false),
        (_, Samples::U8(v)) => page!(ct::RGB8, v, true),
        (1, Samples::U16(v)) => page!(ct::Gray16, v, false),
        (3, Samples::U16(v)) => page!(ct::RGB16, v, false),
        (_, Samples::U16(v)) => page!(ct::RGB16, v, true),
        (1, Samples::F32(v)) => page!(ct::Gray32Float, v, false),
        (3, Samples::F32(v)) => page!(ct::RGB32Float, v, false),
        (_, Samples::F32(v)) => page!(ct::RGB32Float, v, true),
        // `Format::check_encodable` refuses them before a file is made.
        (_, Samples::F16(_) | Samples::BF16(_)) => Err(tiff::TiffError::UnsupportedError(
            tiff::TiffUnsupportedError::UnsupportedSampleFormat(vec![tiff::tags::SampleFormat::IEEEFP]),
        )),
    }
}

/// Removes the Predictor tag (317) the `tiff` crate writes into every directory from those of
/// uncompressed pages (Compression 1), where libtiff warns about it, by rewriting each such
/// directory's entries in place (classic TIFF and BigTIFF, either byte order).
pub(super) fn drop_uncompressed_predictor(mut file: &File) -> std::io::Result<()> {
    use std::io::Read;
    let mut head = [0u8; 16];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    let le = &head[..2] == b"II";
    let uint = |b: &[u8]| -> u64 {
        let mut v = 0u64;
        for i in 0..b.len() {
            let byte = if le { b[b.len() - 1 - i] } else { b[i] };
            v = v << 8 | u64::from(byte);
        }
        v
    };
    let big = uint(&head[2..4]) == 43;
    // Bytes of an entry count, an entry and an offset; where an entry's value field starts.
    let (count_len, entry_len, offset_len, value_at) = if big { (8, 20, 8, 12) } else { (2, 12, 4, 8) };
    let mut ifd = if big {
        uint(&head[8..16])
    } else {
        uint(&head[4..8])
    };
    let mut seen = std::collections::HashSet::new();
    while ifd != 0 && seen.insert(ifd) {
        file.seek(SeekFrom::Start(ifd))?;
        let mut count = vec![0u8; count_len];
        file.read_exact(&mut count)?;
        let n = uint(&count) as usize;
        let mut rest = vec![0u8; n * entry_len + offset_len];
        file.read_exact(&mut rest)?;
        let next = uint(&rest[n * entry_len..]);
        let entries: Vec<&[u8]> = rest[..n * entry_len].chunks(entry_len).collect();
        let value = |e: &[u8]| uint(&e[value_at..value_at + 2]);
        let uncompressed = entries.iter().any(|e| uint(&e[..2]) == 259 && value(e) == 1);
        if let Some(at) = entries.iter().position(|e| uint(&e[..2]) == 317)
            && uncompressed
        {
            let mut out = Vec::with_capacity(count_len + n * entry_len + offset_len);
            let n_out = (n - 1) as u64;
            let count_bytes = if le {
                n_out.to_le_bytes()
            } else {
                n_out.to_be_bytes()
            };
            out.extend(if le {
                &count_bytes[..count_len]
            } else {
                &count_bytes[8 - count_len..]
            });
            for (i, e) in entries.iter().enumerate() {
                if i != at {
                    out.extend_from_slice(e);
                }
            }
            out.extend_from_slice(&rest[n * entry_len..]);
            out.extend(std::iter::repeat_n(0, entry_len));
            file.seek(SeekFrom::Start(ifd))?;
            file.write_all(&out)?;
        }
        ifd = next;
    }
    Ok(())
}

/// Bytes of TIFF field type UNDEFINED (7), as the ICC profile tag takes them.
struct Undefined<'a>(&'a [u8]);

impl tiff::encoder::TiffValue for Undefined<'_> {
    const BYTE_LEN: u8 = 1;
    const FIELD_TYPE: tiff::tags::Type = tiff::tags::Type::UNDEFINED;

    fn count(&self) -> usize {
        self.0.len()
    }

    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(self.0)
    }
}
