//! The production solvers against the reference ones, case by case.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Position};

use super::generate::{fen, mate_case, recognizer_case};
use super::reference::{direct_keys, help_lines, self_keys, Budget};
use super::Rng;
use crate::legality;
use crate::mate::{Found, Parallelism, Solver};
use crate::recognizer::Registry;
use crate::transposition::Table;
use crate::Stipulation;

/// Positions the reference may make per case; a case that needs more is
/// skipped (and counted as such), never judged. Helpmates of five plies
/// and more get more: the mate pictures work only there.
const REFERENCE_NODES: u64 = 400_000;
const REFERENCE_NODES_LONG_HELP: u64 = 1_000_000;

/// The production solver's time per case: far above what any generated
/// case needs, so running out is reported as a disagreement.
const PRODUCTION_BUDGET: Duration = Duration::from_secs(30);

/// How the production solver runs a case: every way the daemon may run it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Config {
    /// One thread, a fresh table per problem.
    OneThreadFresh,
    /// One thread, one table kept over all cases.
    OneThreadKept,
    /// Two threads sharing White's first moves (and Black's replies near
    /// the root), the kept table.
    TwoThreadsSplit,
    /// Two threads in Lazy SMP, the kept table.
    TwoThreadsLazy,
}

impl Config {
    pub const ALL: [Config; 4] = [
        Config::OneThreadFresh,
        Config::OneThreadKept,
        Config::TwoThreadsSplit,
        Config::TwoThreadsLazy,
    ];
}

/// The outcome of a run over generated cases.
#[derive(Debug, Default)]
pub struct Summary {
    /// Cases judged by both sides.
    pub cases: u64,
    /// Directmate nodes the production solver left unsearched because an
    /// endgame recognizer knew them drawn or lost for White.
    pub recognized_nodes: u64,
    /// Cases the reference could not finish within its node budget.
    pub skipped: u64,
    /// Cases where the reference found at least one key or line.
    pub with_solutions: u64,
    /// Helpmates with a planted solution line the production solver
    /// must list (see [`super::generate::planted_line`]).
    pub planted: u64,
    /// Positions from random games checked by the legality stage.
    pub legality_cases: u64,
    /// One line per disagreement: seed, index, configuration, position,
    /// stipulation, both answers.
    pub disagreements: Vec<String>,
}

impl Summary {
    /// `N cases, M disagreements` (with the skipped count).
    pub fn line(&self) -> String {
        format!(
            "{} cases, {} disagreements ({} with solutions, {} skipped: beyond the reference's nodes; {} planted helpmate lines; {} directmate nodes cut by recognizers)",
            self.cases + self.planted,
            self.disagreements.len(),
            self.with_solutions,
            self.skipped,
            self.planted,
            self.recognized_nodes
        )
    }
}

/// The reference's answer: keys with their lengths, or whole lines.
fn reference(pos: &Chess, stipulation: Stipulation) -> Option<Vec<String>> {
    let mut budget = Budget::new(match stipulation {
        Stipulation::Help { plies, .. } if plies >= 5 => REFERENCE_NODES_LONG_HELP,
        _ => REFERENCE_NODES,
    });
    let mut out: Vec<String> = match stipulation {
        Stipulation::Direct { moves, goal } => direct_keys(pos, moves, goal, &mut budget)?
            .into_iter()
            .map(|(m, k)| format!("{m}/{k}"))
            .collect(),
        Stipulation::SelfMate { moves, goal } => self_keys(pos, moves, goal, &mut budget)?
            .into_iter()
            .map(|(m, k)| format!("{m}/{k}"))
            .collect(),
        Stipulation::Help { plies, goal } => help_lines(pos, plies, goal, &mut budget)?,
        _ => return Some(Vec::new()),
    };
    out.sort();
    Some(out)
}

