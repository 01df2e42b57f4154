//! The mate solver judged on the corpus (tests/data/mate.csv): for every
//! row in scope, the set of keys (direct, self) or solution lines (help,
//! shorter ones included) must equal the verified one exactly, and the
//! verdict must follow from the count.
//!
//! Scope: direct and self mates the reference solver needs at most 2 s for,
//! helpmates up to h#3 that it needs at most 1 s for, and the longer
//! helpmates the reference solves only in its intelligent mode (which the
//! mate pictures stand in for). The other slow rows belong to the benchmark
//! (`cargo bench -p solvers --bench mate`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::{fen::Fen, CastlingMode, Chess};
use solvers::mate::{Found, Parallelism, Solver};
use solvers::transposition::Table;
use solvers::Stipulation;
use std::sync::Arc;

mod common;
use common::{data, keys_uci, read_csv};

/// Per-row limit: far above what any row in scope needs, so only a real
/// regression (or a hang) trips it.
const ROW_BUDGET: Duration = Duration::from_secs(60);

fn in_scope(row: &HashMap<String, String>) -> bool {
    let ref_s: f64 = row["ref_cpu_s"].parse().unwrap_or(f64::INFINITY);
    let stip: Stipulation = row["stipulation"].parse().unwrap();
    let intelligent = row["notes"].contains("solved with option intelligent");
    match stip {
        Stipulation::Help { plies, .. } => (plies <= 6 && ref_s <= 1.0) || intelligent,
        _ => ref_s <= 2.0,
    }
}

/// The sorted keys (UCI) or solution lines of a corpus row, as the solver
/// finds them with `parallelism` on the current pool; `None` on timeout.
/// Solves a row with `table`, which every row of a test shares, as the
/// daemon's problems do.
fn solve_row(
    row: &HashMap<String, String>,
    parallelism: Parallelism,
    table: &Arc<Table>,
) -> Option<Vec<String>> {
    let id = &row["id"];
    let stip: Stipulation = row["stipulation"].parse().unwrap();
    let pos: Chess = row["fen"]
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut solver = Solver::new(Some(Instant::now() + ROW_BUDGET))
        .with_table(Arc::clone(table))
        .with_parallelism(parallelism);
    let found = solver.solve(&pos, stip).unwrap().ok()?;
    let mut got: Vec<String> = match found {
        Found::Keys(keys) => keys.into_iter().map(|k| k.uci).collect(),
        Found::Lines(lines) => lines.into_iter().map(|l| l.uci.join(" ")).collect(),
    };
    got.sort();
    Some(got)
}

#[test]
fn mate_corpus() {
    let rows = read_csv(&data("mate.csv"));
    let mut failures = Vec::new();
    let mut judged = 0;
    let table = Arc::new(Table::sized(64, 32));
    for row in rows.iter().filter(|r| in_scope(r)) {
        let id = &row["id"];
        let Some(got) = solve_row(row, Parallelism::Split, &table) else {
            failures.push(format!("{id}: not solved within {ROW_BUDGET:?}"));
            continue;
        };
        let want = keys_uci(row);
        let count: usize = row["n_solutions"].parse().unwrap();
        assert_eq!(want.len(), count, "{id}: corpus row is inconsistent");
        let verdict = match got.len() {
            0 => "no_solution",
            1 => "sound",
            _ => "cooked",
        };
        if got != want || verdict != row["verdict"] {
            failures.push(format!(
                "{id} {}: got {got:?}, want {want:?}",
                row["stipulation"]
            ));
        }
        judged += 1;
    }
    println!("{judged} rows judged, {} failed", failures.len());
    assert!(judged >= 140, "only {judged} rows in scope");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Both parallel modes on four threads find exactly the verified keys and
/// solutions (the quick rows and every direct or self mate: this is about
/// sharing work, not speed). More
/// threads than the two cores CI has, so that speculative searches are
/// cancelled midway and threads interleave at arbitrary points.
#[test]
fn parallel_modes_agree_with_the_corpus() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let rows = read_csv(&data("mate.csv"));
    // The deep direct and self mates too: only they split below the root.
    let quick = |r: &&HashMap<String, String>| {
        in_scope(r)
            && (r["ref_cpu_s"].parse::<f64>().is_ok_and(|s| s <= 0.02) || r["genre"] != "help")
    };
    let mut judged = 0;
    let table = Arc::new(Table::sized(16, 32));
    for row in rows.iter().filter(quick) {
        for mode in [Parallelism::Split, Parallelism::Lazy] {
            let got = pool.install(|| solve_row(row, mode, &table));
            assert_eq!(got, Some(keys_uci(row)), "{} with {mode:?}", row["id"]);
        }
        judged += 1;
    }
    assert!(judged >= 50, "only {judged} quick rows");
}

/// Issue 22's helpmate (Sztankovszky, Feenschach 1952): two promotions to
/// bishop, one of them capturing a knight that no mate picture names. The
/// pictures priced Black's blocks as if its pawns could capture nothing.
#[test]
fn helpmate_with_two_bishop_promotions_is_solved() {
    let pos: Chess = "8/8/8/8/k6N/4K3/1P2p2p/8 b - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let table = Arc::new(Table::sized(16, 20));
    for parallelism in [Parallelism::Split, Parallelism::Lazy] {
        let mut solver = Solver::new(Some(Instant::now() + ROW_BUDGET))
            .with_table(Arc::clone(&table))
            .with_parallelism(parallelism);
        let found = solver.solve(&pos, "h#5".parse().unwrap()).unwrap().unwrap();
        let Found::Lines(lines) = found else {
            panic!("a helpmate answers with lines");
        };
        let lines: Vec<String> = lines.into_iter().map(|l| l.uci.join(" ")).collect();
        assert_eq!(
            lines,
            ["e2e1b h4f3 e1a5 f3g1 h2g1b e3d3 g1c5 d3c4 c5a3 b2b3"],
            "{parallelism:?}"
        );
    }
}
