//! The context of one kernel call, which every phase reads: its input columns (`Inputs`),
//! its worker threads and its phase timing. A leaf: it imports no other kernel module.

use std::sync::OnceLock;

use crate::columns::Column;

/// Worker threads for one call (asked once: the OS call is slow next to a small call).
pub fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        let from_env = std::env::var("POLARS_RANKK_NATIVE_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|v| *v > 0);
        from_env.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// Whether `POLARS_RANKK_NATIVE_TIMING` asks for the phases and counters on stderr (read at
/// each phase: a few times a call, never per row or group).
pub fn timing_on() -> bool {
    std::env::var_os("POLARS_RANKK_NATIVE_TIMING").is_some()
}

/// Phase timings on stderr when `POLARS_RANKK_NATIVE_TIMING` is set (for profiling), with
/// the process's resident memory after the phase (Linux).
pub fn timing(label: &str, since: std::time::Instant) {
    if timing_on() {
        let resident = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|text| text.split_whitespace().nth(1).and_then(|pages| pages.parse::<u64>().ok()))
            .map_or(String::new(), |pages| format!(", resident {} MiB", pages * 4096 / (1 << 20)));
        eprintln!("rankk kernel: {label}: {:.1} ms{resident}", since.elapsed().as_secs_f64() * 1e3);
    }
}

/// A counter on stderr when `POLARS_RANKK_NATIVE_TIMING` is set.
pub fn count(label: &str, value: impl std::fmt::Display) {
    if timing_on() {
        eprintln!("rankk kernel: {label}: {value}");
    }
}

/// The input columns of one call, read in row order without copies.
pub struct Inputs<'a> {
    pub keys: Vec<&'a Column<'a>>,
    pub item: &'a Column<'a>,
    pub score: &'a Column<'a>,
    pub grade: &'a Column<'a>,
    pub judged: Option<&'a Column<'a>>,
    pub row: Option<&'a Column<'a>>,
    pub n_relevant: Option<&'a Column<'a>>,
    pub n_nonrelevant: Option<&'a Column<'a>>,
}

impl<'a> Inputs<'a> {
    /// The keys, items, scores and grades, without the optional columns.
    pub fn new(keys: Vec<&'a Column<'a>>, item: &'a Column<'a>, score: &'a Column<'a>, grade: &'a Column<'a>) -> Self {
        Inputs { keys, item, score, grade, judged: None, row: None, n_relevant: None, n_nonrelevant: None }
    }
}
