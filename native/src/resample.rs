//! `resampled_sums`: a bootstrap's group draws and the resampled sums of sparse per-group
//! events, in one call (the K-curves' intervals, `polars_rankk/stats/rank_sums.py`).
//!
//! Each resample draws `groups` groups with replacement; a resample's sum of a column is
//! `Σ_g w_g · Σ_{events e of g in the column} delta_e` (w_g: how often g was drawn), added
//! group by group in group order (as the sparse product `weights @ events` adds them). The
//! draws are NumPy's own: its PCG64 generator (the state handed over) and its bounded
//! integers (`Generator.integers(0, groups)`, Lemire's method on 32-bit outputs), resample
//! after resample, so the weights are those NumPy draws and the generator's state after them
//! is handed back. Counting each draw as it is made leaves no array of draws; a worker
//! multiplies one block of resamples while this thread draws the next.
//!
//! The input is one Float64 column: the events' groups, then their columns, then their
//! deltas. The output is one Float64 column: the sums (resamples × width, row-major), then
//! the generator's state after the draws as six numbers (its 128-bit state in four 32-bit
//! words, high first; whether a 32-bit half is buffered; that half).

use serde::Deserialize;

use crate::columns::{Column, OutColumn, OutData};
use crate::kernel::threads;

/// Resamples drawn, then multiplied, at a time: each event adds to a block's row of this
/// many sums at once (a block's sums of every column stay in cache: 16 × 3,500 columns of a
/// K-curve to 100 take 448 KiB; 32 took longer, 8 too).
const BLOCK: usize = 16;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    /// Groups drawn from (the events' groups are 0..groups).
    groups: usize,
    /// Columns of the sums (the events' columns are 0..width).
    width: usize,
    resamples: usize,
    /// NumPy's PCG64 state: the 128-bit state and increment, in decimal.
    state: String,
    inc: String,
    has_uint32: bool,
    uinteger: u32,
}

fn parse(kwargs: &[u8]) -> Result<Kwargs, String> {
    let asked: Kwargs = serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    if asked.groups == 0 || asked.groups > u32::MAX as usize {
        return Err(format!("the rankk kernel's resampling: {} groups (1 to 2^32 - 1 drawn from)", asked.groups));
    }
    Ok(asked)
}

pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    parse(kwargs)?;
    if inputs.len() != 1 {
        return Err(format!("the rankk kernel's resampling expects 1 input column, got {}", inputs.len()));
    }
    Ok(vec![("sums".to_string(), "g".to_string())])
}

pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse(kwargs)?;
    let [values] = columns else {
        return Err(format!("the rankk kernel's resampling expects 1 input column, got {}", columns.len()));
    };
    if !values.is_float() {
        return Err(format!("column {:?}: the rankk kernel expected Float64 values", values.name));
    }
    let values = values.floats_vec();
    if values.len() % 3 != 0 {
        return Err(format!("the rankk kernel's resampling: {} values are not events' groups, columns and deltas", values.len()));
    }
    let n = values.len() / 3;
    let (group, column, delta) = (&values[..n], &values[n..2 * n], &values[2 * n..]);
    let events = Events::new(asked.groups, asked.width, group, column, delta)?;
    let parsed = |text: &str| text.parse::<u128>().map_err(|error| format!("the rankk kernel's resampling: state {text:?}: {error}"));
    let mut rng = Pcg64 { state: parsed(&asked.state)?, inc: parsed(&asked.inc)?, has_uint32: asked.has_uint32, uinteger: asked.uinteger };
    let mut sums = resampled_sums(&mut rng, &events, asked.resamples);
    sums.extend((0..4).rev().map(|word| ((rng.state >> (32 * word)) as u32) as f64));
    sums.push(f64::from(u8::from(rng.has_uint32)));
    sums.push(f64::from(rng.uinteger));
    Ok(vec![OutColumn { name: "sums".to_string(), data: OutData::F64(sums) }])
}

/// NumPy's PCG64 (XSL-RR 128/64) with its buffered 32-bit half (`pcg64_next32`).
#[derive(Clone, Debug, PartialEq)]
pub struct Pcg64 {
    pub state: u128,
    pub inc: u128,
    pub has_uint32: bool,
    pub uinteger: u32,
}

const MULTIPLIER: u128 = (2549297995355413924u128 << 64) | 4865540595714422341u128;

impl Pcg64 {
    #[inline]
    pub fn next64(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let folded = ((self.state >> 64) as u64) ^ (self.state as u64);
        folded.rotate_right((self.state >> 122) as u32)
    }

    #[inline]
    fn next32(&mut self) -> u32 {
        if self.has_uint32 {
            self.has_uint32 = false;
            return self.uinteger;
        }
        let next = self.next64();
        self.has_uint32 = true;
        self.uinteger = (next >> 32) as u32;
        next as u32
    }

