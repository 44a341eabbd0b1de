//! The kernel alone on a generated workload (no Python, no Polars): the benchmark's shape
//! (users x candidates, ~2% tied scores, ~4 relevant per user, graded truth with two items
//! per user outside the candidates), rows grouped or in random order, the truth's rows after
//! the candidates' as `group_sums` receives them.
//!
//! ```text
//! cargo run --release --features testing --example kernel_bench -- [USERS] [PER_USER] [random|grouped] [REPEAT] [CHUNK_ROWS] [K,K,...]
//! cargo run --release --features testing --example kernel_bench -- 5000 1000 random 3 0 10   # 1,000 per group at K=10
//! POLARS_RANKK_NATIVE_TIMING=1 ... (the kernel's phases)
//! ```
//! The call is the one `rk.evaluate` sends for its eight default metrics at K (default
//! 1, 5, 10, 20, 50, 100; `testing::evaluate_call`).

use std::time::Instant;

use polars_rankk_native::columns::Values;
use polars_rankk_native::config::{from_call, Policy};
use polars_rankk_native::kernel::{compute, Inputs};
use polars_rankk_native::testing::{chunked, evaluate_call};

/// xorshift64*: a small, fixed-seed generator (the workload is the same on every run).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-300), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

struct Workload {
    user: Vec<i64>,
    item: Vec<i64>,
    score: Vec<f64>,
    grade: Vec<f64>,
}

fn workload(users: usize, per_user: usize, random_order: bool) -> Workload {
    let mut rng = Random(0x9e37_79b9_7f4a_7c15);
    let n = users * per_user;
    let mut rows: Vec<(i64, i64, f64, f64)> = Vec::with_capacity(n);
    let mut truth: Vec<(i64, i64, f64, f64)> = Vec::new();
    for u in 0..users as i64 {
        for c in 0..per_user as i64 {
            let item = (c * 7919 + u * 13) % 2_000_003;
            let relevant = rng.unit() < 4.0 / per_user as f64;
            let score = ((rng.normal() + if relevant { 1.2 } else { 0.0 }) * 100.0).round() / 100.0;
            rows.push((u, item, score, f64::NAN));
            if relevant {
                truth.push((u, item, f64::NAN, (1 + rng.next() % 3) as f64));
            }
        }
        for _ in 0..2 {
            let item = 3_000_000 + (rng.next() % 1_000_000) as i64;
            truth.push((u, item, f64::NAN, (1 + rng.next() % 3) as f64));
        }
    }
    if random_order {
        for i in (1..rows.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            rows.swap(i, j);
        }
    }
    rows.extend(truth);
    Workload {
        user: rows.iter().map(|r| r.0).collect(),
        item: rows.iter().map(|r| r.1).collect(),
        score: rows.iter().map(|r| r.2).collect(),
        grade: rows.iter().map(|r| r.3).collect(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let users: usize = arg(1, "50000").parse().expect("USERS");
    let per_user: usize = arg(2, "100").parse().expect("PER_USER");
    let order = arg(3, "random");
    let repeat: usize = arg(4, "3").parse().expect("REPEAT");
    let started = Instant::now();
    let data = workload(users, per_user, order == "random");
    let n = data.user.len();
    let chunk_rows: usize = match arg(5, "0").parse().expect("CHUNK_ROWS") {
        0 => n.max(1),
        rows => rows,
    };
    let ks: Vec<usize> = arg(6, "1,5,10,20,50,100").split(',').map(|k| k.parse().expect("K")).collect();
    eprintln!("{n} rows ({order}), generated in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
    let bounds: Vec<usize> = (0..n).step_by(chunk_rows.max(1)).chain([n]).collect();
    let ints = |v: &'static [i64]| bounds.windows(2).map(|w| Values::I64(&v[w[0]..w[1]])).collect::<Vec<_>>();
    let floats = |v: &'static [f64]| bounds.windows(2).map(|w| Values::F64(&v[w[0]..w[1]])).collect::<Vec<_>>();
    let data: &'static Workload = Box::leak(Box::new(data));
    let user = chunked("user", ints(&data.user));
    let item = chunked("item", ints(&data.item));
    let score = chunked("score", floats(&data.score));
    let grade = chunked("grade", floats(&data.grade));
    let config = from_call(&evaluate_call(&ks), Policy::default()).expect("configuration");
    let inputs = Inputs::new(vec![&user], &item, &score, &grade);
    let mut times = Vec::new();
    for _ in 0..repeat {
        let started = Instant::now();
        let groups = compute(&config, &inputs);
        times.push(started.elapsed().as_secs_f64() * 1e3);
        let checksum: f64 = groups.values.iter().sum();
        eprintln!("groups {} checksum {checksum:.6} in {:.1} ms", groups.keys[0].len(), times.last().unwrap_or(&0.0));
    }
    times.sort_by(f64::total_cmp);
    println!("{{\"rows\": {n}, \"order\": \"{order}\", \"median_ms\": {:.1}}}", times[times.len() / 2]);
}
