//! An admissible move-count test for helpmates: can White still mate Black
//! within the moves both sides have left?
//!
//! The final position needs a square `K'` for the Black king within its
//! reach, a White unit attacking `K'` (the check), and every flight square
//! of `K'` either occupied by a Black unit (a block) or attacked by White.
//! Distances are measured on an empty board ([`super::distances`]: a real
//! board only lengthens paths and shortens lines), per unit, with
//! promotions, so each is a lower bound on the moves that unit needs. On
//! top of the per-square test, the
//! number of squares White must cover is compared with what the White units
//! can cover at all from one square each (a king covers at most three
//! squares round another king, a knight two), and the units that must take
//! part pay their moves together. When no `K'` passes, the node has no
//! solution and is pruned: the test only ever rejects positions from which
//! no helpmate of that length exists, so no solution is lost.
//!
//! A helpstalemate's king is asked the same, without the check, by
//! [`super::immobile`], which tells which Black units may block a flight.

use shakmaty::{attacks, Bitboard, Chess, Color, Position, Role, Square};

use super::distances::{tables, Tables, FAR};

/// White units beyond this many make the subset enumeration too dear; the
/// per-square test alone is used then.
const MAX_SUBSET_UNITS: usize = 8;

/// Moves castling may save a side that still has the right, next to the
/// distances counted one unit at a time: one for the king (two squares in
/// one move) and one for the rook (which moves with it). Adding them to
/// the side's moves keeps every bound admissible.
pub(super) fn castling_bonus(pos: &Chess, color: Color) -> u8 {
    if pos.castles().has_color(color) {
        2
    } else {
        0
    }
}

/// What a helpstalemate's other Black units need, as
/// [`super::immobile`] tells it, for [`may_end_with`].
pub(crate) struct Others<'a> {
    /// The fewest moves for a Black unit to stand on a square and end
    /// there without a move (a stalemate's blocker must); by default the
    /// fewest to reach it.
    pub(crate) block: &'a dyn Fn(Square) -> u8,
    /// Black's moves the other units need at least, each to where it is
    /// taken or stops: the king's own moves come on top.
    pub(crate) busy: u8,
}

/// One unit on the board.
#[derive(Debug, Clone, Copy)]
struct Unit {
    role: Role,
    sq: Square,
}

/// May Black still be helpmated after exactly `left` more plies (at least
/// one), the last one White's? `false` only when no sequence of that length
/// can mate.
pub(crate) fn may_mate(pos: &Chess, left: u8) -> bool {
    may_end_with(pos, left, true, None)
}

/// May Black still be mated (`check`) or stalemated after exactly `left`
/// more plies (at least one), the last one White's? A stalemated king
/// too stands on a square whose every flight is blocked by Black or
/// attacked by White, so the same distances bound it, without the check.
/// What the Black units other than the king need is told by `others`
/// when given (see [`Others`]). `false` only when no sequence of that
/// length can end so.
pub(crate) fn may_end_with(
    pos: &Chess,
    left: u8,
    check: bool,
    others: Option<&Others<'_>>,
) -> bool {
    let board = pos.board();
    let Some(black_king) = board.king_of(Color::Black) else {
        return true;
    };
    // The unit lists below hold sixteen units a side (any legal position).
    if board.white().count() > 16 || board.black().count() > 16 {
        return true;
    }
    let white_moves = left.div_ceil(2) + castling_bonus(pos, Color::White);
    let (black_moves, black_bonus) = (left / 2, castling_bonus(pos, Color::Black));
    let units = |set: Bitboard, out: &mut [Unit; 16]| -> usize {
        let mut n = 0;
        for sq in set {
            if let (Some(role), Some(slot)) = (board.role_at(sq), out.get_mut(n)) {
                *slot = Unit { role, sq };
                n += 1;
            }
        }
        n
    };
    let none = Unit {
        role: Role::Pawn,
        sq: Square::A1,
    };
    let (mut white, mut black) = ([none; 16], [none; 16]);
    let n_white = units(board.by_color(Color::White), &mut white);
    let n_black = units(board.by_color(Color::Black) & !board.kings(), &mut black);
    let (white, black) = (&white[..n_white], &black[..n_black]);
    let t = tables();
    let busy = others.map_or(0, |o| o.busy);
    let mut least = Least::new(t, white, black, others.map(|o| o.block));
    let reach = u32::from(black_moves + black_bonus / 2);
    squares_within(black_king, reach).into_iter().any(|k| {
        let spare = black_moves + black_bonus - k.distance(black_king) as u8;
        // The king's moves and the other units' add up (castling's two
        // saved moves are in the bonus); the blocks may be some of the
        // other units' moves, so they get all the spare.
        spare >= busy && picture_possible(t, &mut least, white, black, k, white_moves, spare, check)
    })
}

