//! Stalemate, decided without shakmaty's full move lists: whether the side
//! to move is stalemated, and which moves may stalemate the other side.
//!
//! The stalemate searches (`=n`, `h=n`, `s=n`) spend most of their time at
//! the last move, where each move used to be played and the other side's
//! every legal move listed. Here the test stops at the first unit that can
//! move, and a move that leaves some unit of the other side a move it has
//! now is not played at all.

use shakmaty::{attacks, Bitboard, Chess, EnPassantMode, Move, Position, Role, Square};

use crate::checking::{lone_blockers, pawn_steps};

/// Is the side to move in `pos` stalemated? En passant and castling rights
/// go to shakmaty (an en passant capture can be illegal in ways a pin test
/// misses; castling rights are rare at leaves).
pub fn is_stalemate(pos: &Chess) -> bool {
    if pos.is_check() {
        return false;
    }
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return pos.legal_moves().is_empty();
    };
    if pos.ep_square(EnPassantMode::Legal).is_some() || pos.castles().has_color(turn) {
        return pos.legal_moves().is_empty();
    }
    let ours = board.by_color(turn);
    let without_king = board.occupied().without(king);
    let flight = attacks::king_attacks(king) & !ours;
    if flight
        .into_iter()
        .any(|to| board.attacks_to(to, !turn, without_king).is_empty())
    {
        return false;
    }
    // Not in check, so a unit that is not pinned may make any of its
    // pseudo-legal moves, and a pinned one those along its pin line.
    mobile(pos, turn).next().is_none()
}

/// The units of `side` but the king that have a move in `pos`, with their
/// targets, when `side`'s king is not in check (whoever is to move).
fn mobile(
    pos: &Chess,
    side: shakmaty::Color,
) -> impl Iterator<Item = (Square, Role, Bitboard)> + '_ {
    let board = pos.board();
    let occupied = board.occupied();
    let ours = board.by_color(side);
    let theirs = board.by_color(!side);
    let king = board.king_of(side);
    let pinned = king.map_or(Bitboard::EMPTY, |k| lone_blockers(pos, !side, k) & ours);
    (ours & !board.kings()).into_iter().filter_map(move |from| {
        let piece = board.piece_at(from)?;
        let mut targets = match piece.role {
            Role::Pawn => pawn_steps(side, from, occupied, theirs),
            _ => attacks::attacks(from, piece, occupied) & !ours,
        };
        if let (true, Some(king)) = (pinned.contains(from), king) {
            targets &= attacks::ray(king, from);
        }
        targets.any().then_some((from, piece.role, targets))
    })
}

/// A unit of the side to be stalemated that can move now, and what one
/// move of the other side must do to take all its moves away.
#[derive(Debug, Clone, Copy)]
struct Mobile {
    sq: Square,
    /// The squares beyond the unit on its line from its king: a unit of
    /// the mover arriving there may pin it.
    beyond: Bitboard,
    /// Those and the squares between the unit and its king: a unit of the
    /// mover leaving one of them may uncover a slider that pins it.
    line: Bitboard,
    /// For a pawn: the square its push goes through (occupying it stops
    /// both pushes), and its captures (a captured unit that moves away
    /// takes one).
    pawn: Option<(Option<Square>, Bitboard)>,
}

impl Mobile {
    /// May the move from `from` to `to` take every move of this unit away?
    /// A unit keeps each move it has unless it is captured, pinned, its
    /// push square is filled, or the unit it captures leaves: any other
    /// change only adds moves, or gives check (which is no stalemate).
    fn may_lose_its_moves(&self, from: Square, to: Square) -> bool {
        self.sq == to
            || self.beyond.contains(to)
            || self.line.contains(from)
            || self.pawn.is_some_and(|(push, captures)| {
                push.is_none_or(|push| push == to) && captures.without(from).is_empty()
            })
    }
}

