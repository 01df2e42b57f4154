//! `cookd tune`: measure how the solver scales with threads on a fixed
//! problem set, and suggest the `threads:` setting for pipeline.yaml.
//!
//! Each problem is solved once per thread count on a rayon pool of that
//! size, in both parallel modes: `split` (White's first moves shared out,
//! and Black's replies near the root once the first is searched: young
//! brothers wait) and `lazy` (Lazy SMP: every thread solves it all in its
//! own order, sharing one lock-free table). The suggestion is the smallest
//! thread count within 10 % of the best wall time, with the mode that gets
//! it: more threads than that only take cores from other problems in flight.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shakmaty::{fen::Fen, CastlingMode, Chess};

use solvers::mate::{Solver, Stats};
use solvers::stage::options::Parallel;
use solvers::transposition::Table;
use solvers::Stipulation;

use crate::config::{Config, Stage};

/// The fixed set: verified problems from the mate corpus that take the
/// solver between a fraction of a second and a few seconds on one thread.
const PROBLEMS: &[(&str, &str, &str)] = &[
    (
        "Wenda #6 (dm009)",
        "4k3/1pp2pp1/8/b1B1pB2/rp6/p5N1/3R4/R2bK3 w Q - 0 1",
        "#6",
    ),
    (
        "#5 (dm045)",
        "4k3/1pp2pp1/8/b1B1pB2/rp6/p5N1/3R4/R2bK3 w Q - 0 1",
        "#5",
    ),
    (
        "Hundsdorfer s#6 (sm003)",
        "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
        "s#6",
    ),
    (
        "h#4 (hm025)",
        "8/8/2Nq4/5k2/3P4/5K2/2b2P2/8 b - - 0 1",
        "h#4",
    ),
    (
        "h#3 (hm044)",
        "6K1/3p4/2q3p1/3R4/3p1nn1/rB3kp1/b7/1r6 b - - 0 1",
        "h#3",
    ),
];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration file (default: the built-in pipeline.yaml); its solve
    /// stage gives the hash budget.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Thread counts to measure (default: 1, 2, 4, … up to the core count).
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
}

/// Thread counts to try: powers of two up to the core count, and the core
/// count itself.
fn default_counts(cores: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |n| Some(n * 2))
        .take_while(|&n| n <= cores)
        .collect();
    if counts.last() != Some(&cores) {
        counts.push(cores);
    }
    counts
}

fn mode_name(mode: Parallel) -> &'static str {
    match mode {
        Parallel::Split => "split",
        Parallel::Lazy => "lazy",
    }
}

/// The fewest threads (and the mode that gets there) whose time is within
/// 10 % of the best measured.
fn suggest(times: &[(Parallel, usize, Duration)]) -> (Parallel, usize) {
    let best = times.iter().map(|(_, _, t)| *t).min().unwrap_or_default();
    times
        .iter()
        .filter(|(_, _, t)| t.as_secs_f64() <= best.as_secs_f64() * 1.10)
        .min_by_key(|(_, n, t)| (*n, *t))
        .map_or((Parallel::Split, 1), |(mode, n, _)| (*mode, *n))
}

