//! Proof-game benchmark over the corpus (tests/data/spg.csv): time and nodes
//! per problem, median and max per length band, and the parallel speed-up
//! (1 vs 2 threads) on the rows that take long enough to measure. Every
//! verdict and count is checked against the corpus as it goes; a mismatch
//! aborts the run.
//!
//! `cargo bench -p solvers --bench proofgame`; environment:
//! `SPG_BUDGET_S` (per row, default 60), `SPG_MAX_PLIES` (default 64),
//! `SPG_SYNC_DEPTH` (default the solver's), `SPG_ONLY` (comma-separated row
//! ids), `SPG_PARALLEL_MIN_S` (rows slower than this on one thread are timed
//! again on two; default 0.3 s of CPU time), `SPG_HASH_MB` (the table,
//! default the solver's). Times are wall and CPU (user +
//! system) seconds: on a shared machine the CPU figures are the ones to read.
//!
//! All rows search with one table, emptied before each (untimed), as the
//! daemon keeps one: its memory is mapped once, not page by page in every
//! search.
//!
//! Figures when last written down here (release build, one thread): every
//! corpus row up to 24 plies under 0.4 s of CPU time, the 31-ply one about
//! 2.3 s, spg252 (39 plies: over 7·10^16 games, past what the count holds,
//! and one game of 37) about two minutes; spg261 (43 plies) found cooked
//! within 90 s.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use solvers::proofgame::{self, Judgement, Options, DEFAULT_SYNC_DEPTH};
use solvers::testing::{corpus_verdict, cpu_seconds, data, env, read_csv};
use solvers::transposition::Table;
use solvers::verdict::Kind;

struct Run {
    id: String,
    plies: u32,
    wall: Duration,
    cpu: f64,
    nodes: u64,
    solved: bool,
}

fn solve_row(
    row: &HashMap<String, String>,
    budget: Duration,
    sync_depth: u32,
    table: &Table,
) -> Run {
    let id = row["id"].clone();
    let plies: u32 = row["halfmoves"].parse().unwrap();
    let board = row["fen"].parse::<Fen>().unwrap().into_setup().board;
    table.clear();
    let options = Options {
        table: Some(table),
        deadline: Some(Instant::now() + budget),
        sync_depth,
        // The corpus counts games of the stipulated length only.
        shorter: false,
        ..Options::default()
    };
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let outcome = proofgame::solve(&board, plies, &options).unwrap();
    let (wall, cpu) = (t0.elapsed(), cpu_seconds() - cpu0);
    let count = outcome.exact.count + outcome.short.iter().map(|g| g.count).sum::<u64>();
    let want = &row["n_solutions"];
    // A count cut short is a lower bound: it settles only a row that asks
    // for at least so many games.
    let at_least = want
        .strip_prefix(">=")
        .map(|min| min.parse::<u64>().unwrap());
    let solved = outcome.judgement != Judgement::Unsolved
        && (outcome.exact.complete || at_least.is_some_and(|min| count >= min));
    if solved {
        let ok_count = match at_least {
            Some(min) => count >= min,
            None => count == want.parse::<u64>().unwrap(),
        };
        assert_eq!(
            Some(Kind::from(outcome.judgement)),
            corpus_verdict(&row["verdict"]),
            "{id}: verdict"
        );
        assert!(ok_count, "{id}: {count} games, corpus says {want}");
    }
    Run {
        id,
        plies,
        wall,
        cpu,
        nodes: outcome.nodes,
        solved,
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        return f64::NAN;
    }
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let budget = Duration::from_secs_f64(env("SPG_BUDGET_S", 60.0));
    let max_plies: u32 = env("SPG_MAX_PLIES", 64);
    let sync_depth: u32 = env("SPG_SYNC_DEPTH", DEFAULT_SYNC_DEPTH);
    let only: Option<Vec<String>> = std::env::var("SPG_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let parallel_min = Duration::from_secs_f64(env("SPG_PARALLEL_MIN_S", 0.3));
    let rows = read_csv(&data("spg.csv"));
    let table = Table::sized(env("SPG_HASH_MB", Options::default().hash_mb), 32);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut runs = Vec::new();
    println!(
        "{:<8} {:>5} {:>10} {:>9} {:>12}  result",
        "id", "plies", "wall_s", "cpu_s", "nodes"
    );
    for row in &rows {
        let plies: u32 = row["halfmoves"].parse().unwrap();
        if plies > max_plies || !only.as_ref().is_none_or(|ids| ids.contains(&row["id"])) {
            continue;
        }
        let run = one.install(|| solve_row(row, budget, sync_depth, &table));
        println!(
            "{:<8} {:>5} {:>10.3} {:>9.2} {:>12}  {}",
            run.id,
            run.plies,
            run.wall.as_secs_f64(),
            run.cpu,
            run.nodes,
            if run.solved {
                "ok"
            } else {
                "UNSOLVED (budget)"
            }
        );
        runs.push(run);
    }
    println!(
        "\nband        rows solved  median_cpu_s  max_cpu_s  median_wall_s  max_wall_s  median_nodes  max_nodes   (1 thread, solved rows)"
    );
    for (name, lo, hi) in [
        ("0-16", 0, 16),
        ("17-24", 17, 24),
        ("25-32", 25, 32),
        ("33+", 33, 999),
    ] {
        let band: Vec<&Run> = runs
            .iter()
            .filter(|r| (lo..=hi).contains(&r.plies))
            .collect();
        let solved: Vec<&&Run> = band.iter().filter(|r| r.solved).collect();
        let cpu: Vec<f64> = solved.iter().map(|r| r.cpu).collect();
        let wall: Vec<f64> = solved.iter().map(|r| r.wall.as_secs_f64()).collect();
        let nodes: Vec<f64> = solved.iter().map(|r| r.nodes as f64).collect();
        let max = |xs: &[f64]| xs.iter().cloned().fold(0.0, f64::max);
        println!(
            "{name:<10} {:>5} {:>6} {:>13.3} {:>10.3} {:>14.3} {:>11.3} {:>13.0} {:>10.0}",
            band.len(),
            solved.len(),
            median(cpu.clone()),
            max(&cpu),
            median(wall.clone()),
            max(&wall),
            median(nodes.clone()),
            max(&nodes),
        );
    }
    // Parallel speed-up on the rows that take a measurable time.
    let slow: Vec<&HashMap<String, String>> = rows
        .iter()
        .filter(|row| {
            runs.iter()
                .any(|r| r.id == row["id"] && r.solved && r.cpu > parallel_min.as_secs_f64())
        })
        .collect();
    if !slow.is_empty() {
        println!(
            "\nparallel: {} rows over 0.3 s; sync depth {sync_depth}",
            slow.len()
        );
        let (mut t1, mut t2) = (0.0, 0.0);
        for row in slow {
            let a = one.install(|| solve_row(row, budget, sync_depth, &table));
            let b = two.install(|| solve_row(row, budget, sync_depth, &table));
            println!(
                "{:<8} 1 thread {:>8.3} s ({:.2} s cpu, {} nodes)   2 threads {:>8.3} s ({:.2} s cpu, {} nodes)   x{:.2}",
                a.id,
                a.wall.as_secs_f64(),
                a.cpu,
                a.nodes,
                b.wall.as_secs_f64(),
                b.cpu,
                b.nodes,
                a.wall.as_secs_f64() / b.wall.as_secs_f64()
            );
            t1 += a.wall.as_secs_f64();
            t2 += b.wall.as_secs_f64();
        }
        println!(
            "total    1 thread {t1:>8.3} s   2 threads {t2:>8.3} s   x{:.2}",
            t1 / t2
        );
    }
}
