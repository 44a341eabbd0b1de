//! The computation: group the rows, rank each group under the policy, and read the running
//! sums of the per-rank terms at every cut-off. The reference is `polars_rankk/core/ranking.py`
//! and `polars_rankk/core/prepare.py`; the formulas below follow them term by term.

use std::cmp::Ordering;

use crate::columns::Column;
use crate::config::{Config, Gain, Invalid, Judged, Kind, Output, Stat, Ties, N_STATS};

/// The inputs of one call, in row order.
pub struct Inputs<'a> {
    pub keys: Vec<&'a Column<'a>>,
    pub key_handles: Vec<Vec<u64>>,
    pub item: &'a Column<'a>,
    pub item_handles: Vec<u64>,
    pub score: Vec<f64>,
    pub grade: Vec<f64>,
    pub judged: Option<Vec<f64>>,
    pub row: Option<Vec<i64>>,
    pub n_relevant: Option<Vec<f64>>,
    pub n_nonrelevant: Option<Vec<f64>>,
}

/// The result: one entry per group.
pub struct Groups {
    /// A row of each group (its first), to read its keys from.
    pub first_row: Vec<usize>,
    /// `values[g * n_outputs + j]`: output `j` of group `g` (keys excluded: 0).
    pub values: Vec<f64>,
}

#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    let rest = words.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(0x0000_0100_0000_01b3);
    mix(h)
}

struct KeyReader<'a> {
    columns: &'a [&'a Column<'a>],
    handles: &'a [Vec<u64>],
    kinds: &'a [Kind],
}

impl KeyReader<'_> {
    #[inline]
    fn hash(&self, row: usize) -> u64 {
        let mut h = 0u64;
        for (j, kind) in self.kinds.iter().enumerate() {
            let handle = self.handles[j][row];
            let part = match kind {
                Kind::Integer => mix(handle),
                Kind::Text => hash_bytes(self.columns[j].text_of(handle)),
            };
            h = mix(h.rotate_left(5) ^ part);
        }
        h
    }

    #[inline]
    fn equal(&self, a: usize, b: usize) -> bool {
        self.kinds.iter().enumerate().all(|(j, kind)| {
            let (x, y) = (self.handles[j][a], self.handles[j][b]);
            match kind {
                Kind::Integer => x == y,
                Kind::Text => x == y || self.columns[j].text_of(x) == self.columns[j].text_of(y),
            }
        })
    }
}

/// Dense group ids in order of first appearance, and each group's first row.
fn group_ids(keys: &KeyReader<'_>, n: usize) -> (Vec<u32>, Vec<usize>) {
    let mut ids = Vec::with_capacity(n);
    let mut first_row: Vec<usize> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();
    let mut table: Vec<u32> = vec![u32::MAX; 1024];
    let mut mask = table.len() - 1;
    let mut previous: Option<(usize, u32)> = None;
    for row in 0..n {
        // Rows of one group often come together: compare with the previous row first.
        if let Some((last, id)) = previous {
            if keys.equal(last, row) {
                ids.push(id);
                previous = Some((row, id));
                continue;
            }
        }
        let h = keys.hash(row);
        let mut slot = (h as usize) & mask;
        let id = loop {
            let found = table[slot];
            if found == u32::MAX {
                let id = first_row.len() as u32;
                first_row.push(row);
                hashes.push(h);
                table[slot] = id;
                if first_row.len() * 2 > table.len() {
                    table = vec![u32::MAX; table.len() * 2];
                    mask = table.len() - 1;
                    for (g, gh) in hashes.iter().enumerate() {
                        let mut s = (*gh as usize) & mask;
                        while table[s] != u32::MAX {
                            s = (s + 1) & mask;
                        }
                        table[s] = g as u32;
                    }
                }
                break id;
            }
            if hashes[found as usize] == h && keys.equal(first_row[found as usize], row) {
                break found;
            }
            slot = (slot + 1) & mask;
        };
        ids.push(id);
        previous = Some((row, id));
    }
    (ids, first_row)
}

#[derive(Clone, Copy)]
struct Candidate {
    score: f64,
    /// The grade as given (NaN: no grade).
    grade: f64,
    item: u64,
    row: i64,
    judged: bool,
}

/// The decimal text of an integer (trec_eval compares item ids as strings).
fn integer_text(value: i64, buffer: &mut [u8; 24]) -> &[u8] {
    let mut at = buffer.len();
    let negative = value < 0;
    let mut v = value.unsigned_abs();
    loop {
        at -= 1;
        buffer[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        buffer[at] = b'-';
    }
    &buffer[at..]
}

struct Items<'a> {
    column: &'a Column<'a>,
    kind: Kind,
}