/// One timed solve with `table`, emptied first (untimed) so that no run
/// learns from the one before, as a daemon keeps its table.
fn solve_once(
    pos: &Chess,
    stip: Stipulation,
    table: &Arc<Table>,
    mode: Parallel,
) -> (Duration, Stats) {
    table.clear();
    let started = Instant::now();
    let mut solver = Solver::new(None)
        .with_table(Arc::clone(table))
        .with_parallelism(mode.to_solver());
    let outcome = solver.solve(pos, stip);
    assert!(matches!(outcome, Ok(Ok(_))), "tune problems are solvable");
    (started.elapsed(), solver.stats())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = Config::load_or_builtin(args.config.as_deref())?;
    let hash_mb = config
        .stages
        .iter()
        .find_map(|s| match s {
            Stage::Solve(options) => Some(options.hash_mb),
            _ => None,
        })
        .unwrap_or(solvers::mate::DEFAULT_HASH_MB);
    let table = Arc::new(Table::sized(hash_mb, u32::MAX));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = if args.threads.is_empty() {
        default_counts(cores)
    } else {
        args.threads.clone()
    };
    let problems: Vec<(&str, Chess, Stipulation)> = PROBLEMS
        .iter()
        .map(|(name, fen, stip)| {
            let pos = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .with_context(|| format!("bad built-in FEN for {name}"))?;
            Ok((*name, pos, stip.parse()?))
        })
        .collect::<Result<_>>()?;
    eprintln!(
        "cookd tune: {} problems at {:?} threads ({cores} cores, hash {hash_mb} MB)",
        problems.len(),
        counts
    );
    println!(
        "{:<26} {:>6} {:>7} {:>10} {:>8} {:>12} {:>6}",
        "problem", "mode", "threads", "seconds", "speedup", "nodes", "work"
    );
    // One thread is the same search in both modes: measured once.
    let mut baseline: Vec<(Duration, u64)> = Vec::new();
    let mut totals: Vec<(Parallel, usize, Duration, u64)> = Vec::new();
    let sum = |runs: &[(Duration, u64)]| {
        runs.iter()
            .fold((Duration::ZERO, 0), |(t, n), r| (t + r.0, n + r.1))
    };
    for mode in [Parallel::Split, Parallel::Lazy] {
        for &n in &counts {
            if n == 1 && !baseline.is_empty() {
                let (time, nodes) = sum(&baseline);
                totals.push((mode, 1, time, nodes));
                continue;
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .context("building thread pool")?;
            let mut runs = Vec::new();
            for (i, (name, pos, stip)) in problems.iter().enumerate() {
                let (time, stats) = pool.install(|| solve_once(pos, *stip, &table, mode));
                let (base_time, base_nodes) =
                    baseline.get(i).copied().unwrap_or((time, stats.nodes));
                println!(
                    "{name:<26} {:>6} {n:>7} {:>10.3} {:>8.2} {:>12} {:>6.2}",
                    mode_name(mode),
                    time.as_secs_f64(),
                    base_time.as_secs_f64() / time.as_secs_f64(),
                    stats.nodes,
                    stats.nodes as f64 / base_nodes.max(1) as f64
                );
                runs.push((time, stats.nodes));
            }
            if n == 1 {
                baseline.clone_from(&runs);
            }
            let (time, nodes) = sum(&runs);
            totals.push((mode, n, time, nodes));
        }
    }
    // `work`: nodes against one thread's. The time a thread count can
    // save is at most threads / work, whatever the cores: on a machine
    // with fewer cores than threads it is the figure that still means
    // something.
    println!(
        "\n{:>6} {:>7} {:>10} {:>8} {:>6}",
        "mode", "threads", "total s", "speedup", "work"
    );
    let (base_time, base_nodes) = sum(&baseline);
    for (mode, n, time, nodes) in &totals {
        println!(
            "{:>6} {n:>7} {:>10.3} {:>8.2} {:>6.2}",
            mode_name(*mode),
            time.as_secs_f64(),
            base_time.as_secs_f64() / time.as_secs_f64(),
            *nodes as f64 / base_nodes.max(1) as f64
        );
    }
    let times: Vec<(Parallel, usize, Duration)> =
        totals.iter().map(|(m, n, t, _)| (*m, *n, *t)).collect();
    let (mode, threads) = suggest(&times);
    println!(
        "\nsuggested pipeline.yaml settings: threads: {threads}, and in the solve stage parallel: {}",
        mode_name(mode)
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_powers_of_two_and_the_core_count() {
        assert_eq!(default_counts(1), [1]);
        assert_eq!(default_counts(2), [1, 2]);
        assert_eq!(default_counts(6), [1, 2, 4, 6]);
        assert_eq!(default_counts(16), [1, 2, 4, 8, 16]);
    }

    #[test]
    fn suggestion_is_smallest_within_ten_percent() {
        let ms = Duration::from_millis;
        let (s, l) = (Parallel::Split, Parallel::Lazy);
        let one = (s, 1, ms(1000));
        assert_eq!(
            suggest(&[one, (s, 2, ms(520)), (l, 2, ms(600)), (s, 4, ms(500))]),
            (s, 2)
        );
        assert_eq!(
            suggest(&[one, (s, 2, ms(900)), (l, 2, ms(540)), (l, 4, ms(500))]),
            (l, 2)
        );
        assert_eq!(suggest(&[(s, 1, ms(500)), (s, 2, ms(520))]), (s, 1));
    }

    #[test]
    fn built_in_problems_parse() {
        for (name, fen, stip) in PROBLEMS {
            let pos = fen
                .parse::<Fen>()
                .unwrap()
                .into_position::<Chess>(CastlingMode::Standard);
            assert!(pos.is_ok(), "{name}");
            assert!(stip.parse::<Stipulation>().is_ok(), "{name}");
        }
    }
}
