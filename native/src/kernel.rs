//! The computation: group the rows, rank each group under the policy, and read the running
//! sums of the per-rank terms at every cut-off. The reference is `polars_rankk/core/metrics/order.py`
//! and `polars_rankk/core/evaluation/prepare.py`; the formulas below follow them term by term.

use std::cmp::Ordering;

use crate::columns::Column;
use crate::config::{
    Config, Gain, Invalid, Judged, Kind, Label, NonrelevantGain, Output, RbpGrades, Stat, Ties, Token,
    N_LABELS,
};

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

/// The result: one entry per group.
pub struct Groups {
    /// `keys[j][g]`: the handle of key column `j` of group `g` (see `Column::handles`).
    pub keys: Vec<Vec<u64>>,
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
    kinds: &'a [Kind],
}

impl KeyReader<'_> {
    #[inline]
    fn hash(&self, handles: &[u64]) -> u64 {
        let mut h = 0u64;
        for (j, kind) in self.kinds.iter().enumerate() {
            let part = match kind {
                Kind::Integer => mix(handles[j]),
                Kind::Text => hash_bytes(self.columns[j].text_of(handles[j])),
            };
            h = mix(h.rotate_left(5) ^ part);
        }
        h
    }

    #[inline]
    fn equal(&self, a: &[u64], b: impl Fn(usize) -> u64) -> bool {
        self.kinds.iter().enumerate().all(|(j, kind)| {
            let (x, y) = (a[j], b(j));
            match kind {
                Kind::Integer => x == y,
                Kind::Text => x == y || self.columns[j].text_of(x) == self.columns[j].text_of(y),
            }
        })
    }
}

