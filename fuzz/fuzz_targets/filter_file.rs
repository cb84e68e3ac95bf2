//! Fuzzes the filter-file parser: any bytes (as lossy UTF-8) parse to a valid filter or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(filter) = ferroconv::Filter::parse(&text) {
        let (k, (rows, cols)) = (filter.size(), filter.shape());
        // An odd square holding the rectangle: up to 31, or up to 961 for a rank-1 filter.
        assert!(k % 2 == 1 && k <= ferroconv::model::filter::MAX_SEPARABLE_SIZE, "size {k}");
        assert!(rows <= k && cols <= k, "{rows}x{cols} in {k}x{k}");
        assert!(ferroconv::model::filter::check_size(k).is_ok() || filter.rank1().is_some(), "size {k}");
        assert_eq!(filter.taps().len(), k * k);
        assert_eq!(filter.rect_taps().len(), rows * cols);
        assert!(filter.taps().iter().all(|t| t.is_finite()));
        // The derived forms must not panic either.
        let _ = filter.rank1();
        let _ = filter.flipped();
    }
});
