//! Legal moves on a [`Placement`], for the generator's first pass over
//! every slot of a table: with at most five units, a few attack lookups
//! per move are far cheaper than validating a shakmaty position for each
//! slot and generating its moves there. No castling and no en passant: a
//! table's positions have neither (see [`super::index`]).

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use super::index::{Layout, Placement, MAX_UNITS};

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

/// Whether the king of `color` stands in check.
pub fn in_check(layout: &Layout, p: &Placement, color: Color) -> bool {
    let king = bit(p.squares[king_slot(color)]);
    let occupied = layout.occupied(p);
    (0..layout.units()).any(|slot| {
        let piece = layout.piece(slot);
        piece.color != color
            && attacks::attacks(Square::new(u32::from(p.squares[slot])), piece, occupied)
                .intersects(king)
    })
}

/// Calls `visit` with every legal move of the side to move in `p`, which
/// must be a legal position (the side not to move not in check).
pub fn legal_moves(layout: &Layout, p: &Placement, visit: impl FnMut(PlacementMove)) {
    let legal = generate(layout, p, false, visit);
    debug_assert!(legal.is_some(), "the side not to move in check");
}

/// What [`legal_moves_counting_quiet`] tells besides the moves it visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// The legal moves of pieces (not pawns) that take nothing.
    pub quiet: usize,
    /// Whether the side to move stands in check.
    pub in_check: bool,
}

/// [`legal_moves`], except that the legal moves of pieces (not pawns)
/// that take nothing are counted, not visited, and that `p` may be
/// illegal: `None`, with nothing visited, when the side not to move stands
/// in check. The generator's first pass needs no more, and a popcount of a
/// target set is far cheaper than a legality test per move.
pub fn legal_moves_counting_quiet(
    layout: &Layout,
    p: &Placement,
    visit: impl FnMut(PlacementMove),
) -> Option<Counted> {
    generate(layout, p, true, visit)
}

/// Whether a `role` on `a` would attack `b` on an empty board (sliders
/// only: the lines along which they pin).
fn on_line(role: Role, a: u8, b: u8) -> bool {
    let straight = a & 7 == b & 7 || a >> 3 == b >> 3;
    let diagonal = (a & 7).abs_diff(b & 7) == (a >> 3).abs_diff(b >> 3);
    match role {
        Role::Rook => straight,
        Role::Bishop => diagonal,
        Role::Queen => straight || diagonal,
        _ => false,
    }
}