/// Dense group ids in order of first appearance, and each group's key handles.
fn group_ids(keys: &KeyReader<'_>, n: usize) -> (Vec<u32>, Vec<Vec<u64>>) {
    let n_keys = keys.kinds.len();
    let mut readers: Vec<_> = keys.columns.iter().map(|c| c.handles()).collect();
    let mut ids = Vec::with_capacity(n);
    let mut group_keys: Vec<Vec<u64>> = vec![Vec::new(); n_keys];
    let mut hashes: Vec<u64> = Vec::new();
    let mut table: Vec<u32> = vec![u32::MAX; 1024];
    let mut mask = table.len() - 1;
    let mut current = vec![0u64; n_keys];
    let mut previous = vec![0u64; n_keys];
    let mut previous_id: Option<u32> = None;
    for _ in 0..n {
        for (j, reader) in readers.iter_mut().enumerate() {
            current[j] = reader.next().unwrap_or(0);
        }
        // Rows of one group often come together: compare with the previous row first.
        if let Some(id) = previous_id {
            if keys.equal(&current, |j| previous[j]) {
                ids.push(id);
                continue;
            }
        }
        let h = keys.hash(&current);
        let mut slot = (h as usize) & mask;
        let id = loop {
            let found = table[slot];
            if found == u32::MAX {
                let id = hashes.len() as u32;
                for (j, handle) in current.iter().enumerate() {
                    group_keys[j].push(*handle);
                }
                hashes.push(h);
                table[slot] = id;
                if hashes.len() * 2 > table.len() {
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
            let g = found as usize;
            if hashes[g] == h && keys.equal(&current, |j| group_keys[j][g]) {
                break found;
            }
            slot = (slot + 1) & mask;
        };
        ids.push(id);
        previous.copy_from_slice(&current);
        previous_id = Some(id);
    }
    (ids, group_keys)
}

#[derive(Clone, Copy, Default)]
pub(crate) struct Candidate {
    pub score: f64,
    /// The grade as given (NaN: no grade).
    pub grade: f64,
    pub item: u64,
    /// The input row (when a policy reads it) << 1 | whether the candidate is judged.
    pub extra: u64,
}

impl Candidate {
    #[inline]
    fn row(&self) -> u64 {
        self.extra >> 1
    }

    #[inline]
    fn judged(&self) -> bool {
        self.extra & 1 == 1
    }
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

pub(crate) struct Items<'a> {
    pub column: &'a Column<'a>,
    pub kind: Kind,
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

/// The grade the terms read (the reference path's grade after its joins and fills).
#[inline]
pub(crate) fn effective_grade(grade: f64, config: &Config) -> f64 {
    if grade.is_nan() {
        return config.unjudged_grade;
    }
    if config.positive_only && !(grade > 0.0 || config.may_add.contains(&grade)) {
        // The reference path joins only the truth rows that can add: others are unjudged.
        return config.unjudged_grade;
    }
    if config.negative_unjudged && grade < 0.0 {
        return config.unjudged_grade;
    }
    grade
}

/// The grade relevance-aware ties order by: pre-labelled grades as given (a null as
/// `null_order_grade`), joined grades as the terms read them.
#[inline]
fn order_grade(grade: f64, config: &Config) -> f64 {
    if grade.is_nan() {
        config.null_order_grade
    } else if config.labelled {
        grade
    } else {
        effective_grade(grade, config)
    }
}

fn rank_order(config: &Config, items: &Items<'_>, a: &Candidate, b: &Candidate) -> Ordering {
    let by_score = b.score.total_cmp(&a.score);
    if by_score != Ordering::Equal {
        return by_score;
    }
    match config.policy.ties {
        // trec_eval: docno descending; copies of one item kept in input order.
        Ties::TrecEval => items.cmp_text(b.item, a.item).then(a.row().cmp(&b.row())),
        Ties::InputOrder => a.row().cmp(&b.row()),
        Ties::Pessimistic => order_grade(a.grade, config)
            .total_cmp(&order_grade(b.grade, config))
            .then_with(|| items.cmp(a.item, b.item))
            .then(a.row().cmp(&b.row())),
        Ties::Optimistic => order_grade(b.grade, config)
            .total_cmp(&order_grade(a.grade, config))
            .then_with(|| items.cmp(a.item, b.item))
            .then(a.row().cmp(&b.row())),
        Ties::ItemAsc | Ties::Expected => items.cmp(a.item, b.item).then(a.row().cmp(&b.row())),
    }
}

/// `ranking.gain_of`: the policy's gain, then `Policy.gains`, then `nonrelevant_gain`.
pub(crate) fn gain_of(grade: f64, config: &Config) -> f64 {
    let mut gain = match config.policy.gain {
        Gain::Binary => f64::from(u8::from(grade >= config.policy.relevance_threshold)),
        Gain::Linear => grade.max(0.0),
        Gain::Exponential => 2f64.powf(grade.max(0.0)) - 1.0,
    };
    for (listed, value) in config.policy.gain_pairs() {
        if grade == *listed {
            gain = *value;
        }
    }
    if config.policy.nonrelevant_gain == NonrelevantGain::Zero && !(grade >= config.policy.relevance_threshold) {
        gain = 0.0;
    }
    gain
}

fn rbp_label(grade: f64, config: &Config) -> f64 {
    if grade >= config.policy.relevance_threshold {
        if config.policy.rbp_grades == RbpGrades::Graded {
            grade
        } else {
            1.0
        }
    } else {
        0.0
    }
}

/// The grade as a term reads it: 0 for an unjudged row ranked at -inf.
#[inline]
fn grade_label(grade: f64) -> f64 {
    if grade == f64::NEG_INFINITY {
        0.0
    } else {
        grade
    }
}

fn err_stop(grade: f64, config: &Config) -> f64 {
    let top = config.policy.err_max_grade;
    let clipped = grade.clamp(0.0, top);
    (2f64.powf(clipped) - 1.0) / 2f64.powf(top)
}

/// A weight of the rank, evaluated as the reference's Polars expression computes it.
fn weight(tokens: &[Token], rank: usize) -> f64 {
    let mut stack = [0.0f64; 16];
    let mut depth = 0usize;
    for token in tokens {
        match token {
            Token::Rank => {
                stack[depth] = rank as f64;
                depth += 1;
            }
            Token::Const(value) => {
                stack[depth] = *value;
                depth += 1;
            }
            // Polars' `log(2)`: ln(x) / ln(2).
            Token::Log2 => stack[depth - 1] = stack[depth - 1].log(2.0),
            op => {
                let (a, b) = (stack[depth - 2], stack[depth - 1]);
                depth -= 1;
                stack[depth - 1] = match op {
                    Token::Add => a + b,
                    Token::Sub => a - b,
                    Token::Mul => a * b,
                    Token::Div => a / b,
                    _ => a.powf(b),
                };
            }
        }
    }
    stack[0]
}

/// The terms of one call, as the reader computes them: every linear piece's weight at each
/// rank, computed once per rank and kept.
pub(crate) struct Terms {
    /// (stat slot, label, divide, weight index) of every linear piece, in declaration order.
    pieces: Vec<(usize, Label, bool, Option<usize>)>,
    weights: Vec<Vec<Token>>,
    labels: [bool; N_LABELS],
    precision: Option<usize>,
    err: Option<usize>,
    bpref: Option<usize>,
    n_stats: usize,
}

impl Terms {
    pub(crate) fn new(config: &Config) -> Terms {
        let mut terms = Terms {
            pieces: Vec::new(),
            weights: Vec::new(),
            labels: config.labels(),
            precision: None,
            err: None,
            bpref: None,
            n_stats: config.stats.len(),
        };
        for (slot, (_, stat)) in config.stats.iter().enumerate() {
            match stat {
                Stat::Linear(pieces) => {
                    for piece in pieces {
                        let weight = piece.weight.as_ref().map(|tokens| {
                            terms.weights.push(tokens.clone());
                            terms.weights.len() - 1
                        });
                        terms.pieces.push((slot, piece.label, piece.divide, weight));
                    }
                }
                Stat::PrecisionSum => terms.precision = Some(slot),
                Stat::Err => terms.err = Some(slot),
                Stat::Bpref => terms.bpref = Some(slot),
            }
        }
        terms
    }

    /// Each weight at ranks 1..=n (`table[w][rank - 1]`), grown on demand.
    fn extend(&self, table: &mut Vec<Vec<f64>>, n: usize) {
        if table.len() != self.weights.len() {
            *table = vec![Vec::new(); self.weights.len()];
        }
        for (tokens, column) in self.weights.iter().zip(table.iter_mut()) {
            for rank in column.len() + 1..=n {
                column.push(weight(tokens, rank));
            }
        }
    }

    /// Add each linear term's value for a row with `labels` at `rank`.
    #[inline]
    fn add(&self, sums: &mut [f64], labels: &[f64; N_LABELS], rank: usize, table: &[Vec<f64>]) {
        for &(slot, label, divide, weight) in &self.pieces {
            let value = labels[label as usize];
            sums[slot] += match weight {
                None => value,
                Some(w) if divide => value / table[w][rank - 1],
                Some(w) => value * table[w][rank - 1],
            };
        }
    }
}

/// What one group's ranking adds up to, read at the configured cut-offs.
pub(crate) struct Reader<'a> {
    pub config: &'a Config,
    pub terms: Terms,
    /// Sorted distinct cut-offs.
    pub ks: Vec<usize>,
    pub limit_whole: bool,
    pub k_max: usize,
}

pub(crate) struct GroupResult {
    pub n: usize,
    pub hits_at_r: f64,
    /// `at_k[i * n_stats + stat]`: the running sum at rank min(ks[i], n).
    pub at_k: Vec<f64>,
    pub whole: Vec<f64>,
    /// Scratch: the running sums, and the weights by rank.
    sums: Vec<f64>,
    weights: Vec<Vec<f64>>,
}

impl GroupResult {
    /// The value of a sums output (0 for the outputs other code fills).
    pub(crate) fn output(&self, output: &Output, ks: &[usize]) -> f64 {
        let n_stats = self.whole.len();
        match output {
            Output::NCandidates => self.n as f64,
            Output::HitsAtR => self.hits_at_r,
            Output::At(stat, 0) => self.whole[*stat],
            Output::At(stat, k) => {
                let i = ks.binary_search(k).unwrap_or(0);
                self.at_k[i * n_stats + *stat]
            }
            Output::Key(_) | Output::NRelevant | Output::NNonrelevant | Output::IdealDcg(_) => 0.0,
        }
    }

    pub(crate) fn new(n_ks: usize, n_stats: usize) -> GroupResult {
        GroupResult {
            n: 0,
            hits_at_r: 0.0,
            at_k: vec![0.0; n_ks * n_stats],
            whole: vec![0.0; n_stats],
            sums: vec![0.0; n_stats],
            weights: Vec::new(),
        }
    }
}

/// Where the running sums are read: each cut-off, and R (hits within the first R ranks).
struct Recorder<'a> {
    ks: &'a [usize],
    next_k: usize,
    r_cut: usize,
    n_stats: usize,
}

impl Recorder<'_> {
    #[inline]
    fn record(&mut self, rank: usize, sums: &[f64], hits: f64, out_at_k: &mut [f64], hits_at_r: &mut f64) {
        while self.next_k < self.ks.len() && self.ks[self.next_k] == rank {
            let at = self.next_k * self.n_stats;
            out_at_k[at..at + self.n_stats].copy_from_slice(sums);
            self.next_k += 1;
        }
        if rank == self.r_cut {
            *hits_at_r = hits;
        }
    }
}

