//! Checks the production mate solvers and the legality stage against the
//! oracle (`solvers::oracle`) on generated problems:
//!
//! - `oracle [COUNT] [SEED]` (defaults: 10000 cases, seed 1): mate cases,
//!   with one random game in four through the legality stage;
//! - `oracle legality [GAMES] [SEED]`: the legality stage alone, on four
//!   positions of each random game.
//!
//! Prints progress every 1000 cases on stderr and each disagreement as it
//! comes, then `N cases, M disagreements`; exits 1 when there is any.
use std::time::Instant;

use solvers::oracle::Summary;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let legality_only = args.first().is_some_and(|a| a == "legality");
    if legality_only {
        args.remove(0);
    }
    let count: u64 = args.first().map_or(10_000, |s| s.parse().expect("COUNT"));
    let seed: u64 = args.get(1).map_or(1, |s| s.parse().expect("SEED"));
    let started = Instant::now();
    // Disagreements are printed as they come, so a run cut short keeps them.
    let mut printed = 0;
    let mut progress = |done: u64, s: &Summary| {
        for d in &s.disagreements[printed..] {
            println!("{d}");
        }
        printed = s.disagreements.len();
        let line = if legality_only {
            legality_line(s)
        } else {
            s.line()
        };
        eprintln!(
            "{done}/{count}: {line} ({:.0} s)",
            started.elapsed().as_secs_f64()
        );
    };
    let summary = if legality_only {
        solvers::oracle::run_legality(seed, count, &mut progress)
    } else {
        solvers::oracle::run(seed, count, &mut progress)
    };
    for d in &summary.disagreements[printed..] {
        println!("{d}");
    }
    if legality_only {
        println!("{}", legality_line(&summary));
    } else {
        println!("{}", summary.line());
        println!(
            "{} legality cases (random-game positions)",
            summary.legality_cases
        );
    }
    println!("{:.0} s", started.elapsed().as_secs_f64());
    if !summary.disagreements.is_empty() {
        std::process::exit(1);
    }
}

fn legality_line(s: &Summary) -> String {
    format!(
        "{} legality cases, {} disagreements",
        s.legality_cases,
        s.disagreements.len()
    )
}