fn generate(
    layout: &Layout,
    p: &Placement,
    count_quiet: bool,
    mut visit: impl FnMut(PlacementMove),
) -> Option<Counted> {
    let us = Color::from_white(p.white_to_move);
    let occupied = layout.occupied(p);
    let units = layout.units();
    // The unit on a square, `None` on an empty one.
    let slot_at = |sq: u8| (0..units).find(|&s| p.squares[s] == sq);
    let mut ours = Bitboard::EMPTY;
    for slot in 0..units {
        if layout.piece(slot).color == us {
            ours |= bit(p.squares[slot]);
        }
    }
    let our_king = p.squares[king_slot(us)];
    let king_sq = Square::new(u32::from(our_king));
    let their_king = bit(p.squares[king_slot(!us)]);
    // Each unit's attacks: ours on the board as it stands, theirs through
    // our king's square, which the king leaves when it moves (the king
    // stands in check exactly when that set holds it too).
    let mut reach = [Bitboard::EMPTY; MAX_UNITS];
    for (slot, reach) in reach.iter_mut().enumerate().take(units) {
        let piece = layout.piece(slot);
        let sq = Square::new(u32::from(p.squares[slot]));
        if piece.color == us {
            *reach = attacks::attacks(sq, piece, occupied);
            if reach.intersects(their_king) {
                return None;
            }
        } else {
            *reach = attacks::attacks(sq, piece, occupied & !bit(our_king));
        }
    }
    // What the king may not step on, which units give check, and which of
    // our units are pinned to which line.
    let mut danger = Bitboard::EMPTY;
    let mut checkers = Bitboard::EMPTY;
    let mut pins = [(usize::MAX, Bitboard::EMPTY); 3];
    for (slot, &reach) in reach.iter().enumerate().take(units) {
        let piece = layout.piece(slot);
        if piece.color == us {
            continue;
        }
        danger |= reach;
        let sq = Square::new(u32::from(p.squares[slot]));
        if reach.contains(king_sq) {
            checkers |= Bitboard::from_square(sq);
        } else if on_line(piece.role, p.squares[slot], our_king) {
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
    // Where a unit other than the king must go when in check: onto the
    // one checker or between it and the king; nowhere in double check.
    let evasions = match checkers.first() {
        None => Bitboard::FULL,
        Some(_) if checkers.more_than_one() => Bitboard::EMPTY,
        Some(checker) => checkers | attacks::between(checker, king_sq),
    };
    // Where a unit's moves may go without leaving its king in check (a
    // unit is pinned to one line at most).
    let allowed = |slot: usize| {
        if slot == king_slot(us) {
            !danger
        } else {
            let pin = pins.iter().find(|(s, _)| *s == slot);
            evasions & pin.map_or(Bitboard::FULL, |&(_, line)| line)
        }
    };
    let mut counted = 0;
    for (slot, &reach) in reach.iter().enumerate().take(units) {
        let piece = layout.piece(slot);
        if piece.color != us {
            continue;
        }
        let from = p.squares[slot];
        if piece.role != Role::Pawn {
            let targets = reach & !ours & allowed(slot);
            let each = if count_quiet {
                counted += (targets & !occupied).count();
                targets & occupied
            } else {
                targets
            };
            for to in each.into_iter().map(u8::from) {
                visit(PlacementMove {
                    slot,
                    from,
                    to,
                    captured: slot_at(to),
                    promotion: None,
                });
            }
            continue;
        }
        let (step, last_rank, start_rank): (i8, u8, u8) = if us == Color::White {
            (8, 7, 1)
        } else {
            (-8, 0, 6)
        };
        let mut targets = reach & occupied & !ours;
        let one = from.wrapping_add_signed(step);
        if !occupied.contains(Square::new(u32::from(one))) {
            targets |= bit(one);
            let two = one.wrapping_add_signed(step);
            if from >> 3 == start_rank && !occupied.contains(Square::new(u32::from(two))) {
                targets |= bit(two);
            }
        }
        for to in (targets & allowed(slot)).into_iter().map(u8::from) {
            let captured = slot_at(to);
            let promotions: &[Option<Role>] = if to >> 3 == last_rank {
                &[
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                ]
            } else {
                &[None]
            };
            for &promotion in promotions {
                visit(PlacementMove {
                    slot,
                    from,
                    to,
                    captured,
                    promotion,
                });
            }
        }
    }
    Some(Counted {
        quiet: counted,
        in_check: checkers.any(),
    })
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
            let (mut checked, mut in_check_seen, mut illegal_seen) = (0, 0, 0);
            for index in (0..layout.size()).step_by(3181) {
                let Some(p) = layout.decode(index) else {
                    continue;
                };
                let them = Color::from_white(!p.white_to_move);
                let Some(pos) = layout.position(&p) else {
                    assert!(in_check(&layout, &p, them), "{key} {index}");
                    let counted = legal_moves_counting_quiet(&layout, &p, |m| {
                        panic!("{key} {index}: {m:?} visited in an illegal placement")
                    });
                    assert_eq!(counted, None, "{key} {index}");
                    illegal_seen += 1;
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
                // Counting mode: the pieces' quiet moves counted, the rest
                // visited as before.
                let quiet = |m: &Move| m.role() != Role::Pawn && !m.is_capture();
                let mut visited = Vec::new();
                let counted = legal_moves_counting_quiet(&layout, &p, |m| visited.push(as_uci(&m)));
                let mut rest: Vec<String> = pos
                    .legal_moves()
                    .iter()
                    .filter(|m| !quiet(m))
                    .map(shakmaty_uci)
                    .collect();
                visited.sort();
                rest.sort();
                assert_eq!(visited, rest, "{key} {index}");
                let quiet_moves = pos.legal_moves().iter().filter(|m| quiet(m)).count();
                let expected = Counted {
                    quiet: quiet_moves,
                    in_check: pos.is_check(),
                };
                assert_eq!(counted, Some(expected), "{key} {index}");
                in_check_seen += usize::from(pos.is_check());
                checked += 1;
            }
            assert!(checked > 200, "{key}: {checked}");
            assert!(in_check_seen > 10, "{key}: {in_check_seen} in check");
            assert!(illegal_seen > 10, "{key}: {illegal_seen} illegal");
        }
    }
}
