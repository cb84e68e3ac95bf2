//! Utilities for compiling PTX strings to cubin.

