//! The proof-game estimate ([`proofgame::estimate`]) against the search
//! itself on the corpus (tests/data/spg.csv): for every row whose search
//! completes in over `SPG_ESTIMATE_MIN_S` seconds of CPU (default 1), the
//! ratio of the estimated nodes to those the search visited. The target:
//! within 3× for 80 % of those rows.
//!
//! Minutes of CPU in a release build when the long rows are searched:
//! `cargo test --release -p solvers --test proofgame_estimate -- --ignored
//! --nocapture`. The searches of the rows in [`RECORDED`] are not run
//! again (their nodes are taken from there; set `SPG_ESTIMATE_SEARCH` to
//! search them, and refresh the figures after a change to the search);
//! `SPG_ESTIMATE_MAX_PLIES` leaves longer rows out, `SPG_ESTIMATE_ONLY`
//! (ids, comma-separated) keeps only those rows, `SPG_ESTIMATE_COUNT_NODES`
//! sets the nodes counted before the estimate extrapolates (1: every row
//! extrapolated).
//!
//! Last run (release, one thread, the two long rows side by side on this
//! 2-core machine; it passes): spg225 0.98 (counted: no move to spare,
//! 9.2 M nodes, 8.1 s of CPU against the search's 4.7 s), spg252 1.46
//! (extrapolated; 188 s of CPU under load, about 91 M nodes, 46 % of the
//! search's), spg261 1.10 (extrapolated; 59 s under load, about 28 M
//! nodes, 12 %): 3 of 3 within 3x. The search's nodes were measured again
//! for this run (spg252: 196.8 M, where 174.2 M was recorded; spg261
//! unchanged). Every row extrapolated (`SPG_ESTIMATE_COUNT_NODES=1
//! SPG_ESTIMATE_MIN_S=0.03 SPG_ESTIMATE_MAX_PLIES=31`): 14 of 27 within
//! 3x, the others under it (spg225 0.001, spg187 0.0004: no move to spare;
//! median 0.47). Counted, as `cookd estimate` counts them (the default):
//! 24 of 28 within 3x (0.85 to 1.67), and the other four under it (0.02 to
//! 0.20): their search also walks its tree again to list the games, which
//! the estimate does not size (spg187: 651 nodes counted, 40 K in all).
//!
//! Tried and not kept (issue 29; same machine): the estimator of earlier
//! sessions, 5 % of each free-move class's items searched with the table
//! and scaled up: spg225 0.031, spg252 10.2 (2.9 in a less loaded run),
//! spg261 8.8; its cost 28 to 63 % of the search's. Every item counted
//! within a node cap growing fourfold per round, the items over it sized by
//! the share of their tree done (children done over children, level by
//! level): on spg225 the heavy items' share stays at their first child's
//! (0.026 at every cap from 1 K to 256 K nodes), so their size grows with
//! the cap: 0.16 of the search at 5 % of its cost, 0.88 at 22 %. Items
//! ranked by the
//! size of their tree 3 plies down without the table (cheap: on spg225
//! that ranks the two items holding 39 % and 16 % of the nodes 4th and
//! 5th of 8,902; log-correlation with the item's nodes 0.38) and those
//! over 8x the mean searched whole, the rest sampled by free-move class:
//! spg225 1.61 and the rows of 0.03 s and over as before, but the
//! estimate took 3.5 s of the search's 4.7 s on spg225, and on spg252 ran
//! over 400 s of wall time (stopped); splitting such items 3 plies further
//! instead (twice at most) and sampling the parts: spg225 3.3 at 1.4 s,
//! rows of 0.03 s and over 11 of 24 within 3x (the parts share much of
//! their trees: the search counts that once, the scaled-up sample many
//! times). One random sample over
//! all items, no classes: spg225 0.02, spg252 0.00003 (missed); on
//! spg261 6.6, or 3.1 when the items left are scaled by the mean cost of
//! the sample's second half (searched with the table the first half
//! filled: it sees the transpositions between items), 2.8 by its last
//! quarter, at 65 s of the search's 228 s. Every item counted exactly
//! within a node cap (the table as the search fills it), those over the
//! cap counted again with caps four times larger while a node budget
//! lasts, then split into their children, sampled and scaled up: spg225
//! 0.42 at 4 M nodes (0.98 at 16 M, the whole search), but spg252 2,136
//! and spg261 3.6 at 16 M, and far worse at 4 M: past the budget the
//! children sampled are sized on their own, each paying for the
//! transpositions its siblings share.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use solvers::proofgame::{self, Options};
use solvers::transposition::Table;

