//! RAW files: headerless little-endian `f32` samples, interleaved, of the size the caller gives.

use super::check_memory;
use crate::io::files::{FileError, RawLayout};
use crate::model::image::{Image, Samples, check_dims};
use std::fs::File;
use std::path::Path;

/// Reads a RAW `f32` file of the size `raw` gives, refused if it would take more than `max_bytes`.
pub(super) fn read_raw(path: &Path, raw: &RawLayout, max_bytes: u64) -> Result<Image, FileError> {
    let image_err = |source| FileError::Image {
        path: path.to_path_buf(),
        source,
    };
    let (Some(w), Some(h)) = (raw.width, raw.height) else {
        return Err(FileError::unsupported(
            path,
            "a RAW f32 file needs --width and --height (and --channels if not 1)".into(),
        ));
    };
    check_dims(w, h).map_err(image_err)?;
    crate::model::image::check_channels(raw.channels).map_err(image_err)?;
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let want = w * h * raw.channels * 4;
    check_memory(want as u64, max_bytes).map_err(|reason| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    })?;
    let mut file = File::open(path).map_err(read_err)?;
    let len = file.metadata().map_err(read_err)?.len();
    if len != want as u64 {
        return Err(FileError::Decode {
            path: path.to_path_buf(),
            reason: format!(
                "has {len} bytes, but {w}x{h} with {} channel(s) of f32 needs {want}",
                raw.channels
            ),
        });
    }
    // Read straight into the samples (one buffer, not a byte copy as well: the file may be
    // gigabytes), then put them in the host's byte order.
    let mut values = vec![0f32; want / 4];
    std::io::Read::read_exact(&mut file, bytemuck::cast_slice_mut(&mut values)).map_err(read_err)?;
    for v in &mut values {
        *v = f32::from_bits(u32::from_le(v.to_bits()));
    }
    Image::new(w, h, raw.channels, Samples::F32(values)).map_err(image_err)
}
