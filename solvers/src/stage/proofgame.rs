//! The solve stage for proof games (`SPG n`): runs the proof-game search
//! ([`crate::proofgame`]) and turns its outcome into the verdict's
//! `solutions`, `n_solutions` and verdict word.

use std::time::{Duration, Instant};

use super::options::SolveOptions;
use super::Resources;
use crate::legality::Status;
use crate::problem::Problem;
use crate::proofgame::{
    self, Estimate, Judgement, Ledger, Options, Progress, ProofGameError, Rights,
};
use crate::verdict::{Kind, Verdict};

/// What a long search reports to, besides the verdict.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// Hears from long searches now and then.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Keeps finished work items, so that a search cut short goes on
    /// where it stopped (see [`Ledger`]).
    pub ledger: Option<&'a dyn Ledger>,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("progress", &self.progress.is_some())
            .field("ledger", &self.ledger.is_some())
            .finish()
    }
}

/// The search options of the stage for `problem`.
fn search_options<'a>(
    problem: &Problem,
    options: &SolveOptions,
    resources: &'a Resources,
    hooks: Hooks<'a>,
) -> Options<'a> {
    Options {
        deadline: Some(Instant::now() + Duration::from_secs_f64(options.budget_s.max(0.0))),
        hash_mb: options.hash_mb,
        table: Some(resources.search_table(options.hash_mb)),
        sync_depth: options.spg_sync_depth,
        progress: hooks.progress,
        ledger: hooks.ledger,
        rights: stated_rights(problem),
        ..Options::default()
    }
}

/// The size of the search [`run`] would make (see [`proofgame::estimate`]):
/// counted up to `count_nodes` nodes per length, extrapolated beyond.
pub fn estimate(
    problem: &Problem,
    plies: u32,
    options: &SolveOptions,
    resources: &Resources,
    count_nodes: u64,
) -> Result<Estimate, ProofGameError> {
    let search = search_options(problem, options, resources, Hooks::default());
    proofgame::estimate(&problem.setup.board, plies, &search, count_nodes)
}

/// Fills in `verdict` for the proof game `problem` of `plies` half-moves.
pub fn run(
    problem: &Problem,
    plies: u32,
    options: &SolveOptions,
    resources: &Resources,
    hooks: Hooks,
    verdict: &mut Verdict,
) {
    let search = search_options(problem, options, resources, hooks);
    let outcome = match proofgame::solve(&problem.setup.board, plies, &search) {
        Ok(outcome) => outcome,
        Err(e) => {
            verdict.notes.push(format!("proof game not searched: {e}"));
            return;
        }
    };
    let mut lines = outcome.exact.lines.clone();
    let mut count = outcome.exact.count;
    for short in &outcome.short {
        lines.extend(short.lines.iter().cloned());
        count += short.count;
    }
    verdict.verdict = Kind::from(outcome.judgement);
    if outcome.judgement != Judgement::Illegal {
        verdict.n_solutions = Some(count as usize);
        verdict.solutions = Some(lines);
    }
    let listed = verdict.solutions.as_ref().map_or(0, Vec::len);
    let complete = outcome.exact.complete && outcome.short.iter().all(|g| g.complete);
    if !complete && count > 0 {
        verdict.notes.push(format!(
            "at least {count} proof games (not all were counted); \
             the first {listed} found are listed"
        ));
    } else if count as usize > listed {
        verdict.notes.push(format!(
            "{count} proof games in all; the first {listed} are listed"
        ));
    }
    verdict.notes.extend(outcome.notes);
    settle_legality(verdict);
}

/// The final rights `problem` states (see [`crate::problem::Stated`]).
fn stated_rights(problem: &Problem) -> Rights {
    let (setup, stated) = (&problem.setup, problem.stated);
    Rights {
        castling: stated.castling.then_some(setup.castling_rights),
        en_passant: stated.en_passant.then_some(setup.ep_square),
    }
}

/// A game the search found proves the diagram legal when the legality stage
/// left it undecided. A proof-game diagram is a board and, by the length's
/// parity, the side to move, which every game found reaches; castling
/// rights and en passant are not part of it (the search's goal leaves them
/// open too).
fn settle_legality(verdict: &mut Verdict) {
    let game = verdict.solutions.iter().flatten().next();
    if let (Some(legality), Some(game)) = (verdict.legality.as_mut(), game) {
        if legality.status == Status::Undecided {
            legality.prove_by_game(game, " (found by the solve stage)");
        }
    }
}
