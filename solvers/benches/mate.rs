//! Mate solver against the reference solver's CPU times.
//!
//! `cargo bench -p solvers --bench mate [-- all|stretch|intelligent|help] [--only ID,ID..] [--budget SECONDS] [--threads N]`
//!
//! By default runs every corpus row the reference needs more than 0.1 s for;
//! `all` runs every row, `stretch` the three problems beyond the reference,
//! `intelligent` the helpmates the reference solved only in its intelligent
//! mode; `--only` picks rows by id.
//!
//! `help` runs every helpmate with the reference's intelligent-mode time
//! (`ref_intelligent_cpu_s`) against that time, each with a fresh table of
//! the pipeline's default size as a one-shot `cookd solve` has: its CPU
//! time includes the kernel's handing out the table's pages and taking
//! them back. (`cargo bench -p cookd --bench oneshot` times the whole
//! process.)
//! Prints cookd's time, the reference's, their ratio (ref / cookd: above 1 is
//! faster than the reference), nodes and whether the result matches.
//! One thread by default, as the reference's figures are single-threaded.
//! Times are CPU seconds (the machine may be shared), the budget wall clock.
//! All rows search with one table, emptied before each (untimed), as the
//! daemon keeps one: its memory is mapped once, not page by page in every
//! search.

use std::time::{Duration, Instant};

use shakmaty::{fen::Fen, CastlingMode, Chess};
use solvers::mate::{Found, Solver, DEFAULT_HASH_MB};
use solvers::transposition::Table;
use solvers::Stipulation;
use std::sync::Arc;

use solvers::testing::split_csv;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = if args.iter().any(|a| a == "all") {
        "all"
    } else if args.iter().any(|a| a == "stretch") {
        "stretch"
    } else if args.iter().any(|a| a == "intelligent") {
        "intelligent"
    } else if args.iter().any(|a| a == "help") {
        "help"
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
    let table = Arc::new(Table::sized(DEFAULT_HASH_MB, 32));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    println!(
        "{threads} thread(s), budget {budget:?} (wall clock) per problem; times are CPU seconds"
    );
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
    let ref_col = if mode == "help" {
        col("ref_intelligent_cpu_s")
    } else {
        header
            .iter()
            .position(|h| h == "ref_cpu_s" || h == "popeye_cpu_s")
            .unwrap()
    };
    // The pipeline's table (`hash_mb` of the solve stage), made afresh per
    // problem in `help` mode.
    let one_shot_mb = solvers::stage::options::SolveOptions::default().hash_mb;
    let recognizers = Arc::new(solvers::recognizer::Registry::new());
    println!(
        "{:<20} {:<7} {:>9} {:>9} {:>7} {:>12} {:>8}  result",
        "id", "stip", "cookd s", "ref s", "ratio", "nodes", "pictures"
    );
    let (mut total_cookd, mut total_ref, mut slower) = (0.0, 0.0, 0);
    for line in lines {
        let row = split_csv(line);
        let ref_s: f64 = row[ref_col].parse().unwrap_or(f64::NAN);
        let wanted = match &only {
            Some(only) => only.contains(&row[0]),
            None => match mode {
                "slow" => ref_s > 0.1,
                "intelligent" => row[col("notes")].contains("option intelligent"),
                "help" => !ref_s.is_nan(),
                _ => true,
            },
        };
        if !wanted {
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
        table.clear();
        let started = Instant::now();
        let (outcome, cpu, stats) = pool.install(|| {
            let before = cpu_seconds(threads);
            let table = if mode == "help" {
                Arc::new(Table::sized(one_shot_mb, u32::MAX))
            } else {
                Arc::clone(&table)
            };
            // The recognizers too, as the mate stage searches with them.
            let mut solver = Solver::new(Some(started + budget))
                .with_table(table)
                .with_recognizers(Arc::clone(&recognizers));
            let outcome = solver.solve(&pos, stip);
            let stats = solver.stats();
            drop(solver);
            (
                outcome,
                cpu_seconds(threads).zip(before).map(|(a, b)| a - b),
                stats,
            )
        });
        let outcome = outcome.expect("mate stipulation");
        // CPU time where the system tells it: the machine may be shared.
        let secs = cpu.unwrap_or_else(|| started.elapsed().as_secs_f64());
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
        // The bar: 3x the reference on every row it needs a tenth of a
        // second for (the intelligent mode's: a twentieth).
        let bar = if mode == "help" { 0.05 } else { 0.1 };
        if ratio < 3.0 && ref_s >= bar {
            slower += 1;
        }
        total_cookd += secs;
        total_ref += if ref_s.is_nan() { 0.0 } else { ref_s };
        println!(
            "{:<20} {:<7} {:>9.3} {:>9.3} {:>7.1} {:>12} {:>8}  {result}",
            row[0],
            stip.to_string(),
            secs,
            ref_s,
            ratio,
            stats.nodes,
            stats.pictures
        );
    }
    let bar = if mode == "help" { 0.05 } else { 0.1 };
    println!(
        "\ntotal: cookd {total_cookd:.2} s, reference {total_ref:.2} s ({:.2}x); \
         {slower} problem(s) of {bar} s reference time or more are less than 3x faster",
        total_ref / total_cookd
    );
}

/// CPU seconds used so far: by this thread (nanoseconds, from
/// `/proc/thread-self/schedstat`) when the pool has one thread, else by the
/// whole process (`/proc/self/stat`, in clock ticks of 1/100 s). `None`
/// where /proc is not there.
fn cpu_seconds(threads: usize) -> Option<f64> {
    if threads == 1 {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
        return Some(ns / 1e9);
    }
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): utime and
    // stime are the 14th and 15th fields of the line.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
