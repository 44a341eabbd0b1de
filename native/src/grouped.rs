//! The rows of many groups in one call, one group after another, as an elementwise plugin sees
//! them inside ``group_by().agg()`` or ``.over()`` (`grouped_metric_sums`): each row's position
//! in its group marks where groups start; each group is one group's rows (`group`), the groups
//! split across the threads.
//!
//! The metric expressions of one ``agg()`` are evaluated by Polars one by one, each gathering
//! the same rows by group and calling the kernel with the same configuration (the statistics
//! of the common metrics; each expression keeps the ones its formula reads: `returned`). The
//! last call's rows and sums are kept: a call whose configuration and rows are exactly those
//! (every value compared, bit for bit) reads the sums instead of ranking the groups again.
//! Only integer item ids are compared (a string column's handles are positions, not text), and
//! only calls of up to `KEEP_AT_MOST` rows are kept.

use std::sync::{Arc, Mutex};

use crate::columns::Column;
use crate::config::Config;
use crate::group::{check_scores, is_null, rows_sums, GroupInputs, GroupRows};
use crate::kernel::{count, threads, Items, RankScratch, Reader};

/// The inputs of one call: each row's position in its group, then one group's columns.
pub struct GroupedInputs<'a> {
    pub starts: &'a Column<'a>,
    pub group: GroupInputs<'a>,
}

/// The rows of every group, read out of their columns once: what a group's sums depend on.
#[derive(Default)]
struct Rows {
    /// Where each group starts, and the number of rows last.
    bounds: Vec<usize>,
    scores: Vec<f64>,
    given: Vec<f64>,
    handles: Vec<u64>,
    /// Each group's missed items' grades (its first non-null list), one group after another,
    /// and each group's span of them (None: every list of the group is null).
    extra: Option<(Vec<f64>, Vec<Option<(usize, usize)>>)>,
    /// Each group's declared R_g: the largest non-null value of its rows (NaN: none).
    declared: Option<Vec<f64>>,
}

