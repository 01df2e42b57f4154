//! The legality stage on games in which the pawns stay at home (nearly):
//! every unit is then shut in a pocket behind them, and the retro layer's
//! parity and pocket rules (a piece taken at home without having moved, a
//! pawn that checks a king that never moved) are at work on every
//! position. Random games of piece moves, knights' captures at home above
//! all, with a rare pawn step; no position a game reaches may be called
//! illegal. The games come from a fixed seed, so a failure names a game
//! that can be replayed.

use shakmaty::{EnPassantMode, Move, Position};
use solvers::legality::{self, Status};
use solvers::oracle::Rng;

const GAMES: usize = 300;
const PLIES: usize = 60;

/// A piece move (captures first, half the time), or a pawn move one time
/// in twenty; `None` when the game is over.
fn pick(rng: &mut Rng, moves: &[Move]) -> Option<Move> {
    let pieces: Vec<&Move> = moves
        .iter()
        .filter(|m| m.role() != shakmaty::Role::Pawn)
        .collect();
    let captures: Vec<&&Move> = pieces.iter().filter(|m| m.is_capture()).collect();
    if !captures.is_empty() && rng.chance(50) {
        return Some(**captures[rng.below(captures.len())]);
    }
    if pieces.is_empty() || rng.chance(5) {
        return (!moves.is_empty()).then(|| moves[rng.below(moves.len())]);
    }
    Some(*pieces[rng.below(pieces.len())])
}

#[test]
fn positions_of_games_with_pawns_at_home_are_never_illegal() {
    let mut rng = Rng::new(0x706f_636b_6574);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for game in 0..GAMES {
        let mut pos = shakmaty::Chess::default();
        for ply in 0..PLIES {
            let Some(m) = pick(&mut rng, &pos.legal_moves()) else {
                break;
            };
            pos.play_unchecked(m);
            let setup = pos.to_setup(EnPassantMode::Legal);
            let report = legality::check(&setup);
            checked += 1;
            if report.status == Status::Illegal {
                wrong.push(format!(
                    "game {game} ply {ply}: {} ({:?})",
                    shakmaty::fen::Fen::try_from_setup(setup)
                        .map(|f| f.to_string())
                        .unwrap_or_default(),
                    report.reasons
                ));
            }
        }
    }
    assert!(checked > GAMES * PLIES / 2, "only {checked} positions");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