impl<'a> Reader<'a> {
    /// The reader of `config`'s outputs: their sorted distinct cut-offs, and the whole list
    /// where an output reads it.
    pub(crate) fn for_outputs(config: &'a Config) -> Reader<'a> {
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
        Reader {
            config,
            terms: Terms::new(config),
            ks,
            limit_whole: config.whole_list(),
            k_max: config.k_max(),
        }
    }

    pub(crate) fn read(&self, ranked: &[Candidate], n_relevant: f64, n_nonrelevant: f64, out: &mut GroupResult) {
        let config = self.config;
        let n = ranked.len();
        let limit = if self.limit_whole { n } else { n.min(self.k_max) };
        let n_stats = self.terms.n_stats;
        let mut sums = std::mem::take(&mut out.sums);
        sums.iter_mut().for_each(|s| *s = 0.0);
        let mut weights = std::mem::take(&mut out.weights);
        self.terms.extend(&mut weights, limit);
        let r_cut = if n_relevant > 0.0 { n_relevant as usize } else { 0 };
        let mut recorder = Recorder { ks: &self.ks, next_k: 0, r_cut, n_stats };
        out.n = n;
        out.hits_at_r = 0.0;
        let hits = if config.policy.ties == Ties::Expected {
            self.expected(ranked, limit, &mut sums, &weights, &mut recorder, out)
        } else {
            self.deterministic(ranked, limit, n_relevant, n_nonrelevant, &mut sums, &weights, &mut recorder, out)
        };
        // Cut-offs past the list read its last running sums.
        while recorder.next_k < self.ks.len() {
            let at = recorder.next_k * n_stats;
            out.at_k[at..at + n_stats].copy_from_slice(&sums);
            recorder.next_k += 1;
        }
        if r_cut > limit {
            out.hits_at_r = hits;
        }
        out.whole.copy_from_slice(&sums);
        out.sums = sums;
        out.weights = weights;
    }

    #[allow(clippy::too_many_arguments)]
    fn deterministic(
        &self,
        ranked: &[Candidate],
        limit: usize,
        n_relevant: f64,
        n_nonrelevant: f64,
        sums: &mut [f64],
        weights: &[Vec<f64>],
        recorder: &mut Recorder<'_>,
        out: &mut GroupResult,
    ) -> f64 {
        let config = self.config;
        let terms = &self.terms;
        let mut hits = 0i64;
        let mut log_go_on_sum = 0.0f64;
        let mut nonrelevant_so_far = 0i64;
        let mut bpref_sum = 0.0f64;
        let mut bpref_best: Option<f64> = None;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        for (index, candidate) in ranked[..limit].iter().enumerate() {
            let rank = index + 1;
            let grade = effective_grade(candidate.grade, config);
            let relevant = grade >= config.policy.relevance_threshold;
            let judged = candidate.judged();
            if relevant {
                hits += 1;
            }
            if !terms.pieces.is_empty() {
                labels[Label::Relevant as usize] = f64::from(u8::from(relevant));
                labels[Label::FirstRelevant as usize] = f64::from(u8::from(relevant && hits == 1));
                labels[Label::Judged as usize] = f64::from(u8::from(judged));
                if terms.labels[Label::Grade as usize] {
                    labels[Label::Grade as usize] = grade_label(grade);
                }
                if terms.labels[Label::Gain as usize] {
                    labels[Label::Gain as usize] = gain_of(grade, config);
                }
                if terms.labels[Label::RbpGain as usize] {
                    labels[Label::RbpGain as usize] = rbp_label(grade, config);
                }
                terms.add(sums, &labels, rank, weights);
            }
            if let Some(slot) = terms.precision {
                if relevant {
                    sums[slot] += hits as f64 / rank as f64;
                }
            }
            if let Some(slot) = terms.err {
                let stop = err_stop(grade, config);
                if stop != 0.0 {
                    // As the reference: the running sum of log(1 - stop) up to this row,
                    // minus this row's.
                    let log_go_on = (1.0 - stop).ln();
                    log_go_on_sum += log_go_on;
                    sums[slot] += stop * (log_go_on_sum - log_go_on).exp() / rank as f64;
                }
            }
            if terms.bpref.is_some() {
                if judged && !relevant {
                    nonrelevant_so_far += 1;
                }
                // As the reference: the term of every row it keeps (judged rows, the first
                // row, rows that may add), whose largest running sum it reads, skipping NaN.
                if judged || rank == 1 || grade > 0.0 || config.may_add.contains(&grade) {
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
            recorder.record(rank, sums, hits as f64, &mut out.at_k, &mut out.hits_at_r);
        }
        if let Some(slot) = terms.bpref {
            sums[slot] = if limit == 0 { 0.0 } else { bpref_best.unwrap_or(f64::NAN) };
        }
        hits as f64
    }

    /// Expectations over every ordering of each tie block (McSherry & Najork 2008), as
    /// `polars_rankk/core/metrics/rows.py` defines them: each label's block mean, and the chance
    /// that the group's first relevant item sits at the row.
    fn expected(
        &self,
        ranked: &[Candidate],
        limit: usize,
        sums: &mut [f64],
        weights: &[Vec<f64>],
        recorder: &mut Recorder<'_>,
        out: &mut GroupResult,
    ) -> f64 {
        let config = self.config;
        let terms = &self.terms;
        let n = ranked.len();
        let mut start = 0usize;
        let mut hits_before = 0usize;
        let mut expected_hits = 0.0f64;
        // Running sums over the whole group, read at block ends, as the reference does.
        let mut so_far = [0.0f64; N_LABELS];
        let mut log_miss_so_far = 0.0f64;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        while start < limit {
            let mut end = start + 1;
            while end < n && ranked[end].score.total_cmp(&ranked[start].score) == Ordering::Equal {
                end += 1;
            }
            let block = &ranked[start..end];
            let m = block.len() as f64;
            let mut r = 0usize;
            let mut judged = 0usize;
            // Float labels: running sums read at the block's first and last rows.
            let mut first_so_far = [0.0f64; N_LABELS];
            let mut first_value = [0.0f64; N_LABELS];
            for (index, candidate) in block.iter().enumerate() {
                let grade = effective_grade(candidate.grade, config);
                r += usize::from(grade >= config.policy.relevance_threshold);
                judged += usize::from(candidate.judged());
                let values = [
                    (Label::Gain, gain_of(grade, config)),
                    (Label::Grade, grade_label(grade)),
                    (Label::RbpGain, rbp_label(grade, config)),
                ];
                for (label, value) in values {
                    let l = label as usize;
                    so_far[l] += value;
                    if index == 0 {
                        first_so_far[l] = so_far[l];
                        first_value[l] = value;
                    }
                }
            }
            let block_total = |l: Label| {
                let l = l as usize;
                so_far[l] - (first_so_far[l] - first_value[l])
            };
            let rf = r as f64;
            labels[Label::Relevant as usize] = rf / m;
            labels[Label::Judged as usize] = judged as f64 / m;
            labels[Label::Gain as usize] = block_total(Label::Gain) / m;
            labels[Label::Grade as usize] = block_total(Label::Grade) / m;
            labels[Label::RbpGain as usize] =
                if config.policy.rbp_grades == RbpGrades::Graded { block_total(Label::RbpGain) / m } else { rf / m };
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
                labels[Label::FirstRelevant as usize] =
                    if hits_before == 0 { none_before * rf / (m - tf + 1.0) } else { 0.0 };
                terms.add(sums, &labels, rank, weights);
                expected_hits += p_relevant;
                if let Some(slot) = terms.precision {
                    sums[slot] += p_relevant * (hb + 1.0 + others) / rank as f64;
                }
                recorder.record(rank, sums, expected_hits, &mut out.at_k, &mut out.hits_at_r);
            }
            hits_before += r;
            start = end;
        }
        expected_hits
    }
}

/// Every group's candidates side by side, after invalid scores and unjudged candidates are
/// handled: group g holds `candidates[offsets[g]..ends[g]]`.
struct Grouped {
    keys: Vec<Vec<u64>>,
    offsets: Vec<usize>,
    ends: Vec<usize>,
    candidates: Vec<Candidate>,
    n_relevant: Vec<f64>,
    n_nonrelevant: Vec<f64>,
}

/// Phase timings on stderr when `POLARS_RANKK_NATIVE_TIMING` is set (for profiling).
pub fn timing(label: &str, since: std::time::Instant) {
    if std::env::var_os("POLARS_RANKK_NATIVE_TIMING").is_some() {
        eprintln!("rankk kernel: {label}: {:.1} ms", since.elapsed().as_secs_f64() * 1e3);
    }
}

fn grouped(config: &Config, inputs: &Inputs<'_>) -> Grouped {
    let n = inputs.score.len();
    let reader = KeyReader { columns: &inputs.keys, kinds: &config.key_kinds };
    let started = std::time::Instant::now();
    let (ids, group_keys) = group_ids(&reader, n);
    timing("group ids", started);
    let started = std::time::Instant::now();
    let n_groups = group_keys[0].len();
    // Each group's candidates side by side (a counting sort by group, in input order), after
    // invalid scores and unjudged candidates are handled: group g holds offsets[g]..ends[g].
    let mut offsets = vec![0usize; n_groups + 1];
    for id in &ids {
        offsets[*id as usize + 1] += 1;
    }
    for g in 0..n_groups {
        offsets[g + 1] += offsets[g];
    }
    let mut ends = offsets[..n_groups].to_vec();
    let mut candidates = vec![Candidate::default(); n];
    let mut n_relevant = vec![f64::NAN; if inputs.n_relevant.is_some() { n_groups } else { 0 }];
    let mut n_nonrelevant = vec![f64::NAN; if inputs.n_nonrelevant.is_some() { n_groups } else { 0 }];
    {
        let mut scores = inputs.score.floats();
        let mut grades = inputs.grade.floats();
        let mut items = inputs.item.handles();
        let mut rows = inputs.row.map(Column::integers);
        let mut judged_flags = inputs.judged.map(Column::floats);
        let mut relevant_counts = inputs.n_relevant.map(Column::floats);
        let mut nonrelevant_counts = inputs.n_nonrelevant.map(Column::floats);
        for id in &ids {
            let g = *id as usize;
            // + 0.0 folds -0.0 into 0.0 (as the reference does), so that the two tie.
            let mut score = scores.next().unwrap_or(f64::NAN) + 0.0;
            let grade = grades.next().unwrap_or(f64::NAN);
            let item = items.next().unwrap_or(0);
            let row = rows.as_mut().map_or(0, |r| r.next().unwrap_or(0));
            let flag = judged_flags.as_mut().map_or(0.0, |j| j.next().unwrap_or(0.0));
            if let Some(counts) = relevant_counts.as_mut() {
                n_relevant[g] = n_relevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            if let Some(counts) = nonrelevant_counts.as_mut() {
                n_nonrelevant[g] = n_nonrelevant[g].max(counts.next().unwrap_or(f64::NAN));
            }
            if !score.is_finite() {
                match config.policy.invalid_scores {
                    Invalid::Drop => continue,
                    Invalid::Lowest => score = f64::NEG_INFINITY,
                    Invalid::Error => {}
                }
            }
            let judged = match config.judged {
                Judged::Unused | Judged::All => true,
                Judged::Grade => !grade.is_nan(),
                Judged::Column => flag != 0.0 && !flag.is_nan(),
                // As the reference: a null grade is filled first, then compared.
                Judged::NonNegative => {
                    (if grade.is_nan() { config.unjudged_grade } else { grade }) >= 0.0
                }
            };
            let condensed_away = match config.judged {
                // Condensing a pre-labelled list keeps the grades >= 0 (a null is not one).
                Judged::NonNegative => grade.is_nan() || grade < 0.0,
                _ => !judged,
            };
            // Pre-labelled copies of one item pool their grades before condensing (as the
            // reference de-duplicates first): their condensing waits for `rank_group`.
            if config.condense && condensed_away && !defers_condensing(config) {
                continue;
            }
            let extra = ((row.max(0) as u64) << 1) | u64::from(judged);
            candidates[ends[g]] = Candidate { score, grade, item, extra };
            ends[g] += 1;
        }
    }
    timing("scatter", started);
    Grouped { keys: group_keys, offsets, ends, candidates, n_relevant, n_nonrelevant }
}

/// Each group's thread-sized share: (first group, number of groups) per part.
fn parts(n_groups: usize) -> (usize, usize) {
    let threads = crate::plugin::threads().min(n_groups.max(1)).max(1);
    (threads, n_groups.div_ceil(threads).max(1))
}

/// Rank every group and read its sums; `outputs` gives the columns, in order.
pub fn compute(config: &Config, inputs: &Inputs<'_>) -> Groups {
    let Grouped { keys: group_keys, offsets, ends, mut candidates, n_relevant, n_nonrelevant } =
        grouped(config, inputs);
    let n_groups = group_keys[0].len();
    let reader = Reader::for_outputs(config);
    let ks = reader.ks.clone();
    let n_stats = config.stats.len();
    let n_outputs = config.outputs.len();
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let (threads, per_thread) = parts(n_groups);
    let items = Items { column: inputs.item, kind: config.item_kind };
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        let mut rest: &mut [Candidate] = &mut candidates;
        let mut consumed = 0usize;
        for (part, block) in values.chunks_mut(per_thread * n_outputs.max(1)).enumerate() {
            let first = part * per_thread;
            let count = if n_outputs == 0 { 0 } else { block.len() / n_outputs };
            let last = (first + count).min(n_groups);
            let (mine, others) = std::mem::take(&mut rest).split_at_mut(offsets[last] - consumed);
            rest = others;
            consumed = offsets[last];
            let (reader, items, offsets, ends, ks) = (&reader, &items, &offsets, &ends, &ks);
            let (n_relevant, n_nonrelevant) = (&n_relevant, &n_nonrelevant);
            let mut work = move || {
                let mut keys_scratch: Vec<u64> = Vec::new();
                let mut result = GroupResult::new(ks.len(), n_stats);
                let base = offsets[first];
                for local in 0..count {
                    let g = first + local;
                    let group = &mut mine[offsets[g] - base..ends[g] - base];
                    let len = rank_group(config, items, group, &mut keys_scratch);
                    let relevant = n_relevant.get(g).copied().filter(|v| !v.is_nan()).unwrap_or(0.0);
                    let nonrelevant =
                        n_nonrelevant.get(g).copied().filter(|v| !v.is_nan()).unwrap_or(0.0);
                    reader.read(&group[..len], relevant, nonrelevant, &mut result);
                    let out = &mut block[local * n_outputs..(local + 1) * n_outputs];
                    for (slot, (_, output)) in out.iter_mut().zip(&config.outputs) {
                        *slot = result.output(output, ks);
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
    timing("rank and sum", started);
    Groups { keys: group_keys, values }
}

/// Each ranked row's own terms (not cumulated) within the first `k_max` ranks, for the rows
/// where some term is not zero, group by group.
pub struct TermRows {
    /// `keys[j][g]`: as `Groups::keys`.
    pub keys: Vec<Vec<u64>>,
    /// (group, rank) of each row, in group order, then rank order.
    pub rows: Vec<(u32, u32)>,
    /// `values[row * n_stats + stat]`: the row's value of each configured term.
    pub values: Vec<f64>,
}

impl Reader<'_> {
    /// The row terms of one ranked group (deterministic tie policies), appended to `out`.
    fn row_terms(&self, g: u32, ranked: &[Candidate], weights: &mut Vec<Vec<f64>>, out: &mut (Vec<(u32, u32)>, Vec<f64>)) {
        let config = self.config;
        let terms = &self.terms;
        let limit = ranked.len().min(self.k_max);
        terms.extend(weights, limit);
        let mut hits = 0i64;
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        let mut values = vec![0.0f64; terms.n_stats];
        for (index, candidate) in ranked[..limit].iter().enumerate() {
            let rank = index + 1;
            let grade = effective_grade(candidate.grade, config);
            let relevant = grade >= config.policy.relevance_threshold;
            if relevant {
                hits += 1;
            }
            labels[Label::Relevant as usize] = f64::from(u8::from(relevant));
            labels[Label::FirstRelevant as usize] = f64::from(u8::from(relevant && hits == 1));
            labels[Label::Judged as usize] = f64::from(u8::from(candidate.judged()));
            labels[Label::Grade as usize] = grade_label(grade);
            labels[Label::Gain as usize] = gain_of(grade, config);
            labels[Label::RbpGain as usize] = rbp_label(grade, config);
            values.iter_mut().for_each(|v| *v = 0.0);
            terms.add(&mut values, &labels, rank, weights);
            if let Some(slot) = terms.precision {
                if relevant {
                    values[slot] = hits as f64 / rank as f64;
                }
            }
            if values.iter().any(|v| *v != 0.0) {
                out.0.push((g, rank as u32));
                out.1.extend_from_slice(&values);
            }
        }
    }
}

/// Rank every group and return each row's own terms within the first `k_max` ranks (the
/// K-curves' sums over ranks read them).
pub fn term_rows(config: &Config, inputs: &Inputs<'_>, k_max: usize) -> TermRows {
    let Grouped { keys, offsets, ends, mut candidates, .. } = grouped(config, inputs);
    let n_groups = keys[0].len();
    let (threads, per_thread) = parts(n_groups);
    let items = Items { column: inputs.item, kind: config.item_kind };
    let reader = Reader { config, terms: Terms::new(config), ks: Vec::new(), limit_whole: false, k_max };
    let mut found: Vec<(Vec<(u32, u32)>, Vec<f64>)> = Vec::new();
    std::thread::scope(|scope| {
        let mut rest: &mut [Candidate] = &mut candidates;
        let mut consumed = 0usize;
        let mut handles = Vec::new();
        for part in 0..threads {
            let first = (part * per_thread).min(n_groups);
            let last = (first + per_thread).min(n_groups);
            let (mine, others) = std::mem::take(&mut rest).split_at_mut(offsets[last] - consumed);
            rest = others;
            consumed = offsets[last];
            let (items, offsets, ends, reader) = (&items, &offsets, &ends, &reader);
            handles.push(scope.spawn(move || {
                let mut out = (Vec::new(), Vec::new());
                let mut keys_scratch: Vec<u64> = Vec::new();
                let mut weights: Vec<Vec<f64>> = Vec::new();
                let base = offsets[first];
                for g in first..last {
                    let group = &mut mine[offsets[g] - base..ends[g] - base];
                    let len = rank_group(config, items, group, &mut keys_scratch);
                    reader.row_terms(g as u32, &group[..len], &mut weights, &mut out);
                }
                out
            }));
        }
        found = handles.into_iter().map(|h| h.join().unwrap_or_default()).collect();
    });
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for (r, v) in found {
        rows.extend(r);
        values.extend(v);
    }
    TermRows { keys, rows, values }
}

/// The item's identity as a number: its value, or a hash of its bytes (equal numbers are
/// then compared byte by byte).
#[inline]
pub(crate) fn item_key(items: &Items<'_>, item: u64) -> u64 {
    match items.kind {
        Kind::Integer => item,
        Kind::Text => hash_bytes(items.column.text_of(item)),
    }
}

/// Whether two of the group's candidates may be copies of one item (a cheap check on
/// numbers; a hash collision only sends the group through the full de-duplication).
fn may_repeat(items: &Items<'_>, group: &[Candidate], scratch: &mut Vec<u64>) -> bool {
    scratch.clear();
    scratch.extend(group.iter().map(|c| item_key(items, c.item)));
    scratch.sort_unstable();
    scratch.windows(2).any(|pair| pair[0] == pair[1])
}

/// A score as an unsigned number in the same order (higher score, larger number).
#[inline]
fn score_order(score: f64) -> u64 {
    let bits = score.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// De-duplicate the group's candidates and sort them in rank order, in place; returns how
/// many remain (the first ones).
/// Whether pre-labelled candidates are condensed after their copies pool their grades.
fn defers_condensing(config: &Config) -> bool {
    config.labelled && !config.one_group && !config.policy.keep_duplicates()
}

/// Pre-labelled candidates after de-duplication: the judged flag read off the pooled grade
/// (as the reference reads it), and unjudged ones removed under condensing; returns how many
/// remain (the first ones).
fn condensed(config: &Config, group: &mut [Candidate]) -> usize {
    let mut kept = 0usize;
    for i in 0..group.len() {
        let mut candidate = group[i];
        if config.judged == Judged::NonNegative {
            let grade = if candidate.grade.is_nan() { config.unjudged_grade } else { candidate.grade };
            candidate.extra = (candidate.extra & !1) | u64::from(grade >= 0.0);
        }
        let away = match config.judged {
            Judged::NonNegative => candidate.grade.is_nan() || candidate.grade < 0.0,
            _ => !candidate.judged(),
        };
        if config.condense && away {
            continue;
        }
        group[kept] = candidate;
        kept += 1;
    }
    kept
}

pub(crate) fn rank_group(
    config: &Config,
    items: &Items<'_>,
    group: &mut [Candidate],
    scratch: &mut Vec<u64>,
) -> usize {
    let mut len = group.len();
    if !config.policy.keep_duplicates() && len > 1 && may_repeat(items, group, scratch) {
        // The highest-scored copy of each item, the earliest such row; its label is the
        // highest among the copies.
        group.sort_unstable_by(|a, b| {
            items
                .cmp(a.item, b.item)
                .then(b.score.total_cmp(&a.score))
                .then(a.row().cmp(&b.row()))
        });
        let mut kept = 0usize;
        for i in 0..len {
            if kept > 0 && items.cmp(group[kept - 1].item, group[i].item) == Ordering::Equal {
                let copy = group[i];
                let best = &mut group[kept - 1];
                if !copy.grade.is_nan() && (best.grade.is_nan() || copy.grade > best.grade) {
                    best.grade = copy.grade;
                }
                best.extra |= copy.extra & 1;
            } else {
                group[kept] = group[i];
                kept += 1;
            }
        }
        len = kept;
    }
    if defers_condensing(config) {
        len = condensed(config, &mut group[..len]);
    }
    // By score first (a sort on numbers), then each run of equal scores by the tie policy.
    let ranked = &mut group[..len];
    ranked.sort_unstable_by_key(|c| std::cmp::Reverse(score_order(c.score)));
    let mut start = 0usize;
    while start < len {
        let mut end = start + 1;
        while end < len && ranked[end].score.total_cmp(&ranked[start].score) == Ordering::Equal {
            end += 1;
        }
        if end - start > 1 {
            ranked[start..end].sort_unstable_by(|a, b| rank_order(config, items, a, b));
        }
        start = end;
    }
    len
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
