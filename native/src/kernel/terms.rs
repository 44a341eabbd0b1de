//! The declared terms of one ranked group: each linear term's labels and weights and the three
//! named terms, summed deterministically or as their expectation over a tie block, and read at
//! every cut-off.

use std::cmp::Ordering;

use crate::config::{Config, Gain, Label, NonrelevantGain, Output, RbpGrades, Stat, Ties, Token, N_LABELS};

use super::rank::{effective_grade, Candidate};

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

pub(super) fn rbp_label(grade: f64, config: &Config) -> f64 {
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

/// The C/W/L gain of a grade: min(max(grade, 0), M) / M, M = `Policy.cwl_max_grade` (an
/// unjudged row ranked at -inf reads grade 0, as `RankedRows.cwl_gain`).
pub(super) fn cwl_label(grade: f64, config: &Config) -> f64 {
    let top = config.policy.cwl_max_grade;
    grade_label(grade).clamp(0.0, top) / top
}

/// The grade as a term reads it: 0 for an unjudged row ranked at -inf.
#[inline]
pub(super) fn grade_label(grade: f64) -> f64 {
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
    pub(super) precision: Option<usize>,
    err: Option<usize>,
    bpref: Option<usize>,
    pub(super) n_stats: usize,
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

    /// Whether each term is one piece (or the precision sum): a row's value of a term is then
    /// exactly what its running sum adds.
    pub(super) fn one_piece_per_term(&self) -> bool {
        let mut slots: Vec<usize> = self.pieces.iter().map(|p| p.0).collect();
        let n = slots.len();
        slots.sort_unstable();
        slots.dedup();
        slots.len() == n && self.err.is_none() && self.bpref.is_none()
    }

    /// Whether the reader walks every row whatever its terms (ERR's and bpref's walks): then
    /// no row is passed over as silent.
    pub(super) fn walks_every_row(&self) -> bool {
        self.err.is_some() || self.bpref.is_some()
    }

    /// Whether a row without a grade (unjudged; `judged` as flagged) adds nothing to any
    /// term at ranks 1..=n (`table` grown to n): not relevant, every piece's label 0 for it
    /// and its weight finite (and not 0 where it divides), so each piece adds a signed zero,
    /// which leaves a running sum (never -0.0: it starts at +0.0) as it was, bit for bit.
    pub(super) fn adds_nothing_unjudged(&self, config: &Config, judged: bool, table: &[Vec<f64>], n: usize) -> bool {
        let grade = effective_grade(f64::NAN, config);
        if grade >= config.policy.relevance_threshold {
            return false;
        }
        let mut labels = [0.0f64; N_LABELS];
        labels[Label::One as usize] = 1.0;
        self.label_row(&mut labels, grade, false, judged, config);
        self.pieces.iter().all(|&(_, label, divide, weight)| {
            labels[label as usize] == 0.0
                && weight.map_or(true, |w| table[w][..n].iter().all(|v| v.is_finite() && (!divide || *v != 0.0)))
        })
    }

    /// Each weight at ranks 1..=n (`table[w][rank - 1]`), grown on demand.
    pub(super) fn extend(&self, table: &mut Vec<Vec<f64>>, n: usize) {
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
    /// The labels of one ranked row (its effective `grade`): relevance, first relevance and
    /// judged always, the grade-valued ones only where a declared term reads them.
    pub(super) fn label_row(&self, labels: &mut [f64; N_LABELS], grade: f64, first: bool, judged: bool, config: &Config) {
        let relevant = grade >= config.policy.relevance_threshold;
        labels[Label::Relevant as usize] = f64::from(u8::from(relevant));
        labels[Label::FirstRelevant as usize] = f64::from(u8::from(first));
        labels[Label::Judged as usize] = f64::from(u8::from(judged));
        if self.labels[Label::Grade as usize] {
            labels[Label::Grade as usize] = grade_label(grade);
        }
        if self.labels[Label::Gain as usize] {
            labels[Label::Gain as usize] = gain_of(grade, config);
        }
        if self.labels[Label::RbpGain as usize] {
            labels[Label::RbpGain as usize] = rbp_label(grade, config);
        }
        if self.labels[Label::CwlGain as usize] {
            labels[Label::CwlGain as usize] = cwl_label(grade, config);
        }
    }

    pub(super) fn add(&self, sums: &mut [f64], labels: &[f64; N_LABELS], rank: usize, table: &[Vec<f64>]) {
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
    /// Hits within the first R ranks are read (R past the largest cut-off).
    pub hits_at_r: bool,
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
    /// Ranks checked, and whether an unjudged row (not judged, judged) adds to no sum within
    /// them (`Reader::silent_rows`).
    silent: (usize, [bool; 2]),
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
            Output::Key(_)
            | Output::NRelevant
            | Output::NNonrelevant
            | Output::IdealDcg(_)
            | Output::ConstantScores
            | Output::RelevantRows
            | Output::MatchedRelevant
            | Output::TieAt(_)
            | Output::Places(_) => 0.0,
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
            silent: (0, [false; 2]),
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
            hits_at_r: config.reads_hits_at_r(),
            k_max: config.k_max(),
        }
    }

    /// How many of a group's first ranks the outputs read (None: every rank): the largest
    /// cut-off, and R (`n_relevant`) where hits within R are read. The ranking needs no order
    /// past them (`rank_group`'s partial selection).
    pub(crate) fn ranks_read(&self, n_relevant: f64) -> Option<usize> {
        if self.limit_whole {
            return None;
        }
        let r_cut = if self.hits_at_r && n_relevant > 0.0 { n_relevant as usize } else { 0 };
        Some(self.k_max.max(r_cut))
    }

    /// Read a ranked group: `ranked` its first candidates in rank order (at least
    /// `ranks_read` of them, or all), `n` its length.
    pub(crate) fn read(&self, ranked: &[Candidate], n: usize, n_relevant: f64, n_nonrelevant: f64, out: &mut GroupResult) {
        let config = self.config;
        let limit = self.ranks_read(n_relevant).map_or(n, |top| n.min(top));
        debug_assert!(ranked.len() >= limit);
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
            let silent = self.silent_rows(&mut out.silent, &weights, limit);
            self.deterministic(ranked, limit, n_relevant, n_nonrelevant, silent, &mut sums, &weights, &mut recorder, out)
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

    /// Whether an unjudged row (not judged, judged) adds to no sum within the first `limit`
    /// ranks, so that `deterministic` passes it over (most rows of a long list): its terms'
    /// labels are 0 and their weights finite (non-zero where divided by), and no ERR or bpref
    /// walk reads it. Checked once per thread for the longest list so far (`known`): what
    /// holds within more ranks holds within fewer.
    fn silent_rows(&self, known: &mut (usize, [bool; 2]), weights: &[Vec<f64>], limit: usize) -> [bool; 2] {
        if self.terms.err.is_some() || self.terms.bpref.is_some() {
            return [false; 2];
        }
        if limit > known.0 {
            let silent = [false, true].map(|judged| self.terms.adds_nothing_unjudged(self.config, judged, weights, limit));
            *known = (limit, silent);
        }
        known.1
    }

    #[allow(clippy::too_many_arguments)]
    fn deterministic(
        &self,
        ranked: &[Candidate],
        limit: usize,
        n_relevant: f64,
        n_nonrelevant: f64,
        silent: [bool; 2],
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
            let judged = candidate.judged();
            if candidate.grade.is_nan() && silent[usize::from(judged)] {
                // Adds 0 to every sum (the sums read as if it had added them): only its rank.
                recorder.record(rank, sums, hits as f64, &mut out.at_k, &mut out.hits_at_r);
                continue;
            }
            let grade = effective_grade(candidate.grade, config);
            let relevant = grade >= config.policy.relevance_threshold;
            if relevant {
                hits += 1;
            }
            if !terms.pieces.is_empty() {
                terms.label_row(&mut labels, grade, relevant && hits == 1, judged, config);
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
                    (Label::CwlGain, cwl_label(grade, config)),
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
            labels[Label::CwlGain as usize] = block_total(Label::CwlGain) / m;
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