/// The production solver's answer, in the reference's terms.
fn production(
    pos: &Chess,
    stipulation: Stipulation,
    config: Config,
    kept: &Arc<Table>,
    pools: &Pools,
    summary: &mut Summary,
) -> Result<Vec<String>, String> {
    let deadline = Some(Instant::now() + PRODUCTION_BUDGET);
    let (pool, solver) = match config {
        Config::OneThreadFresh => (&pools.one, Solver::new(deadline)),
        Config::OneThreadKept => (
            &pools.one,
            Solver::new(deadline).with_table(Arc::clone(kept)),
        ),
        Config::TwoThreadsSplit => (
            &pools.two,
            Solver::new(deadline)
                .with_table(Arc::clone(kept))
                .with_parallelism(Parallelism::Split),
        ),
        Config::TwoThreadsLazy => (
            &pools.two,
            Solver::new(deadline)
                .with_table(Arc::clone(kept))
                .with_parallelism(Parallelism::Lazy),
        ),
    };
    let mut solver = solver.with_recognizers(Arc::clone(&pools.recognizers));
    let found = pool.install(|| solver.solve(pos, stipulation));
    summary.recognized_nodes += solver.stats().recognized;
    let found = found
        .map_err(|e| e.to_string())?
        .map_err(|_| format!("unfinished within {PRODUCTION_BUDGET:?}"))?;
    let mut out: Vec<String> = match found {
        Found::Keys(keys) => keys
            .into_iter()
            .map(|k| format!("{}/{}", k.uci, k.length))
            .collect(),
        Found::Lines(lines) => lines.into_iter().map(|l| l.uci.join(" ")).collect(),
    };
    out.sort();
    Ok(out)
}

/// Problems with no solution are most of what random positions give; the
/// bugs that matter hide in those with one. So half the case slots are
/// drawn again (up to this many times) until the reference finds a
/// solution; every draw on the way is judged too, so no reference work is
/// thrown away.
const DRAWS_FOR_A_SOLUTION: usize = 20;
/// The thread pools the configurations run on.
struct Pools {
    one: rayon::ThreadPool,
    two: rayon::ThreadPool,
    /// As the mate stage has them: every configuration searches with them.
    recognizers: Arc<Registry>,
}

/// Fills `count` case slots from `seed`: each slot is one planted
/// helpmate and one or more drawn mate problems (half the slots draw
/// until the reference finds a solution, up to 20 times), each judged by both solvers in the
/// configurations taken in turn; along the way, two positions of one
/// random game per four slots go through the legality stage, which must
/// never call them illegal. `progress` is called every 1000 slots.
pub fn run(seed: u64, count: u64, mut progress: impl FnMut(u64, &Summary)) -> Summary {
    let pools = Pools {
        one: pool(1),
        two: pool(2),
        recognizers: Arc::new(Registry::new()),
    };
    let kept = Arc::new(Table::sized(16, 20));
    let mut summary = Summary::default();
    let mut rng = Rng::new(seed);
    for index in 0..count {
        planted_help(&mut rng, &mut summary, seed, index, &kept, &pools);
        // Legality costs more per case than a mate case: one game in four.
        if index % 4 == 0 {
            legality_of_game(&mut rng, &mut summary, seed, index);
        }
        // The recognizers' pruning, on their own materials, drawn until
        // one has a solution: a wrong cut only shows where there is a mate
        // to lose, and random placements of these materials seldom have one.
        for _ in 0..DRAWS_FOR_A_SOLUTION {
            let (pos, stipulation) = recognizer_case(&mut rng);
            if mate_check(&pos, stipulation, seed, index, &mut summary, &kept, &pools) {
                break;
            }
        }
        let draws = if rng.chance(50) {
            DRAWS_FOR_A_SOLUTION
        } else {
            1
        };
        for _ in 0..draws {
            let (pos, stipulation) = mate_case(&mut rng);
            if mate_check(&pos, stipulation, seed, index, &mut summary, &kept, &pools) {
                break;
            }
        }
        if (index + 1) % 1000 == 0 {
            progress(index + 1, &summary);
        }
    }
    summary
}

