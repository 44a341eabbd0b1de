//! The grouping holds whatever the rows' order: the same sums per group, groups in order of
//! their first candidate row, on both partitioning paths (the rows themselves with one key
//! column; row numbers with two), over several partitions (36,000 candidate rows).

use crate::columns::{Chunk, Column, Values};
use crate::config::{from_call, Call, Judged, Kind, Label, OutputSpec, OutputValue, PieceSpec, Policy, TermSpec, TokenSpec};

use super::{compute, Inputs};

const N_USERS: usize = 3000;
const N_ROWS: usize = N_USERS * 12;

struct Rows {
    user: Vec<i64>,
    other: Vec<i64>,
    item: Vec<i64>,
    score: Vec<f64>,
    grade: Vec<f64>,
}

/// 3,000 users x 12 candidates with tied scores, in `order` (a permutation of the candidates),
/// then each user's truth rows.
fn rows(order: &[usize]) -> Rows {
    let candidates: Vec<(i64, i64, f64)> =
        (0..N_ROWS).map(|i| ((i / 12) as i64, ((i * 7) % 30) as i64, ((i * 13) % 5) as f64 / 4.0)).collect();
    let mut out = Rows { user: Vec::new(), other: Vec::new(), item: Vec::new(), score: Vec::new(), grade: Vec::new() };
    for &i in order {
        let (user, item, score) = candidates[i];
        out.user.push(user);
        out.other.push(user % 7);
        out.item.push(item);
        out.score.push(score);
        out.grade.push(f64::NAN);
    }
    for user in 0..=N_USERS as i64 {
        for item in [0i64, 7, 14, 3] {
            out.user.push(user);
            out.other.push(user % 7);
            out.item.push(item);
            out.score.push(f64::NAN);
            out.grade.push(((user + item) % 4) as f64);
        }
    }
    out
}

fn column<'a>(name: &str, values: Values<'a>, len: usize) -> Column<'a> {
    Column { name: name.to_string(), chunks: vec![Chunk { len, values, validity: None }] }
}

fn call(keys: usize) -> Call {
    let word = |w: &str| TokenSpec::Word(w.to_string());
    let dcg = PieceSpec { label: Label::Gain, divide: true, weight: vec![word("r"), TokenSpec::Number(1.0), word("+"), word("log2")] };
    let mut outputs: Vec<OutputSpec> = (0..keys)
        .map(|k| OutputSpec { column: format!("key{k}"), value: OutputValue::Key, k, term: None })
        .collect();
    outputs.push(OutputSpec { column: "hits_at_r".to_string(), value: OutputValue::HitsAtR, k: 0, term: None });
    for k in [1, 3, 10] {
        outputs.push(OutputSpec { column: format!("dcg@{k}"), value: OutputValue::Sum, k, term: Some("dcg".to_string()) });
        outputs.push(OutputSpec { column: format!("ap@{k}"), value: OutputValue::Sum, k, term: Some("precision_sum".to_string()) });
    }
    Call {
        keys: vec![Kind::Integer; keys],
        item: Kind::Integer,
        score_name: "score".to_string(),
        unjudged_grade: 0.0,
        may_add: Vec::new(),
        null_order_grade: 0.0,
        condense: false,
        judged: Judged::Unused,
        positive_only: true,
        labelled: false,
        negative_unjudged: false,
        row: false,
        truth: true,
        counts: 0,
        one_group: false,
        has_item: true,
        has_extra: false,
        pool_restrict: false,
        terms: vec![TermSpec { name: "dcg".to_string(), pieces: vec![dcg] }],
        outputs,
    }
}

/// Each group's key and sums, in output order.
fn sums(order: &[usize], keys: usize) -> Vec<(i64, Vec<f64>)> {
    let data = rows(order);
    let n = data.user.len();
    let user = column("user", Values::I64(&data.user), n);
    let other = column("other", Values::I64(&data.other), n);
    let item = column("item", Values::I64(&data.item), n);
    let score = column("score", Values::F64(&data.score), n);
    let grade = column("grade", Values::F64(&data.grade), n);
    let config = from_call(&call(keys), Policy::default()).unwrap();
    let key_columns = if keys == 1 { vec![&user] } else { vec![&user, &other] };
    let inputs = Inputs { keys: key_columns, item: &item, score: &score, grade: &grade, judged: None, row: None, n_relevant: None, n_nonrelevant: None };
    let groups = compute(&config, &inputs);
    let n_outputs = config.outputs.len();
    (0..groups.keys[0].len())
        .map(|g| (groups.keys[0][g] as i64, groups.values[g * n_outputs..(g + 1) * n_outputs].to_vec()))
        .collect()
}

#[test]
fn any_row_order_gives_the_same_sums_in_order_of_first_appearance() {
    let grouped: Vec<usize> = (0..N_ROWS).collect();
    let mut shuffled = grouped.clone();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in (1..shuffled.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        shuffled.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let reversed: Vec<usize> = grouped.iter().rev().copied().collect();
    for keys in [1, 2] {
        let expected = sums(&grouped, keys);
        assert_eq!(expected.len(), N_USERS, "the last user has only truth rows");
        assert!(expected.iter().enumerate().all(|(g, (user, _))| *user == g as i64));
        for order in [&shuffled, &reversed] {
            let found = sums(order, keys);
            // Groups in order of their first candidate row...
            let mut seen = vec![false; N_USERS];
            let mut first_seen = Vec::new();
            for &i in order.iter() {
                if !std::mem::replace(&mut seen[i / 12], true) {
                    first_seen.push((i / 12) as i64);
                }
            }
            assert_eq!(found.iter().map(|(user, _)| *user).collect::<Vec<_>>(), first_seen);
            // ...with bit-identical sums.
            let mut found = found;
            found.sort_by_key(|(user, _)| *user);
            for ((_, a), (_, b)) in found.iter().zip(&expected) {
                assert_eq!(a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), b.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
            }
        }
    }
}