impl Items<'_> {
    /// The item's own order: integers by value, strings by bytes.
    #[inline]
    fn cmp(&self, a: u64, b: u64) -> Ordering {
        match self.kind {
            Kind::Integer => (a as i64).cmp(&(b as i64)),
            Kind::Text => {
                if a == b {
                    Ordering::Equal
                } else {
                    self.column.text_of(a).cmp(self.column.text_of(b))
                }
            }
        }
    }

    /// The order of the items' string forms (trec_eval).
    #[inline]
    fn cmp_text(&self, a: u64, b: u64) -> Ordering {
        match self.kind {
            Kind::Integer => {
                let (mut x, mut y) = ([0u8; 24], [0u8; 24]);
                integer_text(a as i64, &mut x).cmp(integer_text(b as i64, &mut y))
            }
            Kind::Text => self.cmp(a, b),
        }
    }
}

/// The grade the reference path ranks and scores with.
#[inline]
fn effective_grade(grade: f64, config: &Config) -> f64 {
    if grade.is_nan() || (config.positive_only && grade <= 0.0) {
        0.0
    } else {
        grade
    }
}

fn rank_order(config: &Config, items: &Items<'_>, a: &Candidate, b: &Candidate) -> Ordering {
    let by_score = b.score.total_cmp(&a.score);
    if by_score != Ordering::Equal {
        return by_score;
    }
    match config.ties {
        Ties::TrecEval => items.cmp_text(b.item, a.item).then(b.row.cmp(&a.row)),
        Ties::InputOrder => a.row.cmp(&b.row),
        Ties::Pessimistic => effective_grade(a.grade, config)
            .total_cmp(&effective_grade(b.grade, config))
            .then_with(|| items.cmp(a.item, b.item))
            .then(a.row.cmp(&b.row)),
        Ties::Optimistic => effective_grade(b.grade, config)
            .total_cmp(&effective_grade(a.grade, config))
            .then_with(|| items.cmp(a.item, b.item))
            .then(a.row.cmp(&b.row)),
        Ties::ItemAsc | Ties::Expected => items.cmp(a.item, b.item).then(a.row.cmp(&b.row)),
    }
}

fn gain_of(grade: f64, config: &Config) -> f64 {
    match config.gain {
        Gain::Binary => f64::from(u8::from(grade >= config.threshold)),
        Gain::Linear => grade.max(0.0),
        Gain::Exponential => 2f64.powf(grade.max(0.0)) - 1.0,
    }
}

fn discount(rank: usize) -> f64 {
    // Polars' `log(2)`: ln(x) / ln(2).
    ((rank + 1) as f64).log(2.0)
}

fn rbp_weight(rank: usize, config: &Config) -> f64 {
    let p = config.rbp_persistence;
    (1.0 - p) * p.powf((rank - 1) as f64)
}

fn err_stop(grade: f64, config: &Config) -> f64 {
    let top = config.err_max_grade;
    let clipped = grade.clamp(0.0, top);
    (2f64.powf(clipped) - 1.0) / 2f64.powf(top)
}

/// What one group's ranking adds up to, read at the configured cut-offs.
struct Reader<'a> {
    config: &'a Config,
    /// Sorted distinct cut-offs.
    ks: Vec<usize>,
    needed: [bool; N_STATS],
    limit_whole: bool,
    k_max: usize,
}

struct GroupResult {
    n: usize,
    hits_at_r: f64,
    /// `at_k[i][stat]`: the running sum at rank min(ks[i], n).
    at_k: Vec<[f64; N_STATS]>,
    whole: [f64; N_STATS],
}

