//! Checks the production mate solvers and the legality stage against the
//! oracle (`solvers::oracle`) on generated problems:
//! `oracle [COUNT] [SEED]` (defaults: 10000 cases, seed 1). Prints progress
//! every 1000 cases on stderr, then `N cases, M disagreements` and each
//! disagreement; exits 1 when there is any.
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: u64 = args.get(1).map_or(10_000, |s| s.parse().expect("COUNT"));
    let seed: u64 = args.get(2).map_or(1, |s| s.parse().expect("SEED"));
    let started = Instant::now();
    let summary = solvers::oracle::run(seed, count, |done, s| {
        eprintln!(
            "{done}/{count}: {} ({:.0} s)",
            s.line(),
            started.elapsed().as_secs_f64()
        );
    });
    for d in &summary.disagreements {
        println!("{d}");
    }
    println!("{}", summary.line());
    println!(
        "{} legality cases (random-game positions), {:.0} s",
        summary.legality_cases,
        started.elapsed().as_secs_f64()
    );
    if !summary.disagreements.is_empty() {
        std::process::exit(1);
    }
}
