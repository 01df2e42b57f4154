//! Solve one problem from the command line: `solve_one FEN STIPULATION [SECONDS]`.
//! For profiling and quick experiments; prints keys/solutions, nodes and time.
//! `COOKD_PARALLEL=lazy` selects Lazy SMP instead of the split search.
use std::time::{Duration, Instant};

use shakmaty::{fen::Fen, CastlingMode, Chess};
use solvers::mate::{Parallelism, Solver};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pos: Chess = args[1]
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let stip = args[2].parse().unwrap();
    let budget = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let started = Instant::now();
    let parallelism = match std::env::var("COOKD_PARALLEL").as_deref() {
        Ok("lazy") => Parallelism::Lazy,
        _ => Parallelism::Split,
    };
    let mut solver =
        Solver::new(Some(started + Duration::from_secs_f64(budget))).with_parallelism(parallelism);
    let found = solver.solve(&pos, stip).unwrap();
    println!("{found:?}");
    println!(
        "{:.3} s, {:?}",
        started.elapsed().as_secs_f64(),
        solver.stats()
    );
}
