//! Legal moves on a [`Placement`], for the generator's first pass over
//! every slot of a table: with at most five units, a few attack lookups
//! per move are far cheaper than validating a shakmaty position for each
//! slot and generating its moves there. No castling and no en passant: a
//! table's positions have neither (see [`super::index`]).

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use super::index::{Layout, Placement};

/// A legal move of the side to move in a placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementMove {
    /// The slot of the unit that moves.
    pub slot: usize,
    pub from: u8,
    pub to: u8,
    /// The slot of the unit taken.
    pub captured: Option<usize>,
    pub promotion: Option<Role>,
}

impl PlacementMove {
    /// A capture or a promotion: the move leaves the table.
    pub fn leaves_table(&self) -> bool {
        self.captured.is_some() || self.promotion.is_some()
    }

    pub fn is_double_step(&self, layout: &Layout) -> bool {
        layout.piece(self.slot).role == Role::Pawn && self.from.abs_diff(self.to) == 16
    }
}

fn bit(sq: u8) -> Bitboard {
    Bitboard::from_square(Square::new(u32::from(sq)))
}

fn king_slot(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Whether a unit of `by` other than the one in slot `except` attacks
/// `target` with `occupied` as the board's occupancy.
fn attacked(
    layout: &Layout,
    squares: &[u8],
    occupied: Bitboard,
    by: Color,
    target: u8,
    except: Option<usize>,
) -> bool {
    let target = bit(target);
    (0..layout.units()).any(|slot| {
        let piece = layout.piece(slot);
        piece.color == by
            && Some(slot) != except
            && attacks::attacks(Square::new(u32::from(squares[slot])), piece, occupied)
                .intersects(target)
    })
}

/// Whether the king of `color` stands in check.
pub fn in_check(layout: &Layout, p: &Placement, color: Color) -> bool {
    let king = p.squares[king_slot(color)];
    attacked(layout, &p.squares, layout.occupied(p), !color, king, None)
}

/// Calls `visit` with every legal move of the side to move in `p`, which
/// must be a legal position (the side not to move not in check).
pub fn legal_moves(layout: &Layout, p: &Placement, mut visit: impl FnMut(PlacementMove)) {
    let us = Color::from_white(p.white_to_move);
    let occupied = layout.occupied(p);
    let units = layout.units();
    let slot_at = |sq: u8| (0..units).find(|&s| p.squares[s] == sq);
    let mut ours = Bitboard::EMPTY;
    for slot in 0..units {
        if layout.piece(slot).color == us {
            ours |= bit(p.squares[slot]);
        }
    }
    let our_king = p.squares[king_slot(us)];
    let king_sq = Square::new(u32::from(our_king));
    // What the king may not step on (their attacks through the king's
    // square, which it leaves), whether it stands in check, and which of
    // our units are pinned to which line.
    let mut danger = Bitboard::EMPTY;
    let mut in_check = false;
    let mut pins = [(usize::MAX, Bitboard::EMPTY); 3];
    for slot in 0..units {
        let piece = layout.piece(slot);
        if piece.color == us {
            continue;
        }
        let sq = Square::new(u32::from(p.squares[slot]));
        danger |= attacks::attacks(sq, piece, occupied & !bit(our_king));
        if attacks::attacks(sq, piece, occupied).contains(king_sq) {
            in_check = true;
        } else if matches!(piece.role, Role::Bishop | Role::Rook | Role::Queen)
            && attacks::attacks(sq, piece, Bitboard::EMPTY).contains(king_sq)
        {
            let between = attacks::between(sq, king_sq);
            let blockers = between & occupied;
            if blockers.count() == 1 && blockers.intersects(ours) {
                let pinned = slot_at(u8::from(blockers.first().expect("one blocker")))
                    .expect("a unit on the square");
                if let Some(free) = pins.iter_mut().find(|(s, _)| *s == usize::MAX) {
                    *free = (pinned, between | Bitboard::from_square(sq));
                }
            }
        }
    }
    let mut try_move = |slot: usize, from: u8, to: u8, promotion: Option<Role>| {
        let captured = if occupied.contains(Square::new(u32::from(to))) {
            slot_at(to)
        } else {
            None
        };
        let legal = if slot == king_slot(us) {
            !danger.contains(Square::new(u32::from(to)))
        } else if in_check {
            let mut squares = p.squares;
            squares[slot] = to;
            let after = (occupied & !bit(from)) | bit(to);
            !attacked(layout, &squares, after, !us, our_king, captured)
        } else {
            pins.iter()
                .filter(|(s, _)| *s == slot)
                .all(|(_, line)| line.contains(Square::new(u32::from(to))))
        };
        if legal {
            visit(PlacementMove {
                slot,
                from,
                to,
                captured,
                promotion,
            });
        }
    };
    for slot in 0..units {
        let piece = layout.piece(slot);
        if piece.color != us {
            continue;
        }
        let from = p.squares[slot];
        let sq = Square::new(u32::from(from));
        if piece.role != Role::Pawn {
            for to in attacks::attacks(sq, piece, occupied) & !ours {
                try_move(slot, from, u8::from(to), None);
            }
            continue;
        }
        let (step, last_rank, start_rank): (i8, u8, u8) = if us == Color::White {
            (8, 7, 1)
        } else {
            (-8, 0, 6)
        };
        let theirs = occupied & !ours;
        let mut targets = attacks::pawn_attacks(us, sq) & theirs;
        let one = from.wrapping_add_signed(step);
        if !occupied.contains(Square::new(u32::from(one))) {
            targets |= bit(one);
            let two = one.wrapping_add_signed(step);
            if from >> 3 == start_rank && !occupied.contains(Square::new(u32::from(two))) {
                targets |= bit(two);
            }
        }
        for to in targets.into_iter().map(u8::from) {
            if to >> 3 == last_rank {
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    try_move(slot, from, to, Some(role));
                }
            } else {
                try_move(slot, from, to, None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Move, Position};

    fn as_uci(m: &PlacementMove) -> String {
        let sq = |s: u8| Square::new(u32::from(s)).to_string();
        let promo = m.promotion.map_or(String::new(), |r| r.char().to_string());
        format!("{}{}{promo}", sq(m.from), sq(m.to))
    }

    fn shakmaty_uci(m: &Move) -> String {
        m.to_uci(shakmaty::CastlingMode::Standard).to_string()
    }

    /// The placement moves are exactly shakmaty's legal moves, with the
    /// same captures and promotions, on a spread of slots of tables with
    /// and without pawns; the check test agrees too.
    #[test]
    fn moves_agree_with_shakmaty() {
        for key in ["KQvKR", "KRRvK", "KPvKP", "KRPvKB", "KBNvKP", "KNvKPP"] {
            let layout = Layout::new(key.parse().unwrap());
            let mut checked = 0;
            for index in (0..layout.size()).step_by(3181) {
                let Some(p) = layout.decode(index) else {
                    continue;
                };
                let them = Color::from_white(!p.white_to_move);
                let Some(pos) = layout.position(&p) else {
                    assert!(in_check(&layout, &p, them), "{key} {index}");
                    continue;
                };
                assert!(!in_check(&layout, &p, them), "{key} {index}");
                assert_eq!(in_check(&layout, &p, pos.turn()), pos.is_check());
                let mut ours = Vec::new();
                legal_moves(&layout, &p, |m| {
                    assert_eq!(
                        m.captured.is_some(),
                        pos.board().piece_at(Square::new(u32::from(m.to))).is_some()
                    );
                    ours.push(as_uci(&m));
                });
                let mut theirs: Vec<String> = pos.legal_moves().iter().map(shakmaty_uci).collect();
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{key} {index}");
                checked += 1;
            }
            assert!(checked > 200, "{key}: {checked}");
        }
    }
}
