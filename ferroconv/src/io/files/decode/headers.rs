//! What the headers of PNG, JPEG, BMP and PNM/PAM files say that the `image` crate's decoders do
//! not check or report: a JPEG cut before its end, a BMP's gray palette, the resolution (PNG's
//! pHYs, JPEG's JFIF density), a PGM's or PPM's maxval, and the fewest bytes an uncompressed file
//! must have for the size its header declares.

use crate::model::image::{Image, Samples};
use image::ImageFormat;
use std::io::{BufRead, Seek, SeekFrom};

/// Facts about a file that its decoder does not give.
#[derive(Default)]
pub(super) struct Inspection {
    /// A BMP whose pixels index a palette of grays (the `image` crate decodes those as RGB).
    gray_palette: bool,
}

impl Inspection {
    /// `image` as the file means it: gray when its palette is.
    pub(super) fn apply(&self, image: Image) -> Image {
        match (self.gray_palette, image.channels(), image.samples()) {
            (true, 3, Samples::U8(v)) => {
                let gray = v.iter().step_by(3).copied().collect();
                Image::new(image.width(), image.height(), 1, Samples::U8(gray)).unwrap_or(image)
            }
            _ => image,
        }
    }
}

/// Checks what the decoders let pass (a JPEG without its end marker, which the `image` crate
/// decodes with grey fill) and finds what they do not say; leaves `source` at its start.
pub(super) fn inspect<R: BufRead + Seek>(source: &mut R, head: &[u8]) -> Result<Inspection, String> {
    let mut found = Inspection::default();
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        let mut bytes = Vec::new();
        source.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        if !jpeg_is_complete(&bytes) {
            return Err("the file is truncated: the JPEG data stops before its end marker (EOI)".into());
        }
    } else if head.starts_with(b"BM") {
        found.gray_palette = bmp_has_gray_palette(source, head).unwrap_or(false);
    }
    source.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    Ok(found)
}

/// Whether a JPEG file has its end-of-image marker after its first scan. The marker segments up to
/// the first scan (SOS) are skipped by their lengths (an EXIF thumbnail carries its own EOI); in the
/// entropy-coded data that follows, a 0xFF byte is always followed by 0x00 or a restart marker, so
/// the bytes FF D9 can only be the end.
fn jpeg_is_complete(b: &[u8]) -> bool {
    let mut i = 2;
    loop {
        while b.get(i) == Some(&0xFF) && b.get(i + 1) == Some(&0xFF) {
            i += 1; // fill bytes
        }
        let (Some(0xFF), Some(&marker)) = (b.get(i), b.get(i + 1)) else {
            return false;
        };
        match marker {
            0xD9 => return true,
            0x01 | 0xD0..=0xD7 => i += 2,
            _ => {
                let Some(len) = b.get(i + 2..i + 4) else {
                    return false;
                };
                i += 2 + usize::from(u16::from_be_bytes([len[0], len[1]]));
                if marker == 0xDA {
                    break;
                }
            }
        }
    }
    b.get(i..)
        .is_some_and(|rest| rest.windows(2).any(|w| w == [0xFF, 0xD9]))
}

/// Whether a BMP stores 1, 2, 4 or 8-bit indices into a palette whose colors are all gray.
fn bmp_has_gray_palette<R: std::io::Read + Seek>(source: &mut R, head: &[u8]) -> Option<bool> {
    let le16 = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let le32 = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let header = le32(14)?;
    // BITMAPCOREHEADER (12 bytes): 3-byte palette entries; the others: 4 bytes and a color count.
    let (bits, entry, used) = if header == 12 {
        (le16(24)?, 3, 0)
    } else {
        (le16(28)?, 4, le32(46)?)
    };
    if !matches!(bits, 1 | 2 | 4 | 8) {
        return Some(false);
    }
    let colors = if used == 0 || used > 1 << bits {
        1 << bits
    } else {
        used
    };
    let mut palette = vec![0u8; colors as usize * entry];
    source.seek(SeekFrom::Start(14 + u64::from(header))).ok()?;
    source.read_exact(&mut palette).ok()?;
    // Entries are blue, green, red (and a reserved byte).
    Some(palette.chunks(entry).all(|c| c[0] == c[1] && c[1] == c[2]))
}

/// The resolution of a PNG's pHYs chunk (pixels per metre), where it comes in the file's first
/// bytes `head`, before the image data.
pub(super) fn png_dpi(head: &[u8]) -> Option<(f64, f64)> {
    let mut at = 8;
    while let Some(chunk) = head.get(at..at + 8) {
        let len = u32::from_be_bytes(chunk[..4].try_into().ok()?) as usize;
        let data = head.get(at + 8..at + 8 + len);
        match &chunk[4..8] {
            b"pHYs" => {
                let d = data?;
                let per_metre = |b: &[u8]| f64::from(u32::from_be_bytes(b.try_into().unwrap_or_default()));
                // Unit 1: the metre; 0 gives only the aspect ratio.
                return (d.get(8) == Some(&1))
                    .then(|| (per_metre(&d[..4]) * 0.0254, per_metre(&d[4..8]) * 0.0254));
            }
            b"IDAT" | b"IEND" => return None,
            _ => at += 12 + len,
        }
    }
    None
}

