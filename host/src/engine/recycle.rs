//! Results' memory used again. A fresh result's pages are faulted in (and zeroed by the system)
//! as the GPU's copies fill them: for a 64 MiB result that costs more than the copy itself, and
//! freeing it afterwards costs milliseconds more. So the GPU engines take each result's samples
//! from results their caller is done with (the encoders of `host -i`, the batch of `host scale`),
//! when one of the same type and size was given back; at most [`KEPT_BYTES`] are kept.

use ferroconv::Image;
use ferroconv::model::image::{DType, Samples};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The most bytes of samples kept for reuse.
pub const KEPT_BYTES: usize = 1 << 30;

static KEPT: Mutex<Vec<Samples>> = Mutex::new(Vec::new());

fn kept() -> MutexGuard<'static, Vec<Samples>> {
    KEPT.lock().unwrap_or_else(PoisonError::into_inner)
}

fn bytes(s: &Samples) -> usize {
    s.len() * s.dtype().size()
}

/// Keeps `image`'s samples for a later result of their type and size (dropped where the kept
/// ones would pass [`KEPT_BYTES`]).
pub fn give_back(image: Image) {
    let samples = image.into_samples();
    let mut all = kept();
    if all.iter().map(bytes).sum::<usize>() + bytes(&samples) <= KEPT_BYTES {
        all.push(samples);
    }
}

/// `len` samples of `dtype` to be overwritten: kept ones where there are, else new (zeroed).
pub fn take(dtype: DType, len: usize) -> Samples {
    let found = {
        let mut all = kept();
        let at = all.iter().position(|s| s.dtype() == dtype && s.len() == len);
        at.map(|i| all.swap_remove(i))
    };
    found.unwrap_or_else(|| Samples::zeroed(dtype, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_back_samples_serve_a_result_of_their_type_and_size() {
        let image = Image::new(3, 2, 1, Samples::from_values(DType::U16, &[0.5; 6], 1, false)).unwrap();
        let first = image.samples().value(0);
        give_back(image);
        assert!(
            take(DType::U8, 6).value(0) == 0.0,
            "another type is new and zeroed"
        );
        let again = take(DType::U16, 6);
        assert_eq!(again.value(0), first);
        assert_eq!(take(DType::U16, 6).value(0), 0.0, "taken once only");
        give_back(Image::new(1, 1, 1, Samples::zeroed(DType::F32, 1)).unwrap());
        assert_eq!(take(DType::F32, 2).len(), 2);
    }
}