use solvers::testing::{cpu_seconds, data, env, read_csv};

/// Nodes per length counted before the estimate extrapolates, as
/// `cookd estimate` counts them.
const COUNT_NODES: u64 = 1 << 24;

/// The long rows' searches as last measured (id, nodes, CPU seconds):
/// taken instead of searching again unless `SPG_ESTIMATE_SEARCH` is set.
const RECORDED: &[(&str, u64, f64)] = &[
    ("spg225", 9_336_189, 4.72),
    ("spg252", 196_759_672, 231.3),
    ("spg261", 230_366_277, 228.3),
];

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
    let recorded = RECORDED.iter().find(|r| r.0 == row["id"]);
    let (cpu, nodes) = match recorded {
        Some(&(_, nodes, cpu)) if std::env::var_os("SPG_ESTIMATE_SEARCH").is_none() => (cpu, nodes),
        _ => {
            let cpu0 = cpu_seconds();
            let outcome = proofgame::solve(&board, plies, &options).unwrap();
            let cpu = cpu_seconds() - cpu0;
            if outcome.judgement == proofgame::Judgement::Unsolved {
                return None;
            }
            (cpu, outcome.nodes)
        }
    };
    if cpu < min_s {
        return None;
    }
    table.clear();
    let cpu0 = cpu_seconds();
    let count_nodes = env("SPG_ESTIMATE_COUNT_NODES", COUNT_NODES);
    let estimate = proofgame::estimate(&board, plies, &options, count_nodes).unwrap();
    Some(Measured {
        id: row["id"].clone(),
        plies,
        cpu,
        nodes,
        estimate,
        estimate_cpu: cpu_seconds() - cpu0,
    })
}

#[test]
#[ignore = "minutes of CPU in a release build; run by hand, see the module comment"]
fn estimate_against_the_search_on_the_corpus() {
    let min_s = env("SPG_ESTIMATE_MIN_S", 1.0);
    let max_plies = env("SPG_ESTIMATE_MAX_PLIES", u32::MAX);
    let only = env("SPG_ESTIMATE_ONLY", String::new());
    let table = Table::sized(256, 27);
    let mut ratios = Vec::new();
    // One thread: the rate the estimate measures is one thread's.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!("row     plies  cpu_s   nodes        est_nodes    ratio  est_s  items  rate/s    how");
    for row in read_csv(&data("spg.csv")) {
        if row["halfmoves"].parse::<u32>().unwrap() > max_plies
            || !only.is_empty() && !only.split(',').any(|id| id == row["id"])
        {
            continue;
        }
        let Some(m) = pool.install(|| measure(&row, &table, min_s)) else {
            continue;
        };
        let s = &m.estimate.sample;
        let ratio = s.nodes / m.nodes as f64;
        println!(
            "{:7} {:5} {:7.2} {:12} {:12.0} {:6.2} {:6.2} {:6} {:8.0}  {}",
            m.id,
            m.plies,
            m.cpu,
            m.nodes,
            s.nodes,
            ratio,
            m.estimate_cpu,
            s.items,
            s.visited as f64 / s.seconds,
            if s.extrapolated {
                "extrapolated"
            } else {
                "counted"
            }
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