/// Which moves of the side to move may stalemate the other side (see
/// [`StalemateTest::new`]).
#[derive(Debug, Clone)]
pub struct StalemateTest {
    /// In a fixed array: the test is made at every last-move node, where
    /// a heap allocation would cost as much as the test.
    units: [Option<Mobile>; 15],
    /// The squares a stalemating move may go to: every unit off its king's
    /// lines can only lose its moves by being captured (a pawn also by
    /// having its push filled).
    to: Bitboard,
}

impl StalemateTest {
    /// The test for the side to move's moves in `pos`; `None` where it
    /// cannot tell (the other side has no king, castling rights, or more
    /// than sixteen units).
    pub fn new(pos: &Chess) -> Option<StalemateTest> {
        let side = !pos.turn();
        let king = pos.board().king_of(side)?;
        // Fifteen units besides the king at most, as in any legal position
        // (the array below holds no more).
        if pos.castles().has_color(side) || pos.board().by_color(side).count() > 16 {
            return None;
        }
        let mut test = StalemateTest {
            units: [None; 15],
            to: Bitboard::FULL,
        };
        for ((sq, role, targets), unit) in mobile(pos, side).zip(&mut test.units) {
            // The line through king and unit, from the unit outwards: the
            // unit's lines on a board holding only the king stop at the
            // king, so they leave out the line's far side of the king.
            let beyond = attacks::ray(king, sq)
                & attacks::queen_attacks(sq, Bitboard::from(king))
                & !attacks::between(king, sq)
                & !Bitboard::from(king);
            let pawn = (role == Role::Pawn).then(|| {
                let captures = targets & attacks::pawn_attacks(side, sq);
                let push = (targets & !captures)
                    .into_iter()
                    .min_by_key(|&x| sq.distance(x));
                (push, captures)
            });
            if beyond.is_empty() {
                test.to &= match pawn {
                    Some((_, captures)) if captures.count() >= 2 => Bitboard::from(sq),
                    Some((Some(push), _)) => Bitboard::from(sq).with(push),
                    Some((None, _)) => Bitboard::FULL,
                    None => Bitboard::from(sq),
                };
                if test.to.is_empty() {
                    // Hopeless: the other units no longer matter.
                    return Some(test);
                }
            }
            let line = beyond | attacks::between(king, sq);
            *unit = Some(Mobile {
                sq,
                beyond,
                line,
                pawn,
            });
        }
        Some(test)
    }

    /// No move can stalemate: the units off their king's lines ask for
    /// different squares.
    pub fn hopeless(&self) -> bool {
        self.to.is_empty()
    }

