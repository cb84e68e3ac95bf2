//! `unroll!`: loops unrolled by the macro, so register-array indices are constants.

/// `unroll!(N < bound; [0, 1, ...] { body })` pastes `body` once per listed literal, with the
/// constant `N` set to it, each copy guarded by `N < bound`. With `bound` known at compile time the
/// surplus copies vanish, so every register-array index in `body` is a constant: LLVM alone stops
/// unrolling long loops and would otherwise move such arrays to local memory.
macro_rules! unroll {
    ($n:ident < $bound:expr; [$($v:literal),*] $body:block) => {$({
        const $n: usize = $v;
        if $n < $bound $body
    })*};
}
pub(crate) use unroll;