/// The density of a JPEG's JFIF segment (right after the start of the image), in dots per inch.
pub(super) fn jpeg_dpi(head: &[u8]) -> Option<(f64, f64)> {
    let app0 = head.get(2..18)?;
    if app0[..2] != [0xFF, 0xE0] || &app0[4..9] != b"JFIF\0" {
        return None;
    }
    let density = |b: &[u8]| f64::from(u16::from_be_bytes([b[0], b[1]]));
    let (x, y) = (density(&app0[12..14]), density(&app0[14..16]));
    match app0[11] {
        1 => Some((x, y)),
        2 => Some((x * 2.54, y * 2.54)),
        _ => None,
    }
}

/// The maxval of a PGM or PPM header (`P2`, `P3`, `P5`, `P6`: its fourth field), or of a PAM's
/// `MAXVAL` line.
pub(super) fn pnm_maxval(head: &[u8]) -> Option<u16> {
    if head.starts_with(b"P7") {
        let text = std::str::from_utf8(&head[..pnm_header_len(head)? as usize]).ok()?;
        let line = text.lines().find(|l| l.starts_with("MAXVAL"))?;
        return line.split_whitespace().nth(1)?.parse().ok();
    }
    pnm_layout(head)?.3.try_into().ok()
}

/// A PGM or PPM header's (`P2`, `P3`, `P5`, `P6`) magic digit, width, height and maxval, and
/// where its samples start, if `head` holds all of it.
pub(super) fn pnm_layout(head: &[u8]) -> Option<(u8, usize, usize, u32, u64)> {
    let magic = *head.get(1)?;
    if head[0] != b'P' || !matches!(magic, b'2' | b'3' | b'5' | b'6') {
        return None;
    }
    let data = pnm_header_len(head)?;
    let text = std::str::from_utf8(&head[..data as usize]).ok()?;
    let fields: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .collect();
    let (w, h, maxval) = (fields.get(1)?, fields.get(2)?, fields.get(3)?);
    Some((
        magic,
        w.parse().ok()?,
        h.parse().ok()?,
        maxval.parse().ok()?,
        data,
    ))
}

/// The length of a PNM or PAM header (where the data starts), if `head` holds all of it: the
/// magic number and the size fields, with whitespace and `#` comments between them, then one
/// whitespace character; for PAM, the lines up to `ENDHDR`.
fn pnm_header_len(head: &[u8]) -> Option<u64> {
    if head.starts_with(b"P7") {
        let end = head.windows(6).position(|w| w == b"ENDHDR")? + 6;
        return Some(end as u64 + 1);
    }
    let fields = match head.get(1)? {
        b'1' | b'4' => 3,
        _ => 4,
    };
    let mut at = 0;
    for _ in 0..fields {
        loop {
            match head.get(at)? {
                b'#' => at += head[at..].iter().position(|&b| b == b'\n')?,
                b if b.is_ascii_whitespace() => at += 1,
                _ => break,
            }
        }
        while !head.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
    }
    Some(at as u64 + 1)
}

/// The fewest bytes a file of an uncompressed format must have for the image its header
/// declares (`pixel_bytes`: the decoded size), or `None` where the data may be compressed.
pub(super) fn min_file_bytes(
    format: ImageFormat,
    head: &[u8],
    w: u64,
    h: u64,
    pixel_bytes: u64,
    color: image::ColorType,
) -> Option<u64> {
    let le16 = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let le32 = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    match format {
        ImageFormat::Pnm => {
            let data = match head.get(..2)? {
                // 1-bit binary: rows of whole bytes.
                b"P4" => w.div_ceil(8) * h,
                // ASCII bitmap: at least one character per pixel.
                b"P1" => w * h,
                // ASCII gray or RGB: at least a digit and a separator per sample.
                b"P2" | b"P3" => (w * h * u64::from(color.channel_count()) * 2).saturating_sub(1),
                // Binary PGM, PPM and PAM: the samples as they are decoded.
                b"P5" | b"P6" | b"P7" => pixel_bytes,
                _ => return None,
            };
            Some(pnm_header_len(head).unwrap_or(0) + data)
        }
        ImageFormat::Bmp => {
            // BITMAPCOREHEADER (12 bytes) has 16-bit sizes and no compression field.
            let (bits, compression) = if le32(14)? == 12 {
                (le16(24)?, 0)
            } else {
                (le16(28)?, le32(30)?)
            };
            // BI_RGB, BI_BITFIELDS and BI_ALPHABITFIELDS store rows of 4-byte-aligned pixels.
            let data_offset = le32(10)?;
            matches!(compression, 0 | 3 | 6).then(|| {
                let row = (w * bits).div_ceil(8);
                data_offset + (row.div_ceil(4) * 4) * (h - 1) + row
            })
        }
        _ => None,
    }
}
