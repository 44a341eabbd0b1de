//! polars-rankk's compiled kernel: a Polars expression plugin (`group_sums`) that ranks every
//! group of a candidate table under a `Policy` and returns one row of running sums per group.
//!
//! `ffi` implements the plugin ABI and the Arrow C Data Interface (the only unsafe code but
//! `resample`'s call of its AVX2-compiled loop, made where the processor has AVX2);
//! `columns` gives safe views of the inputs; `config` and `policy` read what Python asks for
//! (serde-pickle); `kernel` computes (grouping, ranking, terms); `group` is one group's rows,
//! `grouped` the rows of many groups in one call (the metric expressions');
//! `plugin` checks inputs and lays out outputs (`documents`: those of MaxP over a passage run;
//! `labelling`: `label`'s rows; `text_fields`: the fields of a text file's lines, read and
//! split here; `label_moments`: metrics' expectations over independent relevance labels;
//! `resample`: a bootstrap's draws and resampled sums of sparse events).
//! Imports run one way: `plugin` / `documents` -> `group` -> `kernel` -> `config` / `columns`.

#![deny(unsafe_code)]

pub mod buffers;
pub mod columns;
pub mod config;
pub mod counterfactual;
pub mod documents;
pub mod group;
pub mod grouped;
#[allow(unsafe_code)]
mod ffi;
pub mod kernel;
pub mod label_moments;
pub mod labelling;
pub mod plugin;
pub mod policy;
pub mod resample;
pub mod text_fields;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use ffi::ABI_VERSION;
