//! polars-rankk's compiled kernel: a Polars expression plugin (`group_sums`) that ranks every
//! group of a candidate table under a `Policy` and returns one row of running sums per group.
//!
//! Dependency-free: `ffi` implements the plugin ABI and the Arrow C Data Interface (the only
//! unsafe code); `columns` gives safe views of the inputs; `kernel` computes; `config` reads
//! what Python asks for.

#![deny(unsafe_code)]

pub mod columns;
pub mod config;
#[allow(unsafe_code)]
mod ffi;
pub mod kernel;
pub mod plugin;

pub use ffi::ABI_VERSION;