    /// An integer in 0..=bound (bound < 2^32 - 1), as NumPy's `buffered_bounded_lemire_uint32`.
    #[inline]
    pub fn bounded(&mut self, bound: u32) -> u32 {
        let excluded = bound + 1;
        let mut m = u64::from(self.next32()) * u64::from(excluded);
        let mut leftover = m as u32;
        if leftover < excluded {
            let threshold = (u32::MAX - bound) % excluded;
            while leftover < threshold {
                m = u64::from(self.next32()) * u64::from(excluded);
                leftover = m as u32;
            }
        }
        (m >> 32) as u32
    }
}

/// Sparse per-group events, grouped: group g's are `offsets[g]..offsets[g + 1]`, in the order
/// given within the group.
pub struct Events {
    groups: usize,
    width: usize,
    offsets: Vec<usize>,
    columns: Vec<usize>,
    deltas: Vec<f64>,
}

impl Events {
    /// The events `(group[i], column[i], delta[i])` (whole numbers below `groups` and `width`).
    pub fn new(groups: usize, width: usize, group: &[f64], column: &[f64], delta: &[f64]) -> Result<Events, String> {
        let mut offsets = vec![0usize; groups + 1];
        for (&g, &c) in group.iter().zip(column) {
            let fits = |v: f64, end: usize| v >= 0.0 && v < end as f64 && v.fract() == 0.0;
            if !fits(g, groups) || !fits(c, width) {
                return Err(format!("the rankk kernel's resampling: event ({g}, {c}) outside {groups} groups × {width} columns"));
            }
            offsets[g as usize + 1] += 1;
        }
        for g in 0..groups {
            offsets[g + 1] += offsets[g];
        }
        // A stable counting sort by group (events usually come in group order already).
        let mut next = offsets[..groups].to_vec();
        let (mut columns, mut deltas) = (vec![0usize; delta.len()], vec![0.0f64; delta.len()]);
        for ((&g, &c), &d) in group.iter().zip(column).zip(delta) {
            let at = &mut next[g as usize];
            columns[*at] = c as usize;
            deltas[*at] = d;
            *at += 1;
        }
        Ok(Events { groups, width, offsets, columns, deltas })
    }
}

/// Each of `resamples` resamples' sums of every column (resamples × width, row-major), the
/// groups drawn by `rng`, resample after resample.
pub fn resampled_sums(rng: &mut Pcg64, events: &Events, resamples: usize) -> Vec<f64> {
    let width = events.width;
    let mut out = vec![0.0f64; resamples * width];
    if resamples == 0 {
        return out;
    }
    let blocks = out.chunks_mut(BLOCK * width);
    if threads() < 2 || resamples <= BLOCK {
        let mut counts = vec![0u32; BLOCK * events.groups];
        for block in blocks {
            let rows = block.len() / width;
            draw(rng, &mut counts[..rows * events.groups], events.groups);
            multiply(events, &counts[..rows * events.groups], block);
        }
        return out;
    }
    // This thread draws the next block while a worker multiplies the one before it; two
    // buffers of counts go back and forth.
    std::thread::scope(|scope| {
        let (to_worker, drawn) = std::sync::mpsc::sync_channel::<Vec<u32>>(1);
        let (to_drawer, spent) = std::sync::mpsc::channel::<Vec<u32>>();
        let n_blocks = blocks.len();
        let worker = scope.spawn(move || {
            for block in blocks {
                let counts = drawn.recv().expect("a block's counts");
                multiply(events, &counts[..block.len() / width * events.groups], block);
                // The drawer may have stopped waiting for it: its last block is drawn.
                let _ = to_drawer.send(counts);
            }
        });
        let mut spare = vec![vec![0u32; BLOCK * events.groups]; 2];
        for index in 0..n_blocks {
            let rows = (resamples - index * BLOCK).min(BLOCK);
            let mut counts = spare.pop().unwrap_or_else(|| spent.recv().expect("counts back from the worker"));
            draw(rng, &mut counts[..rows * events.groups], events.groups);
            if to_worker.send(counts).is_err() {
                break; // the worker panicked: joined below
            }
        }
        drop(to_worker);
        worker.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
    });
    out
}

/// Each resample's (a row of `counts`, `groups` long) counts of its draws of the groups.
fn draw(rng: &mut Pcg64, counts: &mut [u32], groups: usize) {
    counts.fill(0);
    if groups == 1 {
        // NumPy draws nothing from a range of one value.
        counts.fill(1);
        return;
    }
    let bound = (groups - 1) as u32;
    for row in counts.chunks_mut(groups) {
        for _ in 0..groups {
            row[rng.bounded(bound) as usize] += 1;
        }
    }
}

