//! KBKP draws: a bishop and king against a king and pawn. The pawn side
//! wins only by queening (or by winning the bishop into a won KPK); the
//! bishop side wins only by a rare mate of a king boxed in by its own pawn.
//! So a position is a draw where the pawn cannot get through and the pawn
//! side's king is not in such a box.
//!
//! With the bishop side to move, the pawn cannot get through when the
//! bishop side can take it, when its king stands or steps in the pawn's
//! way or is inside the pawn's square with the pawn's king far off, or
//! when the bishop watches (or moves to watch) a square ahead of the pawn
//! out of the pawn king's reach: a pawn stepping there is taken. Those
//! static rules ([`holds`]) spot 84.8 % of the draws; a look-ahead of two
//! bishop-side moves raises that to 92.0 %: the bishop side holds if it
//! has a move after which every reply leads to a position that holds, and
//! so on once more. With the pawn side to move, every move it has must
//! lead to such a position. These are claims a long way from proofs (the
//! pawn side's king can block a diagonal, a pawn can fork); what makes them
//! exact is the verification over every position, both orientations,
//! against cookd's KBvKP table and Syzygy's (`cookd tb verify kbkp`: 0
//! incorrect, 14,747,798 of 16,039,534 draws, 92.0 %).

use shakmaty::attacks::{between, bishop_attacks, king_attacks, pawn_attacks, ray};
use shakmaty::{Bitboard, Chess, Color, MoveList, Position, Rank, Role, Square};

use super::single;
use crate::tablebase::Wdl;

/// Bishop-side moves looked ahead past the static rules. One reaches
/// 90.8 % of the draws, two 92.0 %, at about a third of the static rules'
/// speed in `cookd tb verify` (which probes a table for each position too).
const LOOK_AHEAD: u32 = 2;

pub(super) fn recognize(pos: &Chess, bishop_side: Color) -> Option<Wdl> {
    let draw = if pos.turn() == bishop_side {
        holds_within(pos, bishop_side, LOOK_AHEAD)
    } else {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Stalemate is a draw; mate is the bishop side's rare win.
            !pos.is_check()
        } else {
            moves.iter().all(|m| {
                let mut after = pos.clone();
                after.play_unchecked(*m);
                holds_within(&after, bishop_side, LOOK_AHEAD)
            })
        }
    };
    draw.then_some(Wdl::Draw)
}

/// The bishop side, to move, [`holds`] now or, within `depth` more of its
/// moves, has a move after which every reply leads to a position that
/// holds. Not past a position where the pawn side's king is boxed: the
/// bishop side may have a mate there, and a move that lets the king out
/// does not show it.
fn holds_within(pos: &Chess, bishop_side: Color, depth: u32) -> bool {
    let moves = pos.legal_moves();
    if holds(pos, bishop_side, &moves) {
        return true;
    }
    let board = pos.board();
    let pawns = board.by_piece(Role::Pawn.of(!bishop_side));
    match (board.king_of(!bishop_side), single(pawns)) {
        (Some(king), Some(pawn)) if depth > 0 && !boxed(king, pawn) => {}
        _ => return false,
    }
    moves.iter().any(|m| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let replies = after.legal_moves();
        !replies.is_empty()
            && replies.iter().all(|r| {
                let mut next = after.clone();
                next.play_unchecked(*r);
                holds_within(&next, bishop_side, depth - 1)
            })
    })
}

/// The bishop side, to move (its legal `moves`), stops the pawn for good
/// and cannot mate.
fn holds(pos: &Chess, bishop_side: Color, moves: &MoveList) -> bool {
    let board = pos.board();
    let pawn_side = !bishop_side;
    let (Some(pawn), Some(bishop), Some(bishop_king), Some(pawn_king)) = (
        single(board.by_piece(Role::Pawn.of(pawn_side))),
        single(board.by_piece(Role::Bishop.of(bishop_side))),
        board.king_of(bishop_side),
        board.king_of(pawn_side),
    ) else {
        return false;
    };
    if boxed(pawn_king, pawn) {
        return false;
    }
    if moves.iter().any(|m| m.to() == pawn) {
        return true;
    }
    if pos.is_check() {
        return false;
    }
    let path = path(pawn, pawn_side);
    // The king in the pawn's way, or stepping into it.
    if path.contains(bishop_king)
        || moves
            .iter()
            .any(|m| m.role() == Role::King && path.contains(m.to()))
    {
        return true;
    }
    // The king inside the pawn's square, the pawn's king too far off to
    // shoulder it away: it catches the pawn.
    let promotion = Square::from_coords(pawn.file(), pawn_side.relative_rank(Rank::Eighth));
    let steps = path.count() as u32;
    if bishop_king.distance(promotion) < steps && pawn_king.distance(pawn) > 2 {
        return true;
    }
    // A watch from `from` the pawn side's king cannot break next move: it
    // cannot take the bishop (not next to it, or the bishop is guarded)
    // nor step between it and a watched square, and where it can come
    // next to the bishop in two moves, the bishop has a square further
    // back on the same diagonal, out of that reach, to retreat to.
    let near = king_attacks(pawn_king) | Bitboard::from(pawn_king);
    let reach = near
        | near
            .into_iter()
            .fold(Bitboard::EMPTY, |bb, sq| bb | king_attacks(sq));
    let occupied = board.occupied() & !Bitboard::from(bishop);
    let guarded = king_attacks(bishop_king);
    let watches = |from: Square| {
        (!near.contains(from) || guarded.contains(from))
            && (bishop_attacks(from, occupied) & path)
                .into_iter()
                .any(|x| {
                    (between(from, x) & near).is_empty()
                        && (!reach.contains(from)
                            || ray(x, from).into_iter().any(|retreat| {
                                between(x, retreat).contains(from)
                                    && !reach.contains(retreat)
                                    && (between(from, retreat) & occupied).is_empty()
                            }))
                })
    };
    if watches(bishop) {
        return true;
    }
    moves.iter().any(|m| {
        m.role() == Role::Bishop
            && watches(m.to())
            && !pawn_attacks(pawn_side, pawn).contains(m.to())
    })
}

/// The pawn side's king in a corner next to its own pawn, which takes
/// away a flight square: the one place the tables show the bishop side
/// mating.
fn boxed(king: Square, pawn: Square) -> bool {
    let corner = |i: u32| i == 0 || i == 7;
    corner(king.file().to_u32())
        && corner(king.rank().to_u32())
        && king_attacks(king).contains(pawn)
}

/// The squares ahead of the pawn, less the one a double step skips.
fn path(pawn: Square, color: Color) -> Bitboard {
    let mut path = Bitboard::EMPTY;
    let mut sq = pawn;
    while let Some(next) = sq.offset(if color == Color::White { 8 } else { -8 }) {
        path.add(next);
        sq = next;
    }
    if pawn.rank() == color.relative_rank(Rank::Second) {
        path.discard(Square::from_coords(
            pawn.file(),
            color.relative_rank(Rank::Third),
        ));
    }
    path
}