    /// May the legal move `m` stalemate the other side? False only when
    /// it surely does not. Castling and en passant are let through.
    pub fn may_stalemate(&self, m: &Move) -> bool {
        let Move::Normal { from, to, .. } = *m else {
            return true;
        };
        self.to.contains(to)
            && self
                .units
                .iter()
                .flatten()
                .all(|u| u.may_lose_its_moves(from, to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Color, FromSetup, Piece, Setup};

    use crate::testing::{any_move, position, random_games_from, Lcg};

    /// `is_stalemate` agrees with shakmaty at every node of random games
    /// from positions full of pins, promotions, castling rights and en
    /// passant, and on stalemates built by hand.
    #[test]
    fn stalemate_test_agrees_with_shakmaty() {
        let stalemates = [
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/P7/1K6/8/8/8/8/8 b - - 0 1",
            // The Black pawn, pinned on the diagonal, may not push.
            "8/1B6/8/8/8/7K/4N1p1/7k b - - 0 1",
        ];
        for fen in stalemates {
            let pos = position(fen);
            assert!(pos.is_stalemate(), "{fen}");
            assert!(is_stalemate(&pos), "{fen}");
        }
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "7k/5Q2/6p1/6P1/8/1p6/1P6/K7 w - - 0 1",
            "4k3/4p3/4P3/8/1b6/8/3P4/4K3 w - - 0 1",
            "8/1p6/1P6/8/5b2/4p3/4P1B1/k3K3 b - - 0 1",
        ];
        let mut stalemated = 0;
        for fen in fens {
            for game in random_games_from(&position(fen), 11, 200, 80, any_move) {
                for pos in game {
                    let fast = is_stalemate(&pos);
                    assert_eq!(
                        fast,
                        pos.is_stalemate(),
                        "{}",
                        Fen::from_position(&pos, EnPassantMode::Legal)
                    );
                    stalemated += usize::from(fast);
                }
            }
        }
        assert!(stalemated > 0, "no stalemate met");
    }

    /// A legal position of few units, most of them pawns, with White to
    /// move: where stalemates are common.
    fn sparse(rng: &mut Lcg) -> Option<Chess> {
        let mut setup = Setup::empty();
        let mut place = |piece: Piece, rng: &mut Lcg| {
            let sq = Square::new(rng.next(64) as u32);
            let back_rank = matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
            if setup.board.piece_at(sq).is_none() && !(piece.role == Role::Pawn && back_rank) {
                setup.board.set_piece_at(sq, piece);
            }
        };
        place(Color::White.king(), rng);
        place(Color::Black.king(), rng);
        let roles = [
            Role::Pawn,
            Role::Pawn,
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ];
        for color in [Color::White, Color::Black] {
            for _ in 0..1 + rng.next(4) {
                place(
                    Piece {
                        color,
                        role: roles[rng.next(roles.len())],
                    },
                    rng,
                );
            }
        }
        Chess::from_setup(setup, CastlingMode::Standard).ok()
    }

    /// A move the test turns away never stalemates, on sparse random
    /// positions and along random games from rich ones; and it turns
    /// away most moves, or it would save nothing.
    #[test]
    fn moves_turned_away_never_stalemate() {
        let mut rng = Lcg(7);
        let (mut stalemates, mut moves, mut turned_away) = (0, 0, 0);
        let mut check = |pos: &Chess| {
            let Some(test) = StalemateTest::new(pos) else {
                return;
            };
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                let stalemate = after.is_stalemate();
                moves += 1;
                if stalemate {
                    stalemates += 1;
                    assert!(
                        !test.hopeless() && test.may_stalemate(&m),
                        "{} {m}",
                        Fen::from_position(pos, EnPassantMode::Legal)
                    );
                }
                turned_away += usize::from(test.hopeless() || !test.may_stalemate(&m));
            }
        };
        for _ in 0..150_000 {
            if let Some(pos) = sparse(&mut rng) {
                check(&pos);
            }
        }
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "5k2/3r3p/6b1/1p6/3RQ3/3KB1r1/B7/8 b - - 0 1",
            "8/8/8/2k5/2p2p2/2P2P2/8/4K3 w - - 0 1",
            // Stalemated by uncovering a pin (Nf6 away), and by taking away
            // the only capture of a blocked pawn (Bf2-e3).
            "5K1k/6n1/5NP1/4B3/8/8/8/8 w - - 0 1",
            "8/8/8/8/8/6pK/5BP1/7k w - - 0 1",
            // Stalemated by a unit leaving the line between a king and its
            // own unit (Kc1-c2, Bh7-b1): found by the oracle.
            "8/8/8/8/8/8/1R4p1/k1K2bR1 w - - 0 1",
            "7k/7B/4K3/8/8/8/7p/6RR w - - 0 1",
        ];
        for fen in fens {
            for game in random_games_from(&position(fen), 13, 100, 60, any_move) {
                game.iter().for_each(&mut check);
            }
        }
        println!("{stalemates} stalemates, {turned_away} of {moves} moves turned away");
        assert!(stalemates > 500, "{stalemates} stalemates");
        assert!(
            turned_away * 2 > moves,
            "{turned_away} of {moves} turned away"
        );
    }
}