/// The sums of a block of resamples (`counts`: their rows of counts) into `out` (their rows
/// of sums): per group in order, each event adds its delta times the group's count in each
/// resample, into a column-major block (each event's sums side by side), then transposed.
fn multiply(events: &Events, counts: &[u32], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { multiply_avx2(events, counts, out) };
    }
    multiply_with(events, counts, out);
}

/// `multiply` compiled for AVX2: each event's row of a block's sums is added four numbers at
/// a time instead of two (the same products and additions, in the same order: the same sums).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn multiply_avx2(events: &Events, counts: &[u32], out: &mut [f64]) {
    multiply_with(events, counts, out);
}

#[inline(always)]
fn multiply_with(events: &Events, counts: &[u32], out: &mut [f64]) {
    let (groups, width) = (events.groups, events.width);
    let rows = counts.len() / groups;
    let mut block = vec![0.0f64; width * rows];
    let mut weights = [0.0f64; BLOCK];
    for g in 0..groups {
        let range = events.offsets[g]..events.offsets[g + 1];
        if range.is_empty() {
            continue;
        }
        for (b, weight) in weights[..rows].iter_mut().enumerate() {
            *weight = f64::from(counts[b * groups + g]);
        }
        for (&column, &delta) in events.columns[range.clone()].iter().zip(&events.deltas[range]) {
            let sums = &mut block[column * rows..(column + 1) * rows];
            for (sum, weight) in sums.iter_mut().zip(&weights[..rows]) {
                *sum += weight * delta;
            }
        }
    }
    for (b, row) in out.chunks_mut(width).enumerate() {
        for (c, slot) in row.iter_mut().enumerate() {
            *slot = block[c * rows + b];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numpy_pcg64_of_12345() -> Pcg64 {
        // np.random.PCG64(12345).state
        Pcg64 {
            state: 33261208707367790463622745601869196757,
            inc: 268209174141567072605526753992732310247,
            has_uint32: false,
            uinteger: 0,
        }
    }

    #[test]
    fn draws_are_numpys() {
        // np.random.PCG64(12345).random_raw(3)
        let mut rng = numpy_pcg64_of_12345();
        let raw: Vec<u64> = (0..3).map(|_| rng.next64()).collect();
        assert_eq!(raw, [4193609425186963869, 5843160025838961886, 14708796524633321433]);
        // np.random.Generator(np.random.PCG64(12345)).integers(0, 7, size=12), and the state after
        let mut rng = numpy_pcg64_of_12345();
        let drawn: Vec<u32> = (0..12).map(|_| rng.bounded(6)).collect();
        assert_eq!(drawn, [4, 1, 5, 2, 1, 5, 4, 4, 6, 2, 5, 2]);
        assert_eq!(rng.state, 292095215331685353352157677688732367819);
        assert!(!rng.has_uint32);
        assert_eq!(rng.uinteger, 1429424935);
    }

    #[test]
    fn resampled_sums_are_the_counts_times_the_events() {
        // 5 groups, 3 columns; events out of group order, one group without any.
        let group = [3.0, 0.0, 0.0, 4.0, 1.0, 3.0];
        let column = [2.0, 0.0, 1.0, 0.0, 2.0, 2.0];
        let delta = [0.5, 1.0, -2.0, 0.25, 3.0, 1.5];
        let events = Events::new(5, 3, &group, &column, &delta).unwrap();
        for resamples in [1, BLOCK, 3 * BLOCK + 5] {
            let mut rng = numpy_pcg64_of_12345();
            let sums = resampled_sums(&mut rng, &events, resamples);
            let mut again = numpy_pcg64_of_12345();
            for b in 0..resamples {
                let mut counts = [0.0f64; 5];
                for _ in 0..5 {
                    counts[again.bounded(4) as usize] += 1.0;
                }
                let mut expected = [0.0f64; 3];
                for g in 0..5 {
                    for e in (0..group.len()).filter(|e| group[*e] as usize == g) {
                        expected[column[e] as usize] += counts[g] * delta[e];
                    }
                }
                assert_eq!(&sums[b * 3..(b + 1) * 3], &expected, "resample {b} of {resamples}");
            }
            assert_eq!(rng, again, "the generator's state after the draws");
        }
    }

    #[test]
    fn one_group_is_drawn_without_the_generator() {
        let events = Events::new(1, 2, &[0.0], &[1.0], &[2.0]).unwrap();
        let mut rng = numpy_pcg64_of_12345();
        assert_eq!(resampled_sums(&mut rng, &events, 2), [0.0, 2.0, 0.0, 2.0]);
        assert_eq!(rng, numpy_pcg64_of_12345());
    }
}
