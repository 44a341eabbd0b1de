//! One ranking of each group read twice: its sums (as `compute` writes them) and its *event
//! rows*, what a K-curve sums over ranks. A group's events are its ranks where a sum it reads
//! may change: rank 1, each rank within K_max whose row adds a non-zero term, and each rank of
//! a positive ideal gain within K_max (the truth's rows in the call). Each event row carries
//! the running sums of every term up to its rank (added in rank order, as `Reader::read` adds
//! them: what `evaluate` reads at K) and the running ideal DCG.

use std::cmp::Ordering;

use crate::config::{Config, Label, N_LABELS};

use super::ideal::{ideal_runs, IdealRuns};
use super::rank::{rank_order, score_order, sort_ranked};
use super::runs::{in_runs, InRuns, RowCursors};
use super::{counts_of, grouped, parts, rank_group, readers_of, threads, timing, Candidate, GroupSums, Groups, Inputs, Items, RankScratch, Reader};

/// Each group's event rows, group by group (groups in `Groups`' order), then rank order.
pub struct EventRows {
    /// (group, rank) of each row.
    pub rows: Vec<(u32, u32)>,
    /// `running[row * n_stats + stat]`: each term's running sum up to the row's rank.
    pub running: Vec<f64>,
    /// The ideal DCG at the row's rank (0 where the truth is not in the call).
    pub ideal: Vec<f64>,
}

impl EventRows {
    fn new() -> EventRows {
        EventRows { rows: Vec::new(), running: Vec::new(), ideal: Vec::new() }
    }

    fn extend(&mut self, other: EventRows) {
        self.rows.extend(other.rows);
        self.running.extend(other.running);
        self.ideal.extend(other.ideal);
    }
}

/// `compute` and the event rows of every group from one ranking of each (deterministic tie
/// policies: one order's rows). The ideal DCG is read where the truth's rows are in the call.
pub fn group_and_event_rows(config: &Config, inputs: &Inputs<'_>) -> (Groups, EventRows) {
    if let Some(found) = in_runs(config, inputs) {
        return in_runs_event_rows(config, inputs, &found);
    }
    let mut grouped = grouped(config, inputs);
    let (n_relevant, n_nonrelevant) =
        (std::mem::take(&mut grouped.n_relevant), std::mem::take(&mut grouped.n_nonrelevant));
    let keys = std::mem::take(&mut grouped.keys);
    let ideal = ideal_of(config, inputs, &keys);
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
                let mut walk = EventWalk::new(config, &readers[0], groups.len());
                let mut placing = Placing::new(&sums);
                for (local, group) in groups.iter_mut().enumerate() {
                    let g = first + local;
                    let counts = |set| counts_of(n_relevant, n_nonrelevant, sets, g, set);
                    let out = &mut block[local * n_outputs..(local + 1) * n_outputs];
                    let sorted = placing.write(&mut sums, group, counts, out);
                    walk.read(g, &group[..sorted], ideal.of(g));
                }
                walk.out
            }));
        }
        for handle in handles {
            events.extend(handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
    });
    timing("rank, sum and read event rows", started);
    (Groups { keys, values, places: Default::default() }, events)
}