/// The squares at most `d` king steps from `sq`: a box of files and ranks.
pub(super) fn squares_within(sq: Square, d: u32) -> Bitboard {
    let (file, rank) = (sq.file() as u32, sq.rank() as u32);
    let span = |at: u32, to_bb: fn(u32) -> Bitboard| {
        (at.saturating_sub(d)..=(at + d).min(7)).fold(Bitboard::EMPTY, |all, i| all | to_bb(i))
    };
    span(file, |f| Bitboard::from_file(shakmaty::File::new(f)))
        & span(rank, |r| Bitboard::from_rank(shakmaty::Rank::new(r)))
}

/// Per square, the fewest moves for a White unit to attack it and for a
/// Black unit (the king aside) to stand on it: the same for every king
/// square [`may_end`] tries, so each is worked out once, when first asked.
struct Least<'a> {
    t: &'a Tables,
    white: &'a [Unit],
    black: &'a [Unit],
    /// The fewest moves for a Black unit to block a square, when not its
    /// fewest moves to reach it.
    blockers: Option<&'a dyn Fn(Square) -> u8>,
    /// The squares asked about so far.
    known: Bitboard,
    /// `(white, black)` per square, where `known`.
    by: [(u8, u8); 64],
}

impl<'a> Least<'a> {
    fn new(
        t: &'a Tables,
        white: &'a [Unit],
        black: &'a [Unit],
        blockers: Option<&'a dyn Fn(Square) -> u8>,
    ) -> Least<'a> {
        Least {
            t,
            white,
            black,
            blockers,
            known: Bitboard::EMPTY,
            by: [(FAR, FAR); 64],
        }
    }

    /// The fewest moves for a White unit to attack `sq`, and for a Black
    /// unit to stand on it.
    fn at(&mut self, sq: Square) -> (u8, u8) {
        if !self.known.contains(sq) {
            let least =
                |units: &[Unit], d: fn(&Tables, Color, Role, Square, Square) -> u8, color| {
                    units
                        .iter()
                        .map(|u| d(self.t, color, u.role, u.sq, sq))
                        .min()
                        .unwrap_or(FAR)
                };
            self.by[sq.to_usize()] = (
                least(self.white, Tables::attack, Color::White),
                match self.blockers {
                    Some(blockers) => blockers(sq),
                    None => least(self.black, Tables::reach, Color::Black),
                },
            );
            self.known.add(sq);
        }
        self.by[sq.to_usize()]
    }
}

/// Can the Black king be mated (`check`) or stalemated on `king` with
/// `white_moves` White moves and `spare` Black moves for the other Black
/// units? A stalemate asks the same of the flights, and no check.
#[allow(clippy::too_many_arguments)]
fn picture_possible(
    t: &Tables,
    least: &mut Least<'_>,
    white: &[Unit],
    black: &[Unit],
    king: Square,
    white_moves: u8,
    spare: u8,
    check: bool,
) -> bool {
    let w = Color::White;
    let flights = attacks::king_attacks(king);
    // Capacity alone, before any distance: the zone's squares that Black
    // cannot possibly block must be coverable by White's units at all.
    let capacity: u32 = white
        .iter()
        .map(|u| u32::from(t.cover(w, u.role, u.sq, king, white_moves)))
        .sum();
    let checks = u32::from(check);
    if capacity + (black.len().min(flights.count()) as u32) < checks + flights.count() as u32 {
        return false;
    }
    if check
        && white
            .iter()
            .map(|u| t.check_cost(w, u.role, u.sq, king, white_moves))
            .min()
            .unwrap_or(FAR)
            > white_moves
    {
        return false;
    }
    let (mut must_count, mut must_sum) = (0usize, 0u32);
    let mut optional = [FAR; 8];
    let mut n_optional = 0;
    for f in flights {
        let (by_white, by_black) = least.at(f);
        if by_white > white_moves {
            if by_black > spare {
                return false;
            }
            must_count += 1;
            must_sum += u32::from(by_black);
        } else if by_black <= spare {
            optional[n_optional] = by_black;
            n_optional += 1;
        }
    }
    if must_count > black.len() || must_sum > u32::from(spare) {
        return false;
    }
    // The most flights Black can block: the cheapest optional ones first.
    let optional = &mut optional[..n_optional];
    optional.sort_unstable();
    let mut blocks = must_count;
    let mut sum = must_sum;
    for &c in optional.iter() {
        if blocks >= black.len() || sum + u32::from(c) > u32::from(spare) {
            break;
        }
        blocks += 1;
        sum += u32::from(c);
    }
    let needed = checks as usize + flights.count() - blocks;
    enough_units(t, white, king, white_moves, needed as u8, check)
}

