//! The proof-game estimate ([`proofgame::estimate`]) against the search
//! itself on the corpus (tests/data/spg.csv): for every row whose search
//! completes in over `SPG_ESTIMATE_MIN_S` seconds of CPU (default 1), the
//! ratio of the estimated nodes to those the search visited. The target:
//! within 3× for 80 % of those rows.
//!
//! Minutes of CPU in a release build (spg252 and spg261 alone take a few):
//! `cargo test --release -p solvers --test proofgame_estimate -- --ignored
//! --nocapture`; `SPG_ESTIMATE_MAX_PLIES` leaves longer rows out.
//!
//! Last run (release, one thread, shared 2-core machine; it FAILS the
//! target): rows over 1 s: spg225 0.035 (8,902 items, one holding 42 % of
//! the nodes, missed by the sample), spg252 2.9 (estimate 70 s against
//! 251 s), spg261 9.2 (59 s against 93 s): 1 of 3 within 3x. Rows of 0.03
//! to 0.5 s (`SPG_ESTIMATE_MIN_S=0.03`, up to 24 plies): 0.12 to 3.4, 12
//! of 16 within 3x.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use solvers::proofgame::{self, Options};
use solvers::transposition::Table;

use solvers::testing::{cpu_seconds, data, env, read_csv};

/// Items searched for the estimate: this fraction, at least `LEAST` per length.
const FRACTION: f64 = 0.05;
const LEAST: usize = 8;

struct Measured {
    id: String,
    plies: u32,
    cpu: f64,
    nodes: u64,
    estimate: proofgame::Estimate,
    estimate_cpu: f64,
}

fn measure(row: &HashMap<String, String>, table: &Table, min_s: f64) -> Option<Measured> {
    let plies: u32 = row["halfmoves"].parse().unwrap();
    if plies == 0 {
        return None;
    }
    let board = row["fen"].parse::<Fen>().unwrap().into_setup().board;
    table.clear();
    let options = Options {
        table: Some(table),
        deadline: Some(Instant::now() + Duration::from_secs(600)),
        // The corpus counts games of the stipulated length only.
        shorter: false,
        ..Options::default()
    };
    let cpu0 = cpu_seconds();
    let outcome = proofgame::solve(&board, plies, &options).unwrap();
    let cpu = cpu_seconds() - cpu0;
    if cpu < min_s || outcome.judgement == proofgame::Judgement::Unsolved {
        return None;
    }
    table.clear();
    let cpu0 = cpu_seconds();
    let estimate = proofgame::estimate(
        &board,
        plies,
        &options,
        (env("SPG_ESTIMATE_FRACTION", FRACTION), LEAST),
    )
    .unwrap();
    Some(Measured {
        id: row["id"].clone(),
        plies,
        cpu,
        nodes: outcome.nodes,
        estimate,
        estimate_cpu: cpu_seconds() - cpu0,
    })
}

#[test]
#[ignore = "minutes of CPU in a release build; run by hand, see the module comment"]
fn estimate_against_the_search_on_the_corpus() {
    let min_s = env("SPG_ESTIMATE_MIN_S", 1.0);
    let max_plies = env("SPG_ESTIMATE_MAX_PLIES", u32::MAX);
    let table = Table::sized(256, 27);
    let mut ratios = Vec::new();
    // One thread: the rate the estimate measures is one thread's.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!("row     plies  cpu_s   nodes        est_nodes    ratio  est_s  items  rate/s");
    for row in read_csv(&data("spg.csv")) {
        if row["halfmoves"].parse::<u32>().unwrap() > max_plies {
            continue;
        }
        let Some(m) = pool.install(|| measure(&row, &table, min_s)) else {
            continue;
        };
        let s = &m.estimate.sample;
        let ratio = s.nodes / m.nodes as f64;
        println!(
            "{:7} {:5} {:7.2} {:12} {:12.0} {:6.2} {:6.2} {:6} {:8.0}",
            m.id,
            m.plies,
            m.cpu,
            m.nodes,
            s.nodes,
            ratio,
            m.estimate_cpu,
            s.items,
            s.visited as f64 / s.seconds
        );
        ratios.push(ratio);
    }
    let within = ratios
        .iter()
        .filter(|r| (1.0 / 3.0..=3.0).contains(*r))
        .count();
    println!(
        "{within} of {} rows within 3x; ratios {:?}",
        ratios.len(),
        ratios
    );
    assert!(!ratios.is_empty(), "no row took over {min_s} s");
    assert!(
        within * 5 >= ratios.len() * 4,
        "{within} of {} estimates within 3x of the search",
        ratios.len()
    );
}