/// `group_and_event_rows` on rows already grouped: each thread reads its groups' rows into one
/// small buffer, group after group, and ranks, sums and reads it there (as `compute_in_runs`:
/// no array of every candidate, which costs more to write than the ranking does).
fn in_runs_event_rows(config: &Config, inputs: &Inputs<'_>, found: &InRuns<'_>) -> (Groups, EventRows) {
    let keys = found.keys(config.key_kinds.len());
    let ideal = ideal_of(config, inputs, &keys);
    let started = std::time::Instant::now();
    let (readers, n_outputs) = readers_of(config);
    let sets = config.count_thresholds().len();
    let mut values = vec![0.0f64; found.n_groups() * n_outputs];
    let items = Items { column: inputs.item, kind: config.item_kind, cut: &config.item_prefix };
    let mut events = EventRows::new();
    std::thread::scope(|scope| {
        let mut values_rest: &mut [f64] = &mut values;
        let mut handles = Vec::new();
        for share in found.shares(threads()) {
            let (block, tail) = std::mem::take(&mut values_rest).split_at_mut(share.len() * n_outputs);
            values_rest = tail;
            let (readers, items, ideal) = (&readers, &items, &ideal);
            handles.push(scope.spawn(move || {
                let mut sums = GroupSums::new(readers, items);
                let mut walk = EventWalk::new(config, &readers[0], share.len());
                let mut placing = Placing::new(&sums);
                let mut cursors = RowCursors::new(inputs);
                let mut group = Vec::new();
                let first = share.start;
                for g in share {
                    let declared = found.fill(config, g, &mut cursors, &mut group);
                    let counts = |set: usize| found.counts(sets, g, set, declared);
                    let local = g - first;
                    let out = &mut block[local * n_outputs..(local + 1) * n_outputs];
                    let sorted = placing.write(&mut sums, &mut group, counts, out);
                    walk.read(g, &group[..sorted], ideal.of(g));
                }
                walk.out
            }));
        }
        for handle in handles {
            events.extend(handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
    });
    timing("gather, rank, sum and read event rows (grouped rows)", started);
    (Groups { keys, values, places: Default::default() }, events)
}

/// The ideal DCG runs of the groups of `keys` (none without the truth's rows in the call).
fn ideal_of(config: &Config, inputs: &Inputs<'_>, keys: &[Vec<u64>]) -> IdealRuns {
    let started = std::time::Instant::now();
    let ideal = if config.truth {
        ideal_runs(config, inputs, keys, config.k_max())
    } else {
        IdealRuns { offsets: Vec::new(), values: Vec::new() }
    };
    timing("ideal DCG runs", started);
    ideal
}

/// A group ranked for its sums and event rows without sorting the rows that add nothing:
/// only the rows that may add to a term (judged rows, most often a few of a long list) are
/// sorted, and each is placed at its rank (its place among them, plus the other rows of a
/// higher score, counted by a search among the sorted few). The other rows fill the ranks
/// between in any order: the reader and the event walk pass over them (each adds a signed
/// zero to every sum), so the sums and event rows are those of the sorted list, bit for bit.
/// The whole list is sorted as before where an output reads more than the sums (the facts,
/// the places), where a reader walks every row (ERR, bpref), where a row that adds nothing
/// ties with one that may add (the tie policy orders them), or where most rows may add.
struct Placing {
    /// Whether the group's readers read only the ranks of the rows that may add.
    on: bool,
    /// The ranks the silent flags hold within, and (not judged, judged): whether an ungraded
    /// row so flagged adds nothing to any term there.
    silent: (usize, [bool; 2]),
    weights: Vec<Vec<f64>>,
    adding: Vec<Candidate>,
    others: Vec<Candidate>,
    /// The adding rows' scores as ordered numbers, and the count of other rows above each.
    scores: Vec<u64>,
    above: Vec<usize>,
}

impl Placing {
    fn new(sums: &GroupSums<'_>) -> Placing {
        let reader = &sums.readers[0];
        let on = sums.readers.len() == 1
            && sums.facts.is_none()
            && sums.places_depth.is_none()
            && !reader.terms.walks_every_row();
        Placing { on, silent: (0, [false; 2]), weights: Vec::new(), adding: Vec::new(), others: Vec::new(), scores: Vec::new(), above: Vec::new() }
    }

    /// `GroupSums::write`, ranking as the type says; returns how many of the group's first
    /// candidates are at their ranks (or in rank order).
    fn write(&mut self, sums: &mut GroupSums<'_>, group: &mut [Candidate], counts: impl Fn(usize) -> (f64, f64), out: &mut [f64]) -> usize {
        if !self.on {
            return sums.write(group, counts, out);
        }
        let reader = &sums.readers[0];
        let config = reader.config;
        let top = sums.ranks_read(&counts);
        // De-duplicated, the highest score first (a selection of one rank, not a sort); a
        // list too short to select from, or a tie order that is not total, comes sorted.
        let (len, mut sorted) = rank_group(config, sums.items, group, &mut sums.scratch, Some(1));
        if sorted < len {
            let read = top.map_or(len, |top| top.min(len));
            if read > self.silent.0 {
                reader.terms.extend(&mut self.weights, read);
                let flags = [false, true].map(|judged| reader.terms.adds_nothing_unjudged(config, judged, &self.weights, read));
                self.silent = (read, flags);
            }
            if !self.place(config, sums.items, &mut sums.scratch, &mut group[..len]) {
                sort_ranked(config, sums.items, &mut group[..len], &mut sums.scratch);
            }
            sorted = len;
        }
        sums.read_ranked(group, len, sorted, counts, out);
        sorted
    }

    /// The rows of `group` that may add to a term sorted in rank order and placed at their
    /// ranks, the others between them (in the order they came); false (`group` as it was)
    /// where most rows may add (sorting them all is then as quick).
    fn place(&mut self, config: &Config, items: &Items<'_>, scratch: &mut RankScratch, group: &mut [Candidate]) -> bool {
        let silent = self.silent.1;
        let adds = |candidate: &Candidate| !(candidate.grade.is_nan() && silent[usize::from(candidate.judged())]);
        self.adding.clear();
        self.adding.extend(group.iter().filter(|c| adds(c)));
        if self.adding.len() * 4 > group.len() {
            return false;
        }
        sort_ranked(config, items, &mut self.adding, scratch);
        self.scores.clear();
        self.scores.extend(self.adding.iter().map(|c| score_order(c.score)));
        // above[i]: the other rows ranked between the (i-1)-th adding row and the i-th: those
        // of a higher score than the i-th's, and of an equal score those the tie order puts
        // first (scores as numbers, in descending order: a larger number, a higher score).
        self.above.clear();
        self.above.resize(self.adding.len() + 1, 0);
        self.others.clear();
        for other in group.iter().filter(|c| !adds(c)) {
            let score = score_order(other.score);
            let (mut below, mut tied) = (0usize, false);
            for s in &self.scores {
                below += usize::from(*s > score);
                tied |= *s == score;
            }
            if tied {
                while below < self.adding.len()
                    && self.scores[below] == score
                    && rank_order(config, items, &self.adding[below], other) == Ordering::Less
                {
                    below += 1;
                }
            }
            self.above[below] += 1;
            self.others.push(*other);
        }
        let mut rest = self.others.iter();
        let mut at = 0usize;
        for (adding, above) in self.adding.iter().zip(&self.above) {
            for (slot, other) in group[at..at + above].iter_mut().zip(&mut rest) {
                *slot = *other;
            }
            at += above;
            group[at] = *adding;
            at += 1;
        }
        for (slot, other) in group[at..].iter_mut().zip(rest) {
            *slot = *other;
        }
        true
    }
}

/// One thread's event rows and what reading them reuses from group to group.
struct EventWalk<'r> {
    reader: &'r Reader<'r>,
    weights: Vec<Vec<f64>>,
    /// Whether an unjudged row (not judged, judged) adds to no term: then it is skipped.
    silent: [bool; 2],
    out: EventRows,
}

impl<'r> EventWalk<'r> {
    fn new(config: &Config, reader: &'r Reader<'r>, n_groups: usize) -> Self {
        let mut out = EventRows::new();
        // About a dozen events a group: rank 1, a few hits, a few ideal ranks.
        out.rows.reserve(n_groups * 12);
        out.running.reserve(n_groups * 12 * reader.terms.n_stats);
        out.ideal.reserve(n_groups * 12);
        let mut weights: Vec<Vec<f64>> = Vec::new();
        reader.terms.extend(&mut weights, reader.k_max);
        let silent = [false, true].map(|judged| reader.terms.adds_nothing_unjudged(config, judged, &weights, reader.k_max));
        EventWalk { reader, weights, silent, out }
    }

    /// Group `g`'s event rows (`ranked`: its candidates in rank order, as `GroupSums::write`
    /// leaves them; `ideal`: its ideal DCG at ranks 1, 2, …).
    fn read(&mut self, g: usize, ranked: &[Candidate], ideal: &[f64]) {
        self.reader.event_rows(g as u32, ranked, ideal, &mut self.weights, self.silent, &mut self.out);
    }
}

impl Reader<'_> {
    /// The event rows of one ranked group (`ranked`: its first candidates in rank order, at
    /// least min(n, K_max) of them; `ideal`: its ideal DCG at ranks 1, 2, …), appended to `out`.
    /// An unjudged row whose `silent` flag (by its judged flag) says it adds to no term is
    /// passed over: most of a long list, whose few judged rows make the events.
    #[allow(clippy::too_many_arguments)]
    fn event_rows(&self, g: u32, ranked: &[Candidate], ideal: &[f64], weights: &mut Vec<Vec<f64>>, silent: [bool; 2], out: &mut EventRows) {
        let terms = &self.terms;
        let limit = ranked.len().min(self.k_max);
        terms.extend(weights, limit);
        let mut hits = 0i64;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        let mut values = vec![0.0f64; terms.n_stats];
        let mut sums = vec![0.0f64; terms.n_stats];
        // With one piece per term a row's value is what the running sum adds.
        let one_piece = terms.one_piece_per_term();
        let mut ideal_dcg = 0.0f64;
        for rank in 1..=limit.max(ideal.len()).max(1) {
            let mut event = rank == 1;
            if let Some(candidate) = ranked[..limit].get(rank - 1).filter(|c| !(c.grade.is_nan() && silent[usize::from(c.judged())])) {
                let relevant = self.row_values(candidate, rank, &mut hits, &mut labels, weights, &mut values);
                let adds = values.iter().any(|v| *v != 0.0);
                event |= adds;
                // The running sums as `Reader::read` adds them: each piece in turn.
                if !one_piece {
                    terms.add(&mut sums, &labels, rank, weights);
                    if let (Some(slot), true) = (terms.precision, relevant) {
                        sums[slot] += hits as f64 / rank as f64;
                    }
                } else if adds {
                    sums.iter_mut().zip(&values).for_each(|(sum, value)| *sum += value);
                }
            }
            if let Some(value) = ideal.get(rank - 1) {
                ideal_dcg = *value;
                event = true;
            }
            if event {
                out.rows.push((g, rank as u32));
                out.running.extend_from_slice(&sums);
                out.ideal.push(ideal_dcg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::columns::Values;
    use crate::config::{from_call, Call, Kind, OutputSpec, OutputValue, Policy};
    use crate::policy::Ties;
    use crate::kernel::{compute, truth_sums, Inputs};
    use crate::testing::{column, default_terms, key, sum, value};

    const K_MAX: usize = 12;
    const TERMS: [&str; 5] = ["hits", "dcg", "precision_sum", "reciprocal_rank", "first_hit"];

    /// 40 users, user u with u % 9 candidates (tied scores, repeated items), then the truth's
    /// rows of every user (one with none, a few with more relevant items than K_MAX, users
    /// 40..43 in the truth only). `grouped`: each user's candidates side by side (the kernel
    /// takes them as they come), else interleaved, user after user (it partitions them).
    fn rows(grouped: bool) -> (Vec<i64>, Vec<i64>, Vec<f64>, Vec<f64>) {
        let (mut user, mut item, mut score, mut grade) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut pairs: Vec<(i64, i64)> = (0..40i64).flat_map(|u| (0..u % 9).map(move |i| (u, i))).collect();
        if !grouped {
            pairs.sort_by_key(|(u, i)| (*i, *u));
        }
        for (u, i) in pairs {
            user.push(u);
            item.push((i * 5 + u) % 11);
            score.push(((i * 7 + u) % 4) as f64);
            grade.push(f64::NAN);
        }
        for u in 0..43i64 {
            for i in 0..(u * 3) % 16 {
                if u % 5 == 0 {
                    continue;
                }
                user.push(u);
                item.push(i);
                score.push(f64::NAN);
                grade.push(((i + u) % 4) as f64);
            }
        }
        (user, item, score, grade)
    }

    fn call(outputs: Vec<OutputSpec>) -> Call {
        Call { keys: vec![Kind::Integer], truth: true, terms: default_terms(), outputs, ..Call::default() }
    }

    /// Long lists of few judged rows and scores of few values (ties between judged and
    /// unjudged rows in most groups), the truth's rows after them: the event rows rank the
    /// rows that may add among the others without sorting them all, and read what `compute`
    /// reads, bit for bit, under every tie order that ranks by items or rows.
    #[test]
    fn placed_rows_give_the_sums_of_the_sorted_list() {
        let (mut user, mut item, mut score, mut grade) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for u in 0..30i64 {
            for i in 0..(20 + u * 3) {
                user.push(u);
                item.push((i * 37 + u * 11) % 400);
                score.push(((i * 13 + u) % 7) as f64 * 0.5);
                grade.push(f64::NAN);
            }
        }
        for u in 0..30i64 {
            for i in 0..(u % 6) {
                user.push(u);
                item.push((i * 5 * 37 + u * 11) % 400);
                score.push(f64::NAN);
                grade.push(((i + u) % 4) as f64);
            }
        }
        let (user, item) = (column("user", Values::I64(&user)), column("item", Values::I64(&item)));
        let (score, grade) = (column("score", Values::F64(&score)), column("grade", Values::F64(&grade)));
        let inputs = Inputs::new(vec![&user], &item, &score, &grade);
        let mut outputs = vec![key("user", 0), value("n_candidates", OutputValue::NCandidates)];
        for k in [1, 3, 10, 40, 90] {
            outputs.extend(TERMS.iter().map(|name| sum(&format!("{name}@{k}"), name, k)));
        }
        for ties in [Ties::TrecEval, Ties::ItemAsc, Ties::Pessimistic, Ties::Optimistic] {
            let config = from_call(&call(outputs.clone()), Policy { ties, ..Policy::default() }).unwrap();
            let (groups, events) = super::group_and_event_rows(&config, &inputs);
            let expected = compute(&config, &inputs);
            assert_eq!(groups.keys, expected.keys, "{ties:?}");
            let (found, wanted): (Vec<u64>, Vec<u64>) =
                groups.values.iter().zip(&expected.values).map(|(a, b)| (a.to_bits(), b.to_bits())).unzip();
            assert_eq!(found, wanted, "{ties:?}");
            assert!(events.rows.len() > 30, "{ties:?}");
        }
    }

    #[test]
    fn event_rows_carry_the_sums_and_ideal_dcg_read_at_every_cut_off() {
        event_rows_hold_the_sums_at_every_cut_off(true);
    }

    #[test]
    fn event_rows_of_partitioned_rows_carry_the_sums_and_ideal_dcg_read_at_every_cut_off() {
        event_rows_hold_the_sums_at_every_cut_off(false);
    }

    fn event_rows_hold_the_sums_at_every_cut_off(grouped: bool) {
        let (users, items, scores, grades) = rows(grouped);
        let (user, item) = (column("user", Values::I64(&users)), column("item", Values::I64(&items)));
        let (score, grade) = (column("score", Values::F64(&scores)), column("grade", Values::F64(&grades)));
        let inputs = Inputs::new(vec![&user], &item, &score, &grade);
        let mut outputs = vec![key("user", 0), value("n_candidates", OutputValue::NCandidates)];
        for k in 1..=K_MAX {
            outputs.extend(TERMS.iter().map(|name| sum(&format!("{name}@{k}"), name, k)));
        }
        let config = from_call(&call(outputs.clone()), Policy::default()).unwrap();
        let (groups, events) = super::group_and_event_rows(&config, &inputs);
        let expected = compute(&config, &inputs);
        assert_eq!((&groups.keys, &groups.values), (&expected.keys, &expected.values));
        let mut ideal_outputs = vec![key("user", 0)];
        ideal_outputs.extend((1..=K_MAX).map(|k| OutputSpec {
            column: format!("ideal@{k}"),
            value: OutputValue::IdealDcg,
            k,
            term: None,
        }));
        let ideal_config = from_call(&call(ideal_outputs), Policy::default()).unwrap();
        let (truth_user, truth_grade): (Vec<i64>, Vec<f64>) =
            users.iter().zip(&grades).filter(|(_, g)| !g.is_nan()).map(|(u, g)| (*u, *g)).unzip();
        let (truth_user, truth_grade) = (column("user", Values::I64(&truth_user)), column("grade", Values::F64(&truth_grade)));
        let ideal = truth_sums(&ideal_config, &[&truth_user], &truth_grade);
        let n_stats = config.stats.len();
        let n_outputs = config.outputs.len();
        let n_groups = groups.keys[0].len();
        assert_eq!(n_groups, (0..40).filter(|u| u % 9 != 0).count(), "groups with candidates only");
        for g in 0..n_groups {
            let mine: Vec<usize> = (0..events.rows.len()).filter(|r| events.rows[*r].0 == g as u32).collect();
            assert_eq!(events.rows[mine[0]].1, 1, "rank 1 is an event of every group");
            let truth_g = ideal.keys[0].iter().position(|k| *k == groups.keys[0][g]);
            for k in 1..=K_MAX {
                // The last event at or before K holds the sums `evaluate` reads at K.
                let last = *mine.iter().rfind(|r| events.rows[**r].1 as usize <= k).unwrap();
                for (slot, name) in TERMS.iter().enumerate() {
                    let stat = config.stats.iter().position(|(n, _)| n == name).unwrap();
                    let at = 2 + (k - 1) * TERMS.len() + slot;
                    assert_eq!(events.running[last * n_stats + stat].to_bits(), groups.values[g * n_outputs + at].to_bits());
                }
                let read = truth_g.map_or(0.0, |t| ideal.values[t * (K_MAX + 1) + k]);
                assert_eq!(events.ideal[last].to_bits(), read.to_bits(), "group {g} K {k}");
            }
            // Every event but rank 1 changes a running sum or the ideal DCG.
            for pair in mine.windows(2) {
                let (before, after) = (pair[0], pair[1]);
                let moved = (0..n_stats).any(|s| events.running[after * n_stats + s] != events.running[before * n_stats + s]);
                assert!(moved || events.ideal[after] != events.ideal[before]);
            }
        }
    }
}
