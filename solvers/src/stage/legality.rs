//! The legality stage: the static layers of [`crate::legality`], then a
//! short proof-game search for a diagram they leave undecided (the game
//! found is the evidence).

use std::time::{Duration, Instant};

use shakmaty::Setup;

use crate::legality::{self, Status};
use crate::problem::Problem;
use crate::proofgame;
use crate::verdict::{Kind, Legality, Verdict};

/// Longest proof game the legality stage looks for.
const PROOF_PLIES: u32 = 12;
/// Time the legality stage spends looking for one: a diagram the static
/// layers leave undecided costs at most this much latency.
const PROOF_TIME: Duration = Duration::from_millis(300);

/// Fills in `verdict.legality`; an illegal diagram makes the verdict
/// `illegal`.
pub fn run(problem: &Problem, verdict: &mut Verdict) {
    let report = legality::check(&problem.setup);
    if report.status == Status::Illegal {
        verdict.verdict = Kind::Illegal;
    }
    let undecided = report.status == Status::Undecided;
    let mut legality = Legality::from(report);
    if undecided {
        prove_legal(&problem.setup, &mut legality);
    }
    verdict.legality = Some(legality);
}

/// Settles an `undecided` legality report with a proof game when a short one
/// exists (the game is the evidence); leaves it undecided otherwise.
fn prove_legal(setup: &Setup, legality: &mut Legality) {
    if let Some(game) = proofgame::prove(setup, PROOF_PLIES, Instant::now() + PROOF_TIME) {
        legality.prove_by_game(&game, "");
    }
}
