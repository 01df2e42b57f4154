//! Parity: when the number of moves each side made is fixed modulo 2.
//!
//! White moved first, so with White to move both sides made equally many
//! moves, with Black to move White made one more. A side's move count is
//! known modulo 2 when it lost nothing (no promotions either) and each unit's
//! moves are: zero for units that never moved, the change of square colour
//! for knights (every knight move changes it; summed over both knights the
//! answer does not depend on which knight is which), exact counts for pawns
//! whose path is forced, and the side of a two-colourable move graph for a
//! piece confined to a small region (a rook shuttling between two squares).

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Setup, Square};

use super::facts::{homes, Facts};
use super::pawns::{relative_rank, PawnInfo};
use super::reach::{self, Mover};
use crate::legality::{Flaw, Reason};

fn light(sq: Square) -> u32 {
    u32::from(sq.is_light())
}

/// The moves a pawn made, when they are certain: none at home, one a step
/// ahead (or a double step just played), one per rank when every step was
/// a capture.
fn pawn_moves(setup: &Setup, info: &PawnInfo, i: usize, sq: Square) -> Option<u32> {
    let rel = relative_rank(info.color, sq);
    let ep_pawn = setup
        .ep_square
        .is_some_and(|ep| ep.file() == sq.file() && rel == 3 && setup.turn != info.color);
    match rel {
        1 | 2 => Some(rel - 1),
        _ if ep_pawn => Some(1),
        _ => {
            let mask = info.feasible[i];
            let g = mask.trailing_zeros();
            let all_captures = mask.count_ones() == 1 && g.abs_diff(sq.file().to_u32()) == rel - 1;
            all_captures.then_some(rel - 1)
        }
    }
}

/// 2-colours the move graph of `mover` inside `region` from `home`;
/// `None` when an odd cycle exists (the parity is then not fixed).
fn side_of(mover: Mover, region: Bitboard, home: Square, target: Square) -> Option<u32> {
    let mut colour = [None::<u32>; 64];
    colour[home.to_usize()] = Some(0);
    let mut queue = vec![home];
    while let Some(sq) = queue.pop() {
        let c = colour[sq.to_usize()]?;
        // One move: any square along a line whose squares all lie inside
        // the region (more edges than real only makes the test stricter).
        let targets = match mover {
            Mover::Knight => attacks::knight_attacks(sq) & region,
            Mover::King(_) => attacks::king_attacks(sq) & region,
            _ => slides(mover, sq, region),
        };
        for t in targets {
            match colour[t.to_usize()] {
                Some(x) if x == c => return None,
                Some(_) => {}
                None => {
                    colour[t.to_usize()] = Some(1 - c);
                    queue.push(t);
                }
            }
        }
    }
    colour[target.to_usize()]
}

fn slides(mover: Mover, sq: Square, region: Bitboard) -> Bitboard {
    let role = match mover {
        Mover::Rook => Role::Rook,
        Mover::Bishop => Role::Bishop,
        _ => Role::Queen,
    };
    // Squares outside the region act as blockers.
    attacks::attacks(
        sq,
        Piece {
            color: Color::White,
            role,
        },
        !region,
    ) & region
}

fn piece_moves(facts: &Facts, color: Color) -> Option<u32> {
    let board = &facts.board;
    let mut total = 0;
    let mut regions = [Bitboard::EMPTY; 7];
    for (role, home) in homes(color) {
        if role == Role::Knight {
            total += light(home);
            continue;
        }
        if facts.fixed.contains(home) {
            continue;
        }
        let mover = match role {
            Role::King => Mover::King(color),
            Role::Queen => Mover::Queen,
            Role::Rook => Mover::Rook,
            _ => Mover::Bishop,
        };
        let region = reach::before(
            &reach::by_phase(facts, mover, Bitboard::from_square(home), &|_| {
                Bitboard::EMPTY
            }),
            None,
        );
        // Two pieces of a kind sharing squares could be swapped: give up.
        if region.intersects(regions[role as usize]) {
            return None;
        }
        regions[role as usize] |= region;
        let here = region & board.by_piece(role.of(color));
        total += side_of(mover, region, home, here.single_square()?)?;
    }
    let knights = board.by_piece(color.knight());
    total += knights.into_iter().map(light).sum::<u32>();
    Some(total % 2)
}

/// A side's number of moves modulo 2, when certain.
fn side_parity(setup: &Setup, facts: &Facts, info: &PawnInfo) -> Option<u32> {
    let color = info.color;
    let board = &setup.board;
    if board.by_color(color).count() != 16 || info.squares.len() != 8 {
        return None;
    }
    let mut total = 0;
    for (i, &sq) in info.squares.iter().enumerate() {
        total += pawn_moves(setup, info, i, sq)?;
    }
    Some((total + piece_moves(facts, color)?) % 2)
}

pub fn check(setup: &Setup, facts: &Facts, white: &PawnInfo, black: &PawnInfo) -> Option<Reason> {
    let w = side_parity(setup, facts, white)?;
    let b = side_parity(setup, facts, black)?;
    let expected = u32::from(setup.turn.is_black());
    ((w + b) % 2 != expected).then(|| {
        let mover = if setup.turn.is_white() {
            "White"
        } else {
            "Black"
        };
        Reason::new(
            Flaw::Parity,
            Some(setup.turn),
            format!(
                "only units whose move counts are fixed modulo 2 can have moved (no unit was \
                 captured; knights change square colour at every move): White made an {} and \
                 Black an {} number of moves, so it cannot be {mover} to move",
                if w == 0 { "even" } else { "odd" },
                if b == 0 { "even" } else { "odd" },
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::{facts::Facts, pawns};
    use shakmaty::fen::Fen;

    fn parity(fen: &str) -> Option<Reason> {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        let infos = [
            pawns::analyse(&setup.board, Color::White),
            pawns::analyse(&setup.board, Color::Black),
        ];
        let facts = Facts::new(&setup, &infos);
        let [Some(w), Some(b)] = &infos else {
            panic!("pawns")
        };
        check(&setup, &facts, w, b)
    }

    #[test]
    fn initial_array_needs_white_to_move() {
        assert!(parity("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").is_none());
        let r = parity("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(r.map(|r| r.flaw), Some(Flaw::Parity));
    }

    #[test]
    fn one_knight_move_means_black_to_move() {
        assert!(parity("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 0 1").is_none());
        assert!(parity("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1").is_some());
    }

    #[test]
    fn shut_in_rook_keeps_parity_but_a_double_step_does_not() {
        // The a1 rook is shut in a1/b1: its move count is still fixed
        // modulo 2 (Na3 and Rb1: two moves, White to move).
        let fen = "rnbqkbnr/pppppppp/8/8/8/N7/PPPPPPPP/1RBQKBNR w Kkq - 0 1";
        assert!(parity(fen).is_none());
        assert!(parity(&fen.replace(" w ", " b ")).is_some());
        // A pawn that may have double-stepped makes it unknown.
        assert!(parity("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1").is_none());
    }
}