/// One mate case judged by both solvers (the configurations go round case
/// by case); true when the reference found a solution. A case beyond the
/// reference's nodes is counted as skipped.
fn mate_check(
    pos: &Chess,
    stipulation: Stipulation,
    seed: u64,
    index: u64,
    summary: &mut Summary,
    kept: &Arc<Table>,
    pools: &Pools,
) -> bool {
    let Some(want) = reference(pos, stipulation) else {
        summary.skipped += 1;
        return false;
    };
    let config = Config::ALL[(summary.cases % Config::ALL.len() as u64) as usize];
    let got = production(pos, stipulation, config, kept, pools, summary);
    summary.cases += 1;
    summary.with_solutions += u64::from(!want.is_empty());
    if got.as_ref() != Ok(&want) {
        summary.disagreements.push(format!(
            "seed {seed} case {index} {config:?}: {} ; {stipulation}: reference {want:?}, production {got:?}",
            fen(pos)
        ));
    }
    !want.is_empty()
}

/// A helpmate with a planted solution (a random line that happens to
/// mate, see [`super::generate::planted_line`]), longer and with more
/// units than the reference can walk: the production solver must list
/// that line among its solutions. Cheap, so every case has one.
fn planted_help(
    rng: &mut Rng,
    summary: &mut Summary,
    seed: u64,
    index: u64,
    kept: &Arc<Table>,
    pools: &Pools,
) {
    // Longer lines, or more units, can have millions of solutions, which
    // the production solver lists one by one: seven plies with six units
    // gave up to 4.5 million (k7/2K5/8/4N3/8/8/5p1p/2R5 w, h#3.5: 40 s and
    // 3 GB to list them), so the lines stop at six plies (h#3).
    let plies = 3 + rng.below(4) as u32;
    let goal = super::generate::random_goal(rng);
    let stipulation = Stipulation::Help { plies, goal };
    let units = 4 + rng.below(3);
    let Some((pos, line)) =
        super::generate::planted_line(rng, plies, goal, units, stipulation.side_to_move())
    else {
        return;
    };
    let line = line
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let config = Config::ALL[index as usize % Config::ALL.len()];
    summary.planted += 1;
    let got = production(&pos, stipulation, config, kept, pools, summary);
    if !got.as_ref().is_ok_and(|lines| lines.contains(&line)) {
        summary.disagreements.push(format!(
            "seed {seed} case {index} {config:?}: {} ; {stipulation}: the planted solution {line} is missing, production {got:?}",
            fen(&pos)
        ));
    }
}

/// The legality stage alone on `games` random games from `seed` (four
/// positions each, see `legality_of_game`); `progress` is called every
/// 1000 games.
pub fn run_legality(seed: u64, games: u64, mut progress: impl FnMut(u64, &Summary)) -> Summary {
    let mut summary = Summary::default();
    let mut rng = Rng::new(seed);
    for index in 0..games {
        legality_of_game(&mut rng, &mut summary, seed, index);
        if (index + 1) % 1000 == 0 {
            progress(index + 1, &summary);
        }
    }
    summary
}

/// One random game (sparse by its end when capture-heavy): no position of
/// it may be called illegal, with its castling rights and with its en
/// passant square as FEN writes it after every double step.
fn legality_of_game(rng: &mut Rng, summary: &mut Summary, seed: u64, index: u64) {
    let longest = if rng.chance(50) { 40 } else { 250 };
    let plies = 1 + rng.below(longest);
    let captures = rng.chance(70);
    let (_, positions) = super::generate::random_game(rng, plies, captures);
    // The last position, and one drawn from the way there.
    let picks = [positions.len() - 1, rng.below(positions.len())];
    for i in picks {
        let pos = &positions[i];
        for mode in [
            shakmaty::EnPassantMode::Legal,
            shakmaty::EnPassantMode::Always,
        ] {
            let setup = pos.to_setup(mode);
            let report = legality::check(&setup);
            summary.legality_cases += 1;
            if report.status == legality::Status::Illegal {
                summary.disagreements.push(format!(
                    "seed {seed} case {index}: legality calls a game position illegal: {} ({:?})",
                    shakmaty::fen::Fen::try_from_setup(setup)
                        .map(|f| f.to_string())
                        .unwrap_or_default(),
                    report.reasons
                ));
            }
        }
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}
