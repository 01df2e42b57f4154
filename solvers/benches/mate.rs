//! Mate solver against the reference solver's CPU times.
//!
//! `cargo bench -p solvers --bench mate [-- all|stretch|intelligent] [--only ID,ID..] [--budget SECONDS] [--threads N]`
//!
//! By default runs every corpus row the reference needs more than 0.1 s for;
//! `all` runs every row, `stretch` the three problems beyond the reference,
//! `intelligent` the helpmates the reference solved only in its intelligent
//! mode; `--only` picks rows by id.
//! Prints cookd's time, the reference's, their ratio (ref / cookd: above 1 is
//! faster than the reference), nodes and whether the result matches.
//! One thread by default, as the reference's figures are single-threaded.

use std::time::{Duration, Instant};

use shakmaty::{fen::Fen, CastlingMode, Chess};
use solvers::mate::{Found, Solver};
use solvers::Stipulation;

#[path = "../tests/common/mod.rs"]
mod common;
use common::split_csv;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = if args.iter().any(|a| a == "all") {
        "all"
    } else if args.iter().any(|a| a == "stretch") {
        "stretch"
    } else if args.iter().any(|a| a == "intelligent") {
        "intelligent"
    } else {
        "slow"
    };
    let budget = args
        .iter()
        .position(|a| a == "--budget")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(60), Duration::from_secs_f64);
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(String::from).collect());
    let threads = args
        .iter()
        .position(|a| a == "--threads")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    println!("{threads} thread(s), budget {budget:?} per problem");
    let file = if mode == "stretch" {
        "mate-stretch.csv"
    } else {
        "mate.csv"
    };
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("corpus");
    let mut lines = text.lines();
    let header = split_csv(lines.next().unwrap());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let ref_col = header
        .iter()
        .position(|h| h == "ref_cpu_s" || h == "popeye_cpu_s")
        .unwrap();
    println!(
        "{:<20} {:<7} {:>9} {:>9} {:>7} {:>12}  result",
        "id", "stip", "cookd s", "ref s", "ratio", "nodes"
    );
    let (mut total_cookd, mut total_ref, mut slower) = (0.0, 0.0, 0);
    for line in lines {
        let row = split_csv(line);
        let ref_s: f64 = row[ref_col].parse().unwrap_or(f64::NAN);
        if let Some(only) = &only {
            if !only.contains(&row[0]) {
                continue;
            }
        } else if mode == "slow" && (ref_s.is_nan() || ref_s <= 0.1) {
            continue;
        } else if mode == "intelligent" && !row[col("notes")].contains("option intelligent") {
            continue;
        }
        let stip: Stipulation = row[col("stipulation")].parse().unwrap();
        let pos: Chess = row[col("fen")]
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let want: Option<Vec<String>> = header.iter().position(|h| h == "keys_uci").map(|c| {
            let mut v: Vec<String> = row[c]
                .split(';')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            v.sort();
            v
        });
        let started = Instant::now();
        let mut solver = Solver::new(Some(started + budget));
        let outcome = pool
            .install(|| solver.solve(&pos, stip))
            .expect("mate stipulation");
        let secs = started.elapsed().as_secs_f64();
        let result = match outcome {
            Err(_) => "TIMEOUT".to_owned(),
            Ok(found) => {
                let mut got: Vec<String> = match found {
                    Found::Keys(k) => k.into_iter().map(|k| k.uci).collect(),
                    Found::Lines(l) => l.into_iter().map(|l| l.uci.join(" ")).collect(),
                };
                got.sort();
                match &want {
                    Some(w) if *w == got => "ok".to_owned(),
                    Some(_) => format!("MISMATCH {got:?}"),
                    None => format!("{got:?}"),
                }
            }
        };
        let ratio = ref_s / secs;
        if ratio < 3.0 && ref_s > 0.1 {
            slower += 1;
        }
        total_cookd += secs;
        total_ref += if ref_s.is_nan() { 0.0 } else { ref_s };
        println!(
            "{:<20} {:<7} {:>9.3} {:>9.3} {:>7.1} {:>12}  {result}",
            row[0],
            stip.to_string(),
            secs,
            ref_s,
            ratio,
            solver.stats().nodes
        );
    }
    println!(
        "\ntotal: cookd {total_cookd:.2} s, reference {total_ref:.2} s; \
         {slower} problem(s) over 0.1 s reference time are less than 3x faster"
    );
}
