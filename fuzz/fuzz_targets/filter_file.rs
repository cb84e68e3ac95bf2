//! Fuzzes the filter-file parser: any bytes (as lossy UTF-8) parse to a valid filter or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(filter) = ferroconv::Filter::parse(&text) {
        let k = filter.size();
        assert!(ferroconv::model::filter::check_size(k).is_ok(), "size {k}");
        assert_eq!(filter.taps().len(), k * k);
        assert!(filter.taps().iter().all(|t| t.is_finite()));
        // The derived forms must not panic either.
        let _ = filter.rank1();
        let _ = filter.flipped();
    }
});