fn same_floats(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl Rows {
    fn read(inputs: &GroupedInputs<'_>) -> Rows {
        let group = &inputs.group;
        let n = group.score.len();
        let mut bounds: Vec<usize> = Vec::new();
        for (row, at) in inputs.starts.integers_vec().into_iter().enumerate() {
            if at == 0 || row == 0 {
                bounds.push(row);
            }
        }
        bounds.push(n);
        let mut scores = group.score.floats_vec();
        for score in &mut scores {
            *score += 0.0; // -0.0 ranks as 0.0
        }
        let handles = match group.item {
            Some(column) if column.is_integer() => column.integers_vec().into_iter().map(|v| v as u64).collect(),
            Some(column) => column.handles().collect(),
            None => (0..n as u64).collect(),
        };
        let declared = group.n_relevant.map(|column| {
            let values = column.floats_vec();
            bounds
                .windows(2)
                .map(|w| values[w[0]..w[1]].iter().copied().filter(|v| !v.is_nan()).fold(f64::NAN, f64::max))
                .collect()
        });
        Rows {
            extra: group.extra.map(|column| column.first_float_lists(&bounds)),
            bounds,
            scores,
            given: group.grade.floats_vec(),
            handles,
            declared,
        }
    }

    /// The same rows, value for value (NaN and null as the same bits).
    fn same(&self, other: &Rows) -> bool {
        self.bounds == other.bounds
            && same_floats(&self.scores, &other.scores)
            && same_floats(&self.given, &other.given)
            && self.handles == other.handles
            && match (&self.extra, &other.extra) {
                (Some((a, sa)), Some((b, sb))) => sa == sb && same_floats(a, b),
                (None, None) => true,
                _ => false,
            }
            && match (&self.declared, &other.declared) {
                (Some(a), Some(b)) => same_floats(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// Every group's outputs (`n_groups * outputs`, in the configured order) and whether the
/// truth knows it (0: every row's `unretrieved` list, or every declared R_g, is null).
struct Sums {
    values: Vec<f64>,
    known: Vec<f64>,
}

/// The last call's configuration (its `Debug` text, `returned` left out), rows and sums.
struct Kept {
    config: String,
    rows: Rows,
    sums: Arc<Sums>,
}

/// The most rows a kept call holds (about 100 MB of them): a larger call is not kept, so that
/// the memory stays bounded after the query.
const KEEP_AT_MOST: usize = 4_000_000;

/// The last call kept; held while a call computes, so that the calls of one ``agg()`` that
/// Polars runs side by side wait for the first instead of ranking the same groups again.
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

/// The call's outputs: those `returned` names (all, when it names none), each group's values on
/// its group's first row (0 on its other rows, which ``.first()`` never reads), and the
/// groups the truth knows, in the same layout. The first error, in row order, is the call's.
pub fn grouped_sums(
    config: &Config,
    score_name: &str,
    inputs: &GroupedInputs<'_>,
) -> Result<(Vec<(String, Vec<f64>)>, Vec<f64>), String> {
    let rows = Rows::read(inputs);
    let bounds = rows.bounds.clone();
    let key = {
        let mut keyed = config.clone();
        keyed.returned.clear();
        format!("{keyed:?}")
    };
    let sums = if inputs.group.item.map_or(true, Column::is_integer) && rows.scores.len() <= KEEP_AT_MOST {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match kept.as_ref() {
            Some(last) if last.config == key && last.rows.same(&rows) => {
                count("groups read from the last call's sums", bounds.len() - 1);
                Arc::clone(&last.sums)
            }
            _ => {
                let sums = Arc::new(compute(config, score_name, inputs, &rows)?);
                *kept = Some(Kept { config: key, rows, sums: Arc::clone(&sums) });
                sums
            }
        }
    } else {
        // Not kept: nor is an earlier call's rows, which this one would not read.
        *KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        Arc::new(compute(config, score_name, inputs, &rows)?)
    };
    Ok(laid_out(config, &bounds, &sums))
}

/// Each group ranked and read (`rows_sums`), the groups split across the threads.
fn compute(config: &Config, score_name: &str, inputs: &GroupedInputs<'_>, rows: &Rows) -> Result<Sums, String> {
    let group = &inputs.group;
    let bounds = &rows.bounds;
    let n_groups = bounds.len() - 1;
    let n_outputs = config.outputs.len();
    let items = Items { column: group.item.unwrap_or(group.score), kind: group.item_kind, cut: &[] };
    let mut values = vec![0.0f64; n_groups * n_outputs];
    let mut known = vec![1.0f64; n_groups];
    let one = |g: usize, out: &mut [f64], scratch: &mut RankScratch, reader: &Reader<'_>| -> Result<f64, String> {
        let (start, end) = (bounds[g], bounds[g + 1]);
        // The group's missed items: its first non-null list (None: every list is null).
        let extra = rows.extra.as_ref().map(|(values, spans)| spans[g].map(|(a, b)| &values[a..b]));
        let declared = rows.declared.as_ref().map(|d| d[g]);
        let is_known = match (extra, declared) {
            (Some(list), _) => list.is_some(),
            (None, Some(value)) => !value.is_nan(),
            (None, None) => true,
        };
        let group_rows = GroupRows {
            scores: &rows.scores[start..end],
            given: &rows.given[start..end],
            handles: &rows.handles[start..end],
            has_item: group.item.is_some(),
            extra: extra.map(|list| list.unwrap_or(&[])),
            declared,
        };
        check_scores(config, score_name, &group_rows, group.item, |at| is_null(group.score, start + at))?;
        out.copy_from_slice(&rows_sums(config, &items, &group_rows, reader, scratch));
        Ok(if is_known { 1.0 } else { 0.0 })
    };
    count("groups ranked", n_groups);
    let per_thread = n_groups.div_ceil(threads().min(n_groups.max(1)).max(1)).max(1);
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let parts: Vec<_> = values
            .chunks_mut(per_thread * n_outputs.max(1))
            .zip(known.chunks_mut(per_thread))
            .enumerate()
            .map(|(part, (out, known))| {
                let one = &one;
                scope.spawn(move || {
                    let reader = Reader::for_outputs(config);
                    let mut scratch = RankScratch::default();
                    for (i, flag) in known.iter_mut().enumerate() {
                        let row = &mut out[i * n_outputs..(i + 1) * n_outputs];
                        *flag = one(part * per_thread + i, row, &mut scratch, &reader)?;
                    }
                    Ok(())
                })
            })
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or_else(|_| Err("the rankk kernel panicked".to_string()))).collect()
    });
    for result in results {
        result?;
    }
    Ok(Sums { values, known })
}

/// The outputs `config.returned` names (all, when it names none), each group's value on its
/// first row, and the known flags laid out the same way.
fn laid_out(config: &Config, bounds: &[usize], sums: &Sums) -> (Vec<(String, Vec<f64>)>, Vec<f64>) {
    let n = bounds.last().copied().unwrap_or(0);
    let n_outputs = config.outputs.len();
    let firsts = &bounds[..bounds.len() - 1];
    let column = |read: &dyn Fn(usize) -> f64| {
        let mut out = vec![0.0f64; n];
        for (g, &row) in firsts.iter().enumerate() {
            if row < n {
                out[row] = read(g);
            }
        }
        out
    };
    let outputs = config
        .outputs
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| config.returned.is_empty() || config.returned.contains(name))
        .map(|(j, (name, _))| (name.clone(), column(&|g| sums.values[g * n_outputs + j])))
        .collect();
    (outputs, column(&|g| sums.known[g]))
}
