//! The solve stage for `#n`, `s#n` and `h#n`: every key or solution within
//! the budget ([`crate::mate`]); `unsolved` with what was found when the
//! budget runs out. A sound direct or self mate gets its solution tree,
//! with tries and duals as the cooks stage's options say.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, FromSetup, Position};

use super::options::{CooksOptions, SolveOptions, TablebaseOptions};
use super::Resources;
use crate::mate::tree::{self, Limits};
use crate::mate::{Found, Solver};
use crate::problem::Problem;
use crate::recognizer::Registry;
use crate::stipulation::Stipulation;
use crate::verdict::{Kind, Verdict};

/// Whether this stage solves `stipulation`.
pub fn solves(stipulation: Stipulation) -> bool {
    matches!(
        stipulation,
        Stipulation::Direct { .. } | Stipulation::SelfMate { .. } | Stipulation::Help { .. }
    )
}

/// The recognizers, with the tablebase stage's table folder at hand where
/// there is one (those that read smaller tables read them there).
fn recognizers(resources: &Resources, tables: Option<&TablebaseOptions>) -> Arc<Registry> {
    match tables.and_then(TablebaseOptions::folder) {
        Some(dir) => resources.recognizers_in(&resources.dtm(&dir)),
        None => Arc::clone(resources.recognizers()),
    }
}

/// Fills in `keys` (direct and self mates) or `solutions` (helpmates),
/// the verdict word, and a sound problem's `tree`. `cooks`, when that stage
/// is configured, decides whether the tree comes with tries and duals
/// (neither without it). The recognizers read smaller tables from the
/// tablebase stage's folder (`tables`), when that stage is configured.
pub fn run(
    problem: &Problem,
    (options, cooks, tables): (
        &SolveOptions,
        Option<&CooksOptions>,
        Option<&TablebaseOptions>,
    ),
    resources: &Resources,
    verdict: &mut Verdict,
) {
    let pos = match Chess::from_setup(problem.setup.clone(), CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(e) => {
            verdict
                .notes
                .push(format!("not solved: the position is not playable ({e})"));
            return;
        }
    };
    if pos.legal_moves().is_empty() {
        let state = if pos.is_check() {
            "checkmated"
        } else {
            "stalemated"
        };
        verdict.notes.push(format!(
            "the side to move is already {state} in the diagram: nothing can be played"
        ));
    }
    let deadline = Instant::now() + Duration::from_secs_f64(options.budget_s.max(0.0));
    let mut solver = Solver::with_hash(Some(deadline), options.hash_mb)
        .with_table(Arc::clone(resources.search_table(options.hash_mb)))
        .with_recognizers(recognizers(resources, tables))
        .with_parallelism(options.parallel.to_solver());
    let (found, unfinished) = match solver.solve(&pos, problem.stipulation) {
        Ok(Ok(found)) => (found, None),
        Ok(Err(partial)) => (partial.found.clone(), Some(partial)),
        Err(e) => {
            verdict.verdict = Kind::Error;
            verdict.error = Some(format!("{}: {e}", verdict.file));
            return;
        }
    };
    let count = match found {
        Found::Keys(keys) => {
            let n = keys.len();
            verdict.keys = Some(keys);
            n
        }
        Found::Lines(lines) => {
            let n = lines.len();
            verdict.solutions = Some(lines);
            verdict.n_solutions = Some(n);
            n
        }
    };
    let intended = match problem.stipulation {
        Stipulation::Help { .. } => problem.intended_solutions.unwrap_or(1) as usize,
        _ => 1,
    };
    verdict.verdict = match unfinished {
        None => Kind::of_count(count, intended),
        Some(partial) => {
            verdict.notes.push(format!(
                "budget of {} s ran out: {} of {} first moves examined, {count} found so far",
                options.budget_s, partial.examined, partial.total
            ));
            Kind::Unsolved
        }
    };
    if verdict.verdict == Kind::Sound && !matches!(problem.stipulation, Stipulation::Help { .. }) {
        add_tree(&mut solver, &pos, problem, cooks, verdict);
    }
}

/// The solution tree of a sound direct or self mate, from the solver that
/// just solved it (its table is full and its deadline still holds).
fn add_tree(
    solver: &mut Solver,
    pos: &Chess,
    problem: &Problem,
    cooks: Option<&CooksOptions>,
    verdict: &mut Verdict,
) {
    let Some(key) = verdict.keys.as_ref().and_then(|k| k.first()).cloned() else {
        return;
    };
    match tree::build(
        solver,
        pos,
        problem.stipulation,
        &key.uci,
        Limits {
            tries: cooks.is_some_and(|c| c.tries),
            ..Limits::default()
        },
    ) {
        Ok(mut tree) => {
            if cooks.is_some_and(|c| c.duals) {
                verdict.duals = Some(tree.duals.clone());
            } else {
                tree.duals.clear();
                tree.black_duals.clear();
            }
            if cooks.is_some_and(|c| c.tries) {
                verdict.tries = Some(tree.tries.clone());
            }
            verdict.tree = Some(tree);
        }
        Err(e) => verdict.notes.push(format!("no solution tree: {e}")),
    }
}
