//! One group's ranking: the tie order, de-duplication of an item's copies and condensing.

use std::cmp::Ordering;

use crate::columns::Column;
use crate::config::{Config, Judged, Kind, Ties};

use super::hashing::{hash_bytes, mix};

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
    pub(crate) fn judged(&self) -> bool {
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
    /// A text item is named by its text up to the first occurrence of `cut` (empty: all of
    /// it): passages then stand for their documents.
    pub cut: &'a [u8],
}

/// `text` up to the first occurrence of `cut` (all of it when `cut` is empty or absent).
#[inline]
pub(crate) fn before<'t>(text: &'t [u8], cut: &[u8]) -> &'t [u8] {
    match cut {
        [] => text,
        [byte] => text.iter().position(|b| b == byte).map_or(text, |at| &text[..at]),
        _ => text.windows(cut.len()).position(|w| w == cut).map_or(text, |at| &text[..at]),
    }
}

impl Items<'_> {
    /// A text item's name: its bytes, up to `cut`.
    #[inline]
    pub(crate) fn text(&self, handle: u64) -> &[u8] {
        before(self.column.text_of(handle), self.cut)
    }

    /// Whether the items are strings (equal keys are then compared byte by byte).
    #[inline]
    pub(crate) fn is_text(&self) -> bool {
        self.kind == Kind::Text
    }

    /// The item's own order: integers by value, strings by bytes.
    #[inline]
    pub(crate) fn cmp(&self, a: u64, b: u64) -> Ordering {
        match self.kind {
            Kind::Integer => (a as i64).cmp(&(b as i64)),
            Kind::Text => {
                if a == b {
                    Ordering::Equal
                } else {
                    self.text(a).cmp(self.text(b))
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

pub(crate) fn rank_order(config: &Config, items: &Items<'_>, a: &Candidate, b: &Candidate) -> Ordering {
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

/// The item's identity as a number: its value, or a hash of its bytes (equal numbers are
/// then compared byte by byte).
#[inline]
pub(crate) fn item_key(items: &Items<'_>, item: u64) -> u64 {
    match items.kind {
        Kind::Integer => item,
        Kind::Text => hash_bytes(items.text(item)),
    }
}

/// Whether two of the group's candidates may be copies of one item (a cheap check on
/// numbers, a small open-addressing set; a hash collision only sends the group through the
/// full de-duplication).
fn may_repeat(items: &Items<'_>, group: &[Candidate], scratch: &mut Vec<u64>) -> bool {
    let size = (group.len() * 2).next_power_of_two().max(16);
    scratch.clear();
    scratch.resize(size, u64::MAX);
    let mask = size - 1;
    for candidate in group {
        let key = item_key(items, candidate.item);
        // u64::MAX marks an empty slot: a key of that value is kept as u64::MAX - 1, which
        // at worst reports a repeat that the full de-duplication then does not find.
        let key = key.min(u64::MAX - 1);
        let mut slot = (mix(key) as usize) & mask;
        loop {
            let found = scratch[slot];
            if found == u64::MAX {
                scratch[slot] = key;
                break;
            }
            if found == key {
                return true;
            }
            slot = (slot + 1) & mask;
        }
    }
    false
}

/// A score as an unsigned number in the same order (higher score, larger number).
#[inline]
pub(crate) fn score_order(score: f64) -> u64 {
    let bits = score.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// A thread's scratch for `rank_group`, reused from group to group.
#[derive(Default)]
pub(crate) struct RankScratch {
    keys: Vec<u64>,
    order: Vec<u128>,
    copy: Vec<Candidate>,
}

/// Sort `ranked` by score, highest first (equal scores in their present order): each
/// score's sort key is computed once, and the numbers sorted, not the candidates.
fn sort_by_score(ranked: &mut [Candidate], scratch: &mut RankScratch) {
    scratch.order.clear();
    scratch.order.extend(
        ranked.iter().enumerate().map(|(i, c)| (u128::from(!score_order(c.score)) << 64) | i as u128),
    );
    scratch.order.sort_unstable();
    scratch.copy.clear();
    scratch.copy.extend_from_slice(ranked);
    for (slot, key) in ranked.iter_mut().zip(&scratch.order) {
        *slot = scratch.copy[(*key as u64) as usize];
    }
}

/// Whether pre-labelled candidates are condensed after their copies pool their grades.
pub(super) fn defers_condensing(config: &Config) -> bool {
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

/// Lists at least this many times longer than the ranks read are selected before sorting
/// (below it a full sort of the few others costs about what the selection saves).
const SELECT_FROM: usize = 4;

/// Move the `top` highest-scored candidates of `ranked` first, with every candidate tied with
/// the `top`-th (its whole tie block); returns how many were moved (their order is not set).
fn select_top(ranked: &mut [Candidate], top: usize) -> usize {
    let (_, pivot, _) = ranked.select_nth_unstable_by(top - 1, |a, b| b.score.total_cmp(&a.score));
    let boundary = pivot.score;
    let mut kept = top;
    for i in top..ranked.len() {
        if ranked[i].score.total_cmp(&boundary) == Ordering::Equal {
            ranked.swap(kept, i);
            kept += 1;
        }
    }
    kept
}

/// Whether the ranking may select its first ranks before sorting them: the tie order is a
/// total order of the candidates (an item and an input row tell any two apart), so that the
/// order the selection leaves them in is never read.
fn may_select(config: &Config) -> bool {
    config.has_row || (config.policy.ties != Ties::InputOrder && !config.policy.keep_duplicates())
}

/// The highest-scored copy of each item (the earliest row among equal scores) stands for it,
/// with the highest grade among its copies and judged where any copy is.
#[inline]
fn absorb(best: &mut Candidate, copy: Candidate) {
    let grade = if copy.grade.is_nan() || (!best.grade.is_nan() && best.grade >= copy.grade) { best.grade } else { copy.grade };
    let judged = (best.extra | copy.extra) & 1;
    let better = match copy.score.total_cmp(&best.score) {
        Ordering::Greater => true,
        Ordering::Equal => copy.row() < best.row(),
        Ordering::Less => false,
    };
    if better {
        *best = copy;
    }
    best.grade = grade;
    best.extra = (best.extra & !1) | judged;
}

/// Integer items de-duplicated: sorted by item, each run of copies absorbed into its first;
/// returns how many remain (the first ones).
fn dedup_sorted(items: &Items<'_>, group: &mut [Candidate]) -> usize {
    group.sort_unstable_by(|a, b| {
        items.cmp(a.item, b.item).then(b.score.total_cmp(&a.score)).then(a.row().cmp(&b.row()))
    });
    let mut kept = 0usize;
    for i in 0..group.len() {
        if kept > 0 && items.cmp(group[kept - 1].item, group[i].item) == Ordering::Equal {
            let copy = group[i];
            absorb(&mut group[kept - 1], copy);
        } else {
            group[kept] = group[i];
            kept += 1;
        }
    }
    kept
}

/// Text items de-duplicated in one pass over a small open-addressing table keyed by each
/// item's hash (computed once per candidate: a passage read up to its cut once), the text
/// compared only where hashes are equal; the kept candidates stay in order of first sight
/// (the ranking then orders them); returns how many remain (the first ones).
fn dedup_text(items: &Items<'_>, group: &mut [Candidate], scratch: &mut RankScratch) -> usize {
    let size = (group.len() * 2).next_power_of_two().max(16);
    let mask = size - 1;
    // slot -> (hash, kept index + 1; 0: empty), in one u128 per slot.
    let table = &mut scratch.order;
    table.clear();
    table.resize(size, 0);
    let mut kept = 0usize;
    for i in 0..group.len() {
        let copy = group[i];
        let hash = item_key(items, copy.item);
        let mut slot = (mix(hash) as usize) & mask;
        loop {
            let entry = table[slot];
            let at = (entry as u64) as usize;
            if at == 0 {
                table[slot] = (u128::from(hash) << 64) | (kept + 1) as u128;
                group[kept] = copy;
                kept += 1;
                break;
            }
            if (entry >> 64) as u64 == hash && items.cmp(group[at - 1].item, copy.item) == Ordering::Equal {
                absorb(&mut group[at - 1], copy);
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    kept
}

/// De-duplicate the group's candidates and sort them in rank order, in place; returns how
/// many remain (the first ones) and how many of those are in rank order: all of them, or,
/// when only the first `top` ranks are read (`Reader::ranks_read`) of a list several times
/// longer, those ranks and the rest of the last one's tie block (a partial selection, then a
/// sort of the selected: the rest of the list is never sorted).
pub(crate) fn rank_group(
    config: &Config,
    items: &Items<'_>,
    group: &mut [Candidate],
    scratch: &mut RankScratch,
    top: Option<usize>,
) -> (usize, usize) {
    let mut len = group.len();
    if !config.policy.keep_duplicates() && len > 1 {
        if items.is_text() {
            len = dedup_text(items, group, scratch);
        } else if may_repeat(items, group, &mut scratch.keys) {
            len = dedup_sorted(items, group);
        }
    }
    if defers_condensing(config) {
        len = condensed(config, &mut group[..len]);
    }
    let sorted = match top {
        Some(top) if top > 0 && top.saturating_mul(SELECT_FROM) <= len && may_select(config) => {
            select_top(&mut group[..len], top)
        }
        _ => len,
    };
    sort_ranked(config, items, &mut group[..sorted], scratch);
    (len, sorted)
}

/// Sort `ranked` (de-duplicated) in rank order: by score first (a sort on numbers), then
/// each run of equal scores by the tie policy.
pub(crate) fn sort_ranked(config: &Config, items: &Items<'_>, ranked: &mut [Candidate], scratch: &mut RankScratch) {
    sort_by_score(ranked, scratch);
    let sorted = ranked.len();
    let mut start = 0usize;
    while start < sorted {
        let mut end = start + 1;
        while end < sorted && ranked[end].score.total_cmp(&ranked[start].score) == Ordering::Equal {
            end += 1;
        }
        if end - start > 1 {
            ranked[start..end].sort_unstable_by(|a, b| rank_order(config, items, a, b));
        }
        start = end;
    }
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