impl Reader<'_> {
    fn read(&self, ranked: &[Candidate], n_relevant: f64, n_nonrelevant: f64, out: &mut GroupResult) {
        let config = self.config;
        let n = ranked.len();
        let limit = if self.limit_whole { n } else { n.min(self.k_max) };
        let mut sums = [0.0f64; N_STATS];
        let mut next_k = 0usize;
        let r_cut = if n_relevant > 0.0 { n_relevant as usize } else { 0 };
        out.n = n;
        out.hits_at_r = 0.0;
        let record = |rank: usize, sums: &[f64; N_STATS], next_k: &mut usize, out: &mut GroupResult| {
            while *next_k < self.ks.len() && self.ks[*next_k] == rank {
                out.at_k[*next_k] = *sums;
                *next_k += 1;
            }
            if rank == r_cut {
                out.hits_at_r = sums[Stat::Hits as usize];
            }
        };
        if config.ties == Ties::Expected {
            self.expected(ranked, limit, &mut sums, &mut |rank, sums| record(rank, sums, &mut next_k, out));
        } else {
            let mut hits = 0i64;
            let mut log_go_on_sum = 0.0f64;
            let mut nonrelevant_so_far = 0i64;
            let mut bpref_sum = 0.0f64;
            let mut bpref_best: Option<f64> = None;
            for (index, candidate) in ranked[..limit].iter().enumerate() {
                let rank = index + 1;
                let grade = effective_grade(candidate.grade, config);
                let relevant = grade >= config.threshold;
                let judged = candidate.judged;
                if relevant {
                    hits += 1;
                    sums[Stat::Hits as usize] += 1.0;
                    sums[Stat::PrecisionSum as usize] += hits as f64 / rank as f64;
                    if hits == 1 {
                        sums[Stat::ReciprocalRank as usize] += 1.0 / rank as f64;
                        sums[Stat::FirstHit as usize] += 1.0;
                    }
                }
                if self.needed[Stat::Dcg as usize] {
                    let gain = gain_of(grade, config);
                    if gain != 0.0 {
                        sums[Stat::Dcg as usize] += gain / discount(rank);
                    }
                }
                if judged && self.needed[Stat::JudgedCount as usize] {
                    sums[Stat::JudgedCount as usize] += 1.0;
                }
                if self.needed[Stat::Rbp as usize] && relevant {
                    sums[Stat::Rbp as usize] += rbp_weight(rank, config);
                }
                if self.needed[Stat::RbpJudged as usize] && judged {
                    sums[Stat::RbpJudged as usize] += rbp_weight(rank, config);
                }
                if self.needed[Stat::Err as usize] {
                    let stop = err_stop(grade, config);
                    if stop != 0.0 {
                        // As the reference: the running sum of log(1 - stop) up to this row,
                        // minus this row's.
                        let log_go_on = (1.0 - stop).ln();
                        log_go_on_sum += log_go_on;
                        sums[Stat::Err as usize] += stop * (log_go_on_sum - log_go_on).exp() / rank as f64;
                    }
                }
                if self.needed[Stat::Bpref as usize] {
                    if judged && !relevant {
                        nonrelevant_so_far += 1;
                    }
                    // As the reference: the term of every row it keeps (judged rows, the first
                    // row, graded rows), whose largest running sum it reads, skipping NaN.
                    if judged || rank == 1 || grade > 0.0 {
                        let preserved = if nonrelevant_so_far > 0 {
                            let before = nonrelevant_so_far as f64;
                            1.0 - before.min(n_relevant) / n_nonrelevant.min(n_relevant)
                        } else {
                            1.0
                        };
                        let both = f64::from(u8::from(relevant && judged));
                        bpref_sum += both * preserved;
                        if !bpref_sum.is_nan() {
                            bpref_best = Some(bpref_best.map_or(bpref_sum, |b: f64| b.max(bpref_sum)));
                        }
                    }
                }
                record(rank, &sums, &mut next_k, out);
            }
            if self.needed[Stat::Bpref as usize] {
                sums[Stat::Bpref as usize] = if limit == 0 { 0.0 } else { bpref_best.unwrap_or(f64::NAN) };
            }
        }
        // Cut-offs past the list read its last running sums.
        while next_k < self.ks.len() {
            out.at_k[next_k] = sums;
            next_k += 1;
        }
        if r_cut > limit {
            out.hits_at_r = sums[Stat::Hits as usize];
        }
        out.whole = sums;
    }

    /// Expectations over every ordering of each tie block (McSherry & Najork 2008), as
    /// `ranking._expected_terms` and `ranking._judgement_terms` define them.
    fn expected(
        &self,
        ranked: &[Candidate],
        limit: usize,
        sums: &mut [f64; N_STATS],
        record: &mut dyn FnMut(usize, &[f64; N_STATS]),
    ) {
        let config = self.config;
        let n = ranked.len();
        let mut start = 0usize;
        let mut hits_before = 0usize;
        // Running sums over the whole group, read at block ends, as the reference does.
        let mut gain_so_far = 0.0f64;
        let mut log_miss_so_far = 0.0f64;
        while start < limit {
            let mut end = start + 1;
            while end < n && ranked[end].score.total_cmp(&ranked[start].score) == Ordering::Equal {
                end += 1;
            }
            let block = &ranked[start..end];
            let m = block.len() as f64;
            let mut r = 0usize;
            let mut judged = 0usize;
            let mut first_gain_so_far = 0.0f64;
            for (index, candidate) in block.iter().enumerate() {
                let grade = effective_grade(candidate.grade, config);
                r += usize::from(grade >= config.threshold);
                judged += usize::from(candidate.judged);
                let gain = gain_of(grade, config);
                gain_so_far += gain;
                if index == 0 {
                    first_gain_so_far = gain_so_far;
                }
            }
            let first_gain = gain_of(effective_grade(block[0].grade, config), config);
            let block_gain = gain_so_far - (first_gain_so_far - first_gain);
            let rf = r as f64;
            let hb = hits_before as f64;
            let mut log_before_block = 0.0f64;
            for t in 1..=block.len() {
                let rank = start + t;
                if rank > limit {
                    break;
                }
                let tf = t as f64;
                let miss = (m - rf - tf + 1.0) / (m - tf + 1.0);
                let log_miss = if miss > 0.0 { miss.ln() } else { 0.0 };
                log_miss_so_far += log_miss;
                if t == 1 {
                    log_before_block = log_miss_so_far - log_miss;
                }
                let none_before = if tf - 1.0 >= m - rf + 1.0 {
                    0.0
                } else {
                    (log_miss_so_far - log_miss - log_before_block).exp()
                };
                let p_relevant = rf / m;
                let others = if block.len() > 1 { (tf - 1.0) * (rf - 1.0) / (m - 1.0) } else { 0.0 };
                let p_first = if hits_before == 0 { none_before * rf / (m - tf + 1.0) } else { 0.0 };
                let rank_f = rank as f64;
                sums[Stat::Hits as usize] += p_relevant;
                sums[Stat::Dcg as usize] += block_gain / m / discount(rank);
                sums[Stat::PrecisionSum as usize] += p_relevant * (hb + 1.0 + others) / rank_f;
                sums[Stat::ReciprocalRank as usize] += p_first / rank_f;
                sums[Stat::FirstHit as usize] += p_first;
                let judged_share = judged as f64 / m;
                sums[Stat::JudgedCount as usize] += judged_share;
                if self.needed[Stat::Rbp as usize] {
                    sums[Stat::Rbp as usize] += p_relevant * rbp_weight(rank, config);
                }
                if self.needed[Stat::RbpJudged as usize] {
                    sums[Stat::RbpJudged as usize] += judged_share * rbp_weight(rank, config);
                }
                record(rank, sums);
            }
            hits_before += r;
            start = end;
        }
    }
}

