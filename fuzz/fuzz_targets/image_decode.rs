//! Fuzzes image decoding and the size checks: any bytes decode to a valid image or an error,
//! and no input makes the decoder allocate more than the memory bound it is given.
#![no_main]

use ferroconv::model::image::{MAX_PIXELS, MAX_SIDE};
use libfuzzer_sys::fuzz_target;

/// The memory bound per decoded image: far below libFuzzer's 2 GB malloc limit.
const MAX_IMAGE_BYTES: u64 = 256 << 20;

fuzz_target!(|data: &[u8]| {
    if let Ok(image) = ferroconv::io::files::decode_with_limit(data, MAX_IMAGE_BYTES) {
        let (w, h, ch) = (image.width(), image.height(), image.channels());
        assert!(w >= 1 && h >= 1 && w <= MAX_SIDE && h <= MAX_SIDE && w * h <= MAX_PIXELS);
        assert!(matches!(ch, 1 | 3 | 4));
        assert_eq!(image.samples().len(), w * h * ch);
    }
});
