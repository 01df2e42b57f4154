//! A deeper retraction search: every chain of retractions from the diagram
//! must end, within a few plies, in a position that fails the static tests
//! (the cheap layer, [`super::static_flaws`] and [`super::parity`]).
//!
//! The search first looks for one chain of possible positions as deep as
//! it may go, which settles most diagrams (alive); a diagram it does not
//! settle so is searched back ply by ply (iterative deepening), for the
//! least depth within which it dies. A position is
//! dead when it fails the static tests or when every retraction from it
//! leads to a dead position. Dead positions are remembered (being dead is
//! a fact, whatever the depth). A flaw is reported only when the diagram
//! itself is proven dead; when a depth or work limit is reached, or the
//! initial array (or a position with an en-passant square, whose last move
//! is fixed) is met, nothing is said.

use crate::fxhash::{FxHashMap, FxHashSet};

use shakmaty::{Color, Setup};

use super::facts::Facts;
use super::lastmove::{is_initial, retractions, Retraction, Undo};
use super::{parity, pawn_infos, PawnMaterialVerdicts};
use crate::legality::{Flaw, Reason};

/// Whether a position passes the static tests and the parity test.
fn possible(setup: &Setup, verdicts: &mut PawnMaterialVerdicts) -> bool {
    if !crate::legality::cheap::check(setup).is_empty()
        || super::has_static_flaw_with(setup, verdicts)
    {
        return false;
    }
    let infos = pawn_infos(setup);
    match &infos {
        [Some(white), Some(black)] => {
            let facts = Facts::new(setup, &infos);
            parity::check(setup, &facts, white, black).is_none()
        }
        _ => true,
    }
}

/// Whether a retraction takes back a piece move that captured nothing.
fn keeps_pawns_and_material(r: &Retraction) -> bool {
    match r.undo {
        Undo::Move {
            from,
            promoted: None,
            uncaptured: None,
            ..
        } => !r.before.board.pawns().contains(from),
        _ => false,
    }
}

/// Deepest search, in plies (retractions).
pub const MAX_PLIES: usize = 10;
/// Positions judged by the static tests before giving up.
pub const MAX_WORK: usize = 200_000;

struct Search {
    dead: FxHashSet<Setup>,
    /// Positions not proven dead with this many plies left.
    failed: FxHashMap<Setup, usize>,
    possible: FxHashMap<Setup, bool>,
    verdicts: PawnMaterialVerdicts,
    work: usize,
}

impl Search {
    /// A search that may judge `work` positions.
    fn new(work: usize) -> Search {
        Search {
            dead: FxHashSet::default(),
            failed: FxHashMap::default(),
            possible: FxHashMap::default(),
            verdicts: PawnMaterialVerdicts::default(),
            work,
        }
    }

    fn possible(&mut self, setup: &Setup) -> Option<bool> {
        if let Some(&p) = self.possible.get(setup) {
            return Some(p);
        }
        self.work = self.work.checked_sub(1)?;
        let p = possible(setup, &mut self.verdicts);
        self.possible.insert(setup.clone(), p);
        Some(p)
    }

    /// Whether every chain of retractions from `setup` (a position that
    /// passes the static tests) dies within `plies`. `Some(false)`: not
    /// proven; `None`: the work limit ran out.
    fn dead(&mut self, setup: &Setup, plies: usize) -> Option<bool> {
        if self.dead.contains(setup) {
            return Some(true);
        }
        if plies == 0 || setup.ep_square.is_some() || is_initial(setup) {
            return Some(false);
        }
        if self.failed.get(setup).is_some_and(|&p| p >= plies) {
            return Some(false);
        }
        // Retractions of piece moves that took nothing first: they keep
        // the pawns and the material, whose verdicts are remembered, and
        // most chains that stay possible are made of them.
        let all = retractions(setup);
        let (quiet, others): (Vec<&Retraction>, Vec<&Retraction>) =
            all.iter().partition(|r| keeps_pawns_and_material(r));
        for r in quiet.into_iter().chain(others) {
            if self.possible(&r.before)? && !self.dead(&r.before, plies - 1)? {
                let slot = self.failed.entry(setup.clone()).or_insert(0);
                *slot = (*slot).max(plies);
                return Some(false);
            }
        }
        self.dead.insert(setup.clone());
        Some(true)
    }
}

/// Whether one chain of possible positions goes back [`MAX_PLIES`] plies
/// from the diagram (within [`MAX_WORK`] static judgements), or ends at
/// the initial array or a fixed last move: the diagram is then alive at
/// every depth (a chain's prefix is a chain). Most diagrams are, and one
/// chain settles them, where deepening ply by ply would follow that chain
/// again at every depth.
pub fn alive(setup: &Setup) -> bool {
    alive_with(setup, MAX_PLIES, MAX_WORK)
}

fn alive_with(setup: &Setup, max_plies: usize, max_work: usize) -> bool {
    setup.ep_square.is_some()
        || is_initial(setup)
        || Search::new(max_work).dead(setup, max_plies) == Some(false)
}

