//! One ranking of each group read twice: its sums (as `compute` writes them) and its *event
//! rows*, what a K-curve sums over ranks. A group's events are its ranks where a sum it reads
//! may change: rank 1, each rank within K_max whose row adds a non-zero term, and each rank of
//! a positive ideal gain within K_max (the truth's rows in the call). Each event row carries
//! the row's own terms, the running sums of every term up to its rank (added in rank order,
//! as `Reader::read` adds them: what `evaluate` reads at K) and the running ideal DCG.

use crate::config::{Config, Label, N_LABELS};

use super::ideal::{ideal_runs, IdealRuns};
use super::rank::effective_grade;
use super::{counts_of, grouped, grouped_in_runs, parts, readers_of, timing, Candidate, GroupSums, Groups, Inputs, Items, Reader};

/// Each group's event rows, group by group (groups in `Groups`' order), then rank order.
pub struct EventRows {
    /// (group, rank) of each row.
    pub rows: Vec<(u32, u32)>,
    /// `values[row * n_stats + stat]`: the row's own value of each configured term (0 at a
    /// rank its row does not reach, or where only the ideal DCG changes).
    pub values: Vec<f64>,
    /// `running[row * n_stats + stat]`: each term's running sum up to the row's rank.
    pub running: Vec<f64>,
    /// The ideal DCG at the row's rank (0 where the truth is not in the call).
    pub ideal: Vec<f64>,
}

impl EventRows {
    fn new() -> EventRows {
        EventRows { rows: Vec::new(), values: Vec::new(), running: Vec::new(), ideal: Vec::new() }
    }

    fn extend(&mut self, other: EventRows) {
        self.rows.extend(other.rows);
        self.values.extend(other.values);
        self.running.extend(other.running);
        self.ideal.extend(other.ideal);
    }
}

/// `compute` and the event rows of every group from one ranking of each (deterministic tie
/// policies: one order's rows). The ideal DCG is read where the truth's rows are in the call.
pub fn group_and_event_rows(config: &Config, inputs: &Inputs<'_>) -> (Groups, EventRows) {
    let mut grouped = grouped_in_runs(config, inputs).unwrap_or_else(|| grouped(config, inputs));
    let (n_relevant, n_nonrelevant) =
        (std::mem::take(&mut grouped.n_relevant), std::mem::take(&mut grouped.n_nonrelevant));
    let keys = std::mem::take(&mut grouped.keys);
    let started = std::time::Instant::now();
    let ideal = if config.truth {
        ideal_runs(config, inputs, &keys, config.k_max())
    } else {
        IdealRuns { offsets: Vec::new(), values: Vec::new() }
    };
    timing("ideal DCG runs", started);
    let mut slices = grouped.slices();
    let n_groups = slices.len();
    let (readers, n_outputs) = readers_of(config);
    let sets = config.count_thresholds().len();
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let (_, per_thread) = parts(n_groups);
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let started = std::time::Instant::now();
    let mut events = EventRows::new();
    std::thread::scope(|scope| {
        let mut values_rest: &mut [f64] = &mut values;
        let mut handles = Vec::new();
        for (part, groups) in slices.chunks_mut(per_thread).enumerate() {
            let first = part * per_thread;
            let (block, tail) = std::mem::take(&mut values_rest).split_at_mut(groups.len() * n_outputs);
            values_rest = tail;
            let (readers, items, ideal) = (&readers, &items, &ideal);
            let (n_relevant, n_nonrelevant) = (&n_relevant, &n_nonrelevant);
            handles.push(scope.spawn(move || {
                let mut sums = GroupSums::new(readers, items);
                let mut out = EventRows::new();
                let mut weights: Vec<Vec<f64>> = Vec::new();
                for (local, group) in groups.iter_mut().enumerate() {
                    let g = first + local;
                    let counts = |set| counts_of(n_relevant, n_nonrelevant, sets, g, set);
                    let sorted = sums.write(group, counts, &mut block[local * n_outputs..(local + 1) * n_outputs]);
                    readers[0].event_rows(g as u32, &group[..sorted], ideal.of(g), &mut weights, &mut out);
                }
                out
            }));
        }
        for handle in handles {
            events.extend(handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
    });
    timing("rank, sum and read event rows", started);
    (Groups { keys, values }, events)
}

impl Reader<'_> {
    /// The event rows of one ranked group (`ranked`: its first candidates in rank order, at
    /// least min(n, K_max) of them; `ideal`: its ideal DCG at ranks 1, 2, …), appended to `out`.
    fn event_rows(&self, g: u32, ranked: &[Candidate], ideal: &[f64], weights: &mut Vec<Vec<f64>>, out: &mut EventRows) {
        let config = self.config;
        let terms = &self.terms;
        let limit = ranked.len().min(self.k_max);
        terms.extend(weights, limit);
        let mut hits = 0i64;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        let mut values = vec![0.0f64; terms.n_stats];
        let mut sums = vec![0.0f64; terms.n_stats];
        let mut ideal_dcg = 0.0f64;
        for rank in 1..=limit.max(ideal.len()).max(1) {
            let mut event = rank == 1;
            values.iter_mut().for_each(|v| *v = 0.0);
            if let Some(candidate) = ranked[..limit].get(rank - 1) {
                let grade = effective_grade(candidate.grade, config);
                let relevant = grade >= config.policy.relevance_threshold;
                if relevant {
                    hits += 1;
                }
                terms.label_row(&mut labels, grade, relevant && hits == 1, candidate.judged(), config);
                terms.add(&mut values, &labels, rank, weights);
                // The running sums as `Reader::read` adds them: each piece in turn.
                terms.add(&mut sums, &labels, rank, weights);
                if let Some(slot) = terms.precision {
                    if relevant {
                        values[slot] = hits as f64 / rank as f64;
                        sums[slot] += hits as f64 / rank as f64;
                    }
                }
                event |= values.iter().any(|v| *v != 0.0);
            }
            if let Some(value) = ideal.get(rank - 1) {
                ideal_dcg = *value;
                event = true;
            }
            if event {
                out.rows.push((g, rank as u32));
                out.values.extend_from_slice(&values);
                out.running.extend_from_slice(&sums);
                out.ideal.push(ideal_dcg);
            }
        }
    }
}
