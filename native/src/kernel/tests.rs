//! The grouping holds whatever the rows' order: the same sums per group, groups in order of
//! their first candidate row, on rows taken as grouped (in order, reversed) and on both
//! partitioning paths (the rows themselves with one key column; row numbers with two), over
//! several partitions (36,000 candidate rows), and on rows grouped but for one.

use crate::columns::Values;
use crate::config::{from_call, Call, Gain, Kind, OutputValue, Policy};
use crate::kernel::{compute, Inputs};
use crate::testing::{column, dcg_piece, key, sum, term, value};

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

fn call(keys: usize) -> Call {
    let mut outputs: Vec<_> = (0..keys).map(|k| key(&format!("key{k}"), k)).collect();
    outputs.push(value("hits_at_r", OutputValue::HitsAtR));
    for k in [1, 3, 10] {
        outputs.push(sum(&format!("dcg@{k}"), "dcg", k));
        outputs.push(sum(&format!("ap@{k}"), "precision_sum", k));
    }
    let terms = vec![term("dcg", vec![dcg_piece()])];
    Call { keys: vec![Kind::Integer; keys], positive_only: true, truth: true, terms, outputs, ..Call::default() }
}

/// Each group's key and sums, in output order.
fn sums(order: &[usize], keys: usize) -> Vec<(i64, Vec<f64>)> {
    let data = rows(order);
    let user = column("user", Values::I64(&data.user));
    let other = column("other", Values::I64(&data.other));
    let item = column("item", Values::I64(&data.item));
    let score = column("score", Values::F64(&data.score));
    let grade = column("grade", Values::F64(&data.grade));
    let config = from_call(&call(keys), Policy::default()).unwrap();
    let key_columns = if keys == 1 { vec![&user] } else { vec![&user, &other] };
    let inputs = Inputs::new(key_columns, &item, &score, &grade);
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
    // Grouped but for one row of the first group, moved to the end: two runs of one key.
    let mut split = grouped[1..].to_vec();
    split.push(0);
    for keys in [1, 2] {
        let expected = sums(&grouped, keys);
        assert_eq!(expected.len(), N_USERS, "the last user has only truth rows");
        assert!(expected.iter().enumerate().all(|(g, (user, _))| *user == g as i64));
        for order in [&shuffled, &reversed, &split] {
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

/// A label configuration (another threshold and gain) read from the call's one ranking gives,
/// bit for bit, its own call's sums (R counted at its threshold, hits within R, its terms),
/// beside the call's own, unchanged: on rows taken as grouped and on the partitioning path.
#[test]
fn a_label_policy_reads_its_own_calls_sums_from_the_one_ranking() {
    let grouped: Vec<usize> = (0..N_ROWS).collect();
    let reversed: Vec<usize> = grouped.iter().rev().copied().collect();
    let other = Policy { relevance_threshold: 2.0, gain: Gain::Exponential, ..Policy::default() };
    let mut label_call = call(1);
    label_call.outputs.retain(|output| output.value != OutputValue::Key);
    let mut shared = from_call(&call(1), Policy::default()).unwrap();
    shared.labels.push(from_call(&label_call, other.clone()).unwrap());
    let (own, alone) = (from_call(&call(1), Policy::default()).unwrap(), from_call(&call(1), other).unwrap());
    let (n_own, n_all) = (own.outputs.len(), shared.all_outputs().count());
    for order in [&grouped, &reversed] {
        let data = rows(order);
        let user = column("user", Values::I64(&data.user));
        let item = column("item", Values::I64(&data.item));
        let score = column("score", Values::F64(&data.score));
        let grade = column("grade", Values::F64(&data.grade));
        let inputs = Inputs::new(vec![&user], &item, &score, &grade);
        let (both, mine, theirs) = (compute(&shared, &inputs), compute(&own, &inputs), compute(&alone, &inputs));
        assert_eq!(both.keys, mine.keys);
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let mut differs = false;
        for g in 0..both.keys[0].len() {
            let row = &both.values[g * n_all..(g + 1) * n_all];
            assert_eq!(bits(&row[..n_own]), bits(&mine.values[g * n_own..(g + 1) * n_own]));
            // The label's outputs are its own call's but the key.
            let label = &theirs.values[g * n_own + 1..(g + 1) * n_own];
            assert_eq!(bits(&row[n_own..]), bits(label));
            differs |= row[n_own..] != row[1..n_own];
        }
        assert!(differs, "the label policy reads other numbers");
    }
}