/// `NoLastMove` when every chain of retractions from a diagram that is
/// not [`alive`] dies within [`MAX_PLIES`] plies (and [`MAX_WORK`] static
/// judgements).
pub fn check(setup: &Setup) -> Option<Reason> {
    least_dead_depth(setup, MAX_PLIES, MAX_WORK).map(|plies| {
        let mover = !setup.turn;
        let name = if mover == Color::White {
            "White"
        } else {
            "Black"
        };
        let detail = format!(
            "{name} moved last, but every sequence of retractions from the diagram reaches, \
             within {plies} plies, only positions that are impossible (material, pawn \
             structure, units traced to original ones, checks, move-count parity): no game \
             leads here"
        );
        Reason::new(Flaw::NoLastMove, Some(mover), detail)
    })
}

/// The least number of plies within which every retraction chain dies,
/// deepening ply by ply, if found.
fn least_dead_depth(setup: &Setup, max_plies: usize, max_work: usize) -> Option<usize> {
    if setup.ep_square.is_some() || is_initial(setup) {
        return None;
    }
    let mut search = Search::new(max_work);
    (1..=max_plies).find_map(|plies| search.dead(setup, plies)?.then_some(plies))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().unwrap().into_setup()
    }

    const LEG061: &str = "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w kq - 0 1";

    /// The castling vampire image: every retraction chain dies within nine
    /// plies (some 160k static judgements).
    #[test]
    fn leg061_dies_within_nine_plies() {
        assert_eq!(check_with(&setup(LEG061), MAX_PLIES, MAX_WORK), Some(9));
        assert_eq!(
            check(&setup(LEG061)).map(|r| r.flaw),
            Some(Flaw::NoLastMove)
        );
    }

    /// Its legal twins never die, under the real limits.
    #[test]
    fn leg061_twins_do_not_die() {
        for fen in [
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1BR1 w kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R b kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w - - 0 1",
        ] {
            assert!(check(&setup(fen)).is_none(), "{fen}");
        }
    }

    /// What [`super::super::check`] asks of this module: the first chain,
    /// then, for a diagram not alive, the deepening.
    fn check_with(setup: &Setup, max_plies: usize, max_work: usize) -> Option<usize> {
        if alive_with(setup, max_plies, max_work) {
            return None;
        }
        least_dead_depth(setup, max_plies, max_work)
    }

    /// On every diagram of the legality corpora and the mate corpus (other
    /// solvers' verdicts), under the real limits, the search answers as
    /// plain deepening does: the same least depth for the dead ones,
    /// nothing for the others.
    #[test]
    fn the_chain_search_answers_as_deepening_does() {
        use crate::testing::{data, read_csv};
        let (mut compared, mut dead) = (0, 0);
        for file in ["legality.csv", "sherlock_legality.csv", "mate.csv"] {
            for row in read_csv(&data(file)) {
                let Ok(fen) = row["fen"].parse::<Fen>() else {
                    continue;
                };
                let s = fen.into_setup();
                let want = least_dead_depth(&s, MAX_PLIES, MAX_WORK);
                assert_eq!(check_with(&s, MAX_PLIES, MAX_WORK), want, "{}", row["fen"]);
                compared += 1;
                dead += usize::from(want.is_some());
            }
        }
        assert!(compared >= 250, "only {compared} diagrams compared");
        assert!(dead >= 1, "no dead diagram compared");
    }

    /// The retro layer skips the last-move test for a diagram found alive;
    /// on every diagram of the corpora, that test would have found nothing.
    #[test]
    fn an_alive_diagram_has_a_last_move() {
        use crate::legality::retro::lastmove;
        use crate::testing::{data, read_csv};
        let mut alive = 0;
        for file in ["legality.csv", "sherlock_legality.csv", "mate.csv"] {
            for row in read_csv(&data(file)) {
                let Ok(fen) = row["fen"].parse::<Fen>() else {
                    continue;
                };
                let s = fen.into_setup();
                if super::alive(&s) {
                    assert_eq!(lastmove::check(&s), None, "{}", row["fen"]);
                    alive += 1;
                }
            }
        }
        assert!(alive >= 200, "only {alive} alive diagrams");
    }

    #[test]
    fn initial_array_is_left_alone() {
        assert_eq!(
            check_with(
                &setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
                4,
                1000
            ),
            None
        );
    }

    /// Soundness: positions from random games never die.
    #[test]
    fn random_game_positions_never_die() {
        use crate::testing::{captures_half, random_games};
        use shakmaty::{EnPassantMode, Position};
        for (game, positions) in random_games(29, 6, 50, captures_half).iter().enumerate() {
            // Every fifth position after the first move.
            for (ply, pos) in positions.iter().enumerate().skip(5).step_by(5) {
                let s = pos.to_setup(EnPassantMode::Legal);
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                assert_eq!(
                    check_with(&s, 4, 1500),
                    None,
                    "game {game} ply {ply}: {fen}"
                );
            }
        }
    }
}