/// Is there a set of White units, one of them giving check (when
/// `mates`), that covers `needed` squares of the king's zone with their
/// moves together within `white_moves`? Each unit in the set must at least
/// reach a square attacking part of the zone.
fn enough_units(
    t: &Tables,
    white: &[Unit],
    king: Square,
    white_moves: u8,
    needed: u8,
    mates: bool,
) -> bool {
    if white.len() > MAX_SUBSET_UNITS || (!mates && needed == 0) {
        return true;
    }
    let w = Color::White;
    let zone = attacks::king_attacks(king);
    let mut approach = [FAR; MAX_SUBSET_UNITS];
    let mut check = [FAR; MAX_SUBSET_UNITS];
    let mut cover = [0u8; MAX_SUBSET_UNITS];
    for (i, u) in white.iter().enumerate() {
        let to_flight = zone
            .into_iter()
            .map(|f| t.attack(w, u.role, u.sq, f))
            .min()
            .unwrap_or(FAR);
        if mates {
            check[i] = t.check_cost(w, u.role, u.sq, king, white_moves);
        }
        approach[i] = to_flight.min(check[i]);
        cover[i] = t.cover(w, u.role, u.sq, king, white_moves);
    }
    let n = white.len();
    (1u32..1 << n).any(|set| {
        let members = || (0..n).filter(move |i| set & (1 << i) != 0);
        let covered: u32 = members().map(|i| u32::from(cover[i])).sum();
        if covered < u32::from(needed) {
            return false;
        }
        let base: u32 = members().map(|i| u32::from(approach[i])).sum();
        if !mates {
            return base <= u32::from(white_moves);
        }
        members().any(|c| {
            check[c] != FAR
                && base - u32::from(approach[c]) + u32::from(check[c]) <= u32::from(white_moves)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::{passes_all_along, position};

    #[test]
    fn far_kings_are_rejected() {
        // King and bishop cannot mate a king in the centre, nor reach the
        // corner picture in one move each.
        let pos = position("8/8/8/3k4/8/8/5nB1/2K5 b - - 0 1");
        assert!(!may_mate(&pos, 2));
        // A lone rook needs its king: two moves each are not enough here.
        let pos = position("8/8/8/8/3k4/8/8/K6R b - - 0 1");
        assert!(!may_mate(&pos, 4));
    }

    /// Every position on the way to a real helpmate passes with the plies
    /// it still has (the bound never rejects a solution's line).
    #[test]
    fn solution_lines_pass_all_along() {
        let cases = [
            (
                "8/8/8/8/8/1k6/5nB1/2K5 b - - 0 1",
                "b3c3 c1b1 c3d2 g2f1 d2e1 b1c2 f2h3 c2d3 e1f2 d3e4 f2g1 e4f3 g1h1 f3g3 h3g1 f1g2",
            ),
            (
                "8/4p3/5p1k/4p3/4b3/1b1p4/3P1K2/8 b - - 0 1",
                "e4h7 f2e3 h6g6 e3d3 b3g8 d3e4 g6f7 e4d5 h7f5 d5c6 f7e6 d2d4 g8f7 d4d5",
            ),
            // Sztankovszky, Feenschach 1952: two promotions to bishop, one
            // of them capturing.
            (
                "8/8/8/8/k6N/4K3/1P2p2p/8 b - - 0 1",
                "e2e1b h4f3 e1a5 f3g1 h2g1b e3d3 g1c5 d3c4 c5a3 b2b3",
            ),
        ];
        for (fen, line) in cases {
            let end = passes_all_along(fen, line, may_mate);
            assert!(end.is_checkmate(), "{fen}");
        }
    }
}