/// Rank every group and read its sums; `outputs` gives the columns, in order.
pub fn compute(config: &Config, inputs: &Inputs<'_>) -> Groups {
    let n = inputs.score.len();
    let reader = KeyReader { columns: &inputs.keys, handles: &inputs.key_handles, kinds: &config.key_kinds };
    let (ids, first_row) = group_ids(&reader, n);
    let n_groups = first_row.len();
    // Rows by group (a counting sort), in input order within each group.
    let mut offsets = vec![0usize; n_groups + 1];
    for id in &ids {
        offsets[*id as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    let mut order = vec![0u32; n];
    {
        let mut next = offsets.clone();
        for (row, id) in ids.iter().enumerate() {
            order[next[*id as usize]] = row as u32;
            next[*id as usize] += 1;
        }
    }
    drop(ids);

    let mut ks: Vec<usize> = config
        .outputs
        .iter()
        .filter_map(|(_, o)| match o {
            Output::At(_, k) if *k > 0 => Some(*k),
            _ => None,
        })
        .collect();
    ks.sort_unstable();
    ks.dedup();
    let mut needed = [false; N_STATS];
    for (_, output) in &config.outputs {
        if let Output::At(stat, _) = output {
            needed[*stat as usize] = true;
        }
    }
    let reader = Reader {
        config,
        ks: ks.clone(),
        needed,
        limit_whole: config.whole_list(),
        k_max: config.k_max(),
    };
    let n_outputs = config.outputs.len();
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let threads = crate::plugin::threads().min(n_groups.max(1)).max(1);
    let per_thread = n_groups.div_ceil(threads).max(1);
    let items = Items { column: inputs.item, kind: config.item_kind };
    std::thread::scope(|scope| {
        for (part, block) in values.chunks_mut(per_thread * n_outputs.max(1)).enumerate() {
            let (reader, items, order, offsets, ks) = (&reader, &items, &order, &offsets, &ks);
            let mut work = move || {
                let mut scratch: Vec<Candidate> = Vec::new();
                let mut result = GroupResult { n: 0, hits_at_r: 0.0, at_k: vec![[0.0; N_STATS]; ks.len()], whole: [0.0; N_STATS] };
                let first = part * per_thread;
                let count = if n_outputs == 0 { 0 } else { block.len() / n_outputs };
                for local in 0..count {
                    let g = first + local;
                    let rows = &order[offsets[g]..offsets[g + 1]];
                    let (n_relevant, n_nonrelevant) = rank_group(config, inputs, items, rows, &mut scratch);
                    reader.read(&scratch, n_relevant, n_nonrelevant, &mut result);
                    let out = &mut block[local * n_outputs..(local + 1) * n_outputs];
                    for (slot, (_, output)) in out.iter_mut().zip(&config.outputs) {
                        *slot = match output {
                            Output::Key(_) => 0.0,
                            Output::NCandidates => result.n as f64,
                            Output::HitsAtR => result.hits_at_r,
                            Output::At(stat, 0) => result.whole[*stat as usize],
                            Output::At(stat, k) => {
                                let i = ks.binary_search(k).unwrap_or(0);
                                result.at_k[i][*stat as usize]
                            }
                        };
                    }
                }
            };
            if threads == 1 {
                work();
            } else {
                scope.spawn(work);
            }
        }
    });
    Groups { first_row, values }
}

/// The group's candidates after invalid scores, unjudged handling and de-duplication, in rank
/// order (left in `scratch`); returns the group's R and judged non-relevant count.
fn rank_group(
    config: &Config,
    inputs: &Inputs<'_>,
    items: &Items<'_>,
    rows: &[u32],
    scratch: &mut Vec<Candidate>,
) -> (f64, f64) {
    scratch.clear();
    let mut n_relevant = f64::NAN;
    let mut n_nonrelevant = f64::NAN;
    for &row in rows {
        let row = row as usize;
        if let Some(counts) = &inputs.n_relevant {
            n_relevant = n_relevant.max(counts[row]);
        }
        if let Some(counts) = &inputs.n_nonrelevant {
            n_nonrelevant = n_nonrelevant.max(counts[row]);
        }
        let mut score = inputs.score[row];
        if !score.is_finite() {
            match config.invalid {
                Invalid::Drop => continue,
                Invalid::Lowest => score = f64::NEG_INFINITY,
                Invalid::Error => {}
            }
        }
        let grade = inputs.grade[row];
        let judged = match config.judged {
            Judged::Unused | Judged::All => true,
            Judged::Grade => !grade.is_nan(),
            Judged::Column => inputs.judged.as_ref().is_some_and(|j| j[row] != 0.0 && !j[row].is_nan()),
        };
        if config.condense && !judged {
            continue;
        }
        let original_row = inputs.row.as_ref().map_or(0, |r| r[row]);
        scratch.push(Candidate { score, grade, item: inputs.item_handles[row], row: original_row, judged });
    }
    if !config.keep_duplicates && scratch.len() > 1 {
        // The highest-scored copy of each item, the earliest such row; its label is the
        // highest among the copies.
        scratch.sort_unstable_by(|a, b| {
            items
                .cmp(a.item, b.item)
                .then(b.score.total_cmp(&a.score))
                .then(a.row.cmp(&b.row))
        });
        let mut kept = 0usize;
        for i in 0..scratch.len() {
            if kept > 0 && items.cmp(scratch[kept - 1].item, scratch[i].item) == Ordering::Equal {
                let copy = scratch[i];
                let best = &mut scratch[kept - 1];
                if !copy.grade.is_nan() && (best.grade.is_nan() || copy.grade > best.grade) {
                    best.grade = copy.grade;
                }
                best.judged |= copy.judged;
            } else {
                scratch[kept] = scratch[i];
                kept += 1;
            }
        }
        scratch.truncate(kept);
    }
    scratch.sort_unstable_by(|a, b| rank_order(config, items, a, b));
    let fix = |v: f64| if v.is_nan() { 0.0 } else { v };
    (fix(n_relevant), fix(n_nonrelevant))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_text() {
        let mut buffer = [0u8; 24];
        assert_eq!(integer_text(-120, &mut buffer), b"-120");
        assert_eq!(integer_text(0, &mut buffer), b"0");
        assert_eq!(integer_text(i64::MIN, &mut buffer), b"-9223372036854775808");
    }
}
