//! An admissible move-count test for helpmates: can White still mate Black
//! within the moves both sides have left?
//!
//! The final position needs a square `K'` for the Black king within its
//! reach, a White unit attacking `K'` (the check), and every flight square
//! of `K'` either occupied by a Black unit (a block) or attacked by White.
//! Distances are measured on an empty board (a real board only lengthens
//! paths and shortens lines), per unit, with promotions, so each is a lower
//! bound on the moves that unit needs. On top of the per-square test, the
//! number of squares White must cover is compared with what the White units
//! can cover at all from one square each (a king covers at most three
//! squares round another king, a knight two), and the units that must take
//! part pay their moves together. When no `K'` passes, the node has no
//! solution and is pruned: the test only ever rejects positions from which
//! no helpmate of that length exists, so no solution is lost.

use std::sync::OnceLock;

use shakmaty::{attacks, Bitboard, Chess, Color, Piece, Position, Role, Square};

/// Marks a square a unit can never reach or attack.
pub(super) const FAR: u8 = u8::MAX;

/// Distances [`Tables::near`] holds squares for.
pub(super) const NEAR: usize = 8;

/// White units beyond this many make the subset enumeration too dear; the
/// per-square test alone is used then.
const MAX_SUBSET_UNITS: usize = 8;

/// Empty-board distance tables, built once.
pub(super) struct Tables {
    /// `[color][role][from][to]`: moves for a unit to stand on `to`
    /// (in any role it can promote to).
    reach: Vec<u8>,
    /// `[color][role][from][target]`: moves for a unit to stand where it
    /// attacks `target`.
    attack: Vec<u8>,
    /// `[color][role][from][target]`: moves for a unit to attack `target`
    /// with its last move landing on the attacking square (at least one
    /// move): a mating knight or pawn must make the checking move itself.
    /// Knights' and pawns' rows only; the others are `FAR`.
    check: Vec<u8>,
    /// `[color][role][king]`: the most squares of `king` and its
    /// neighbourhood one unit of that role covers from one square (a king
    /// only counts neighbours: it never gives check).
    cover: Vec<u8>,
    /// `[color][from]`: moves for a pawn to reach its promotion rank.
    promote: Vec<u8>,
    /// `[color][role][from][d]`: the squares `reach` puts within `d`
    /// moves, for `d` below [`NEAR`].
    near: Vec<[Bitboard; NEAR]>,
    /// `[color][role][from][final role][to]`: moves for a unit to stand on
    /// `to` in the final role (a pawn's promotions).
    state: Vec<u8>,
}

fn index(color: Color, role: Role, from: Square, to: Square) -> usize {
    (((color as usize) * 6 + role as usize - 1) * 64 + from.to_usize()) * 64 + to.to_usize()
}

fn cover_index(color: Color, role: Role, king: Square) -> usize {
    ((color as usize) * 6 + role as usize - 1) * 64 + king.to_usize()
}

/// What a unit in `role` attacks from `sq` on an empty board.
pub(super) fn empty_attacks(color: Color, role: Role, sq: Square) -> Bitboard {
    attacks::attacks(sq, Piece { color, role }, Bitboard::EMPTY)
}

/// One-move successors of a unit on an empty board, promotions included.
fn successors(color: Color, role: Role, sq: Square) -> Vec<(Role, Square)> {
    if role != Role::Pawn {
        return empty_attacks(color, role, sq)
            .into_iter()
            .map(|to| (role, to))
            .collect();
    }
    let mut to = attacks::pawn_attacks(color, sq);
    let step = if color.is_white() { 8 } else { -8 };
    if let Some(one) = sq.offset(step) {
        to |= one;
        if sq.rank() == color.relative_rank(shakmaty::Rank::Second) {
            if let Some(two) = one.offset(step) {
                to |= two;
            }
        }
    }
    let last = color.relative_rank(shakmaty::Rank::Eighth);
    let mut out = Vec::new();
    for t in to {
        if t.rank() == last {
            for promoted in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                out.push((promoted, t));
            }
        } else {
            out.push((Role::Pawn, t));
        }
    }
    out
}

impl Tables {
    fn build() -> Tables {
        let mut reach = vec![FAR; 2 * 6 * 64 * 64];
        let mut attack = vec![FAR; 2 * 6 * 64 * 64];
        let mut cover = vec![0; 2 * 6 * 64];
        let mut promote = vec![FAR; 2 * 64];
        let mut near = vec![[Bitboard::EMPTY; NEAR]; 2 * 6 * 64];
        let mut state_dist = Vec::with_capacity(2 * 6 * 64 * 6 * 64);
        // Every unit's one-move successors, made once: the searches below
        // ask for each of them hundreds of times, and making them anew
        // was most of a one-shot solve's CPU time on a small problem.
        let mut succ = vec![Vec::new(); 2 * 6 * 64];
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in Square::ALL {
                    succ[cover_index(color, role, sq)] = successors(color, role, sq);
                }
            }
        }
        let succ = |color: Color, role: Role, sq: Square| -> &[(Role, Square)] {
            &succ[cover_index(color, role, sq)]
        };
        // Each unit's attacks on an empty board, read below some hundred
        // thousand times.
        let mut attacks_of = vec![Bitboard::EMPTY; 2 * 6 * 64];
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in Square::ALL {
                    attacks_of[cover_index(color, role, sq)] = empty_attacks(color, role, sq);
                }
            }
        }
        let attacks_of =
            |color: Color, role: Role, sq: Square| attacks_of[cover_index(color, role, sq)];
        for color in [Color::Black, Color::White] {
            for role in Role::ALL {
                for from in Square::ALL {
                    let at_state = (((color as usize) * 6 + role as usize - 1) * 64
                        + from.to_usize())
                        * 6
                        * 64;
                    debug_assert_eq!(state_dist.len(), at_state);
                    // A piece moves and attacks alike for both colours on
                    // an empty board: White's rows are Black's (built
                    // first), copied (the build 2.2 -> 1.5 ms, which every
                    // one-shot solve pays).
                    if color.is_white() && role != Role::Pawn {
                        let black = index(Color::Black, role, from, Square::A1);
                        let row = index(color, role, from, Square::A1);
                        // A colour's state rows: 6 roles x 64 squares, of
                        // 6 x 64 states each.
                        let black_state = at_state - 6 * 64 * 6 * 64;
                        state_dist.extend_from_within(black_state..black_state + 6 * 64);
                        reach.copy_within(black..black + 64, row);
                        attack.copy_within(black..black + 64, row);
                        near[row / 64] = near[black / 64];
                        continue;
                    }
                    let dist = bfs(color, role, from, succ);
                    state_dist.extend_from_slice(&dist);
                    // The squares stood on and attacked at each distance,
                    // as bitboards: a square's distance is the first level
                    // that holds it. (Square by square, attacks included,
                    // this was a quarter of a small one-shot solve.)
                    let mut levels: Vec<(Bitboard, Bitboard)> = Vec::new();
                    for (state, &d) in dist.iter().enumerate() {
                        if d == FAR {
                            continue;
                        }
                        let d = usize::from(d);
                        if levels.len() <= d {
                            levels.resize(d + 1, (Bitboard::EMPTY, Bitboard::EMPTY));
                        }
                        let r = Role::ALL[state / 64];
                        let at = Square::new((state % 64) as u32);
                        levels[d].0.add(at);
                        levels[d].1 |= attacks_of(color, r, at);
                        if role == Role::Pawn && r != Role::Pawn {
                            let p = (color as usize) * 64 + from.to_usize();
                            promote[p] = promote[p].min(d as u8);
                        }
                    }
                    let row = index(color, role, from, Square::A1);
                    let (mut stood, mut attacked) = (Bitboard::EMPTY, Bitboard::EMPTY);
                    for (d, &(on, hits)) in levels.iter().enumerate() {
                        for to in on & !stood {
                            reach[row + to.to_usize()] = d as u8;
                        }
                        for target in hits & !attacked {
                            attack[row + target.to_usize()] = d as u8;
                        }
                        stood |= on;
                        attacked |= hits;
                        if let Some(within) = near[row / 64].get_mut(d..) {
                            within.iter_mut().for_each(|w| *w |= on);
                        }
                    }
                }
                for king in Square::ALL {
                    let zone = attacks::king_attacks(king).with(king);
                    let best = Square::ALL
                        .into_iter()
                        .filter(|&e| e != king && (role != Role::King || e.distance(king) >= 2))
                        .map(|e| (attacks_of(color, role, e) & zone).count())
                        .max()
                        .unwrap_or(0);
                    cover[cover_index(color, role, king)] = best as u8;
                }
            }
        }
        // Only knights and pawns give their mating check by a move of
        // their own (see `check_cost`): the other roles' rows stay `FAR`.
        let mut check = vec![FAR; 2 * 6 * 64 * 64];
        for color in Color::ALL {
            for role in [Role::Knight, Role::Pawn] {
                for from in Square::ALL {
                    for &(r, s) in succ(color, role, from) {
                        for target in Square::ALL {
                            let d = attack[index(color, r, s, target)].saturating_add(1);
                            let i = index(color, role, from, target);
                            check[i] = check[i].min(d);
                        }
                    }
                }
            }
        }
        Tables {
            near,
            reach,
            attack,
            check,
            cover,
            promote,
            state: state_dist,
        }
    }

    /// Moves for a unit to stand on `to` as `final_role`.
    pub(super) fn state_dist(
        &self,
        color: Color,
        role: Role,
        from: Square,
        final_role: Role,
        to: Square,
    ) -> u8 {
        self.state_row(color, role, from)[(final_role as usize - 1) * 64 + to.to_usize()]
    }

    /// [`Tables::state_dist`] from `from` to every state, indexed
    /// `(final_role - 1) * 64 + to`.
    pub(super) fn state_row(&self, color: Color, role: Role, from: Square) -> &[u8] {
        let i = (((color as usize) * 6 + role as usize - 1) * 64 + from.to_usize()) * 6 * 64;
        &self.state[i..i + 6 * 64]
    }

    pub(super) fn reach(&self, color: Color, role: Role, from: Square, to: Square) -> u8 {
        self.reach[index(color, role, from, to)]
    }

    /// The squares `reach` puts within `d` moves (`d` below [`NEAR`]).
    pub(super) fn near(&self, color: Color, role: Role, from: Square, d: usize) -> Bitboard {
        self.near[index(color, role, from, Square::A1) / 64][d]
    }

    /// Whether a White unit now `role` on `from` can neither pin nor
    /// check a king on `king` within `moves`: a knight or a pawn that
    /// cannot promote in time (a pawn cannot pin, a piece could) and
    /// cannot reach a square attacking it.
    pub(super) fn never_pins_nor_checks(
        &self,
        role: Role,
        from: Square,
        king: Square,
        moves: u32,
    ) -> bool {
        let promotes = role == Role::Pawn && u32::from(self.promote(Color::White, from)) <= moves;
        matches!(role, Role::Knight | Role::Pawn)
            && !promotes
            && u32::from(self.attack(Color::White, role, from, king)) > moves
    }

    /// Moves for a pawn of `color` on `from` to reach its promotion rank.
    pub(super) fn promote(&self, color: Color, from: Square) -> u8 {
        self.promote[(color as usize) * 64 + from.to_usize()]
    }

    /// Moves for a unit to stand where it attacks `target`.
    pub(super) fn attack(&self, color: Color, role: Role, from: Square, target: Square) -> u8 {
        self.attack[index(color, role, from, target)]
    }

    /// Moves for a unit to give check on `king` as White's last move:
    /// a slider may check by discovery without moving, a knight or a pawn
    /// (unless it may have promoted) must move onto its checking square.
    fn check_cost(&self, color: Color, u: &Unit, king: Square, moves: u8) -> u8 {
        match u.role {
            Role::King => FAR,
            Role::Bishop | Role::Rook | Role::Queen => self.attack(color, u.role, u.sq, king),
            Role::Pawn if self.promote(color, u.sq) <= moves => {
                self.attack(color, u.role, u.sq, king)
            }
            Role::Knight | Role::Pawn => self.check[index(color, u.role, u.sq, king)],
        }
    }

    /// How many squares of `king`'s zone a unit may cover once it has used
    /// at most `moves` moves (a pawn may have promoted by then).
    fn cover(&self, color: Color, role: Role, from: Square, king: Square, moves: u8) -> u8 {
        let own = self.cover[cover_index(color, role, king)];
        if role == Role::Pawn && self.promote(color, from) <= moves {
            [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
                .into_iter()
                .map(|r| self.cover[cover_index(color, r, king)])
                .fold(own, u8::max)
        } else {
            own
        }
    }
}

/// Shortest move counts from `from` to every (role, square) state, indexed
/// `(role - 1) * 64 + square`: a breadth-first search a level at a time,
/// the squares of each role's states as a bitboard (a piece's next level
/// is its attacks from the last; only pawns read their listed successors,
/// for their steps and promotions). State by state, with a list per level,
/// the tables took 2.8 ms to build, a sixth of a small one-shot `cookd
/// solve`; then 1.2 ms, with the attacks below tabled, byte for byte the
/// same tables.
fn bfs<'a>(
    color: Color,
    role: Role,
    from: Square,
    succ: impl Fn(Color, Role, Square) -> &'a [(Role, Square)],
) -> Vec<u8> {
    let mut dist = vec![FAR; 6 * 64];
    // A pawn never stands on its first or last rank.
    if role == Role::Pawn
        && (from.rank() == color.relative_rank(shakmaty::Rank::First)
            || from.rank() == color.relative_rank(shakmaty::Rank::Eighth))
    {
        return dist;
    }
    let layer = |r: Role| r as usize - 1;
    let mut seen = [Bitboard::EMPTY; 6];
    let mut frontier = [Bitboard::EMPTY; 6];
    seen[layer(role)] = Bitboard::from(from);
    frontier[layer(role)] = Bitboard::from(from);
    dist[layer(role) * 64 + from.to_usize()] = 0;
    let mut d = 0;
    while frontier.iter().any(|f| f.any()) {
        d += 1;
        let mut next = [Bitboard::EMPTY; 6];
        for r in Role::ALL {
            for sq in frontier[layer(r)] {
                if r == Role::Pawn {
                    for &(r2, to) in succ(color, r, sq) {
                        next[layer(r2)].add(to);
                    }
                } else {
                    next[layer(r)] |= empty_attacks(color, r, sq);
                }
            }
        }
        for (l, next) in next.iter_mut().enumerate() {
            *next &= !seen[l];
            seen[l] |= *next;
            for sq in *next {
                dist[l * 64 + sq.to_usize()] = d;
            }
        }
        frontier = next;
    }
    dist
}

pub(super) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(Tables::build)
}

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
    may_end(pos, left, true)
}

/// May Black still be stalemated after exactly `left` more plies, the last
/// one White's? The mate test without its check: a stalemated king too
/// stands on a square whose every flight is blocked by Black or attacked
/// by White, so the same distances bound it. `false` only when no sequence
/// of that length can stalemate.
pub(crate) fn may_stalemate(pos: &Chess, left: u8) -> bool {
    may_end(pos, left, false)
}

/// [`may_mate`] when `check`, else [`may_stalemate`].
fn may_end(pos: &Chess, left: u8, check: bool) -> bool {
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
    let mut least = Least::new(t, white, black);
    let reach = u32::from(black_moves + black_bonus / 2);
    squares_within(black_king, reach).into_iter().any(|k| {
        let spare = black_moves + black_bonus - k.distance(black_king) as u8;
        picture_possible(t, &mut least, white, black, k, white_moves, spare, check)
    })
}

/// The squares at most `d` king steps from `sq`: a box of files and ranks.
fn squares_within(sq: Square, d: u32) -> Bitboard {
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
    /// The squares asked about so far.
    known: Bitboard,
    /// `(white, black)` per square, where `known`.
    by: [(u8, u8); 64],
}

impl<'a> Least<'a> {
    fn new(t: &'a Tables, white: &'a [Unit], black: &'a [Unit]) -> Least<'a> {
        Least {
            t,
            white,
            black,
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
                least(self.black, Tables::reach, Color::Black),
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
            .map(|u| t.check_cost(w, u, king, white_moves))
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
            check[i] = t.check_cost(w, u, king, white_moves);
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

    use crate::testing::{passes_all_along, position, stalemate_in};

    /// The tables built level by level with bitboards equal their
    /// definitions taken square by square from the state distances, and
    /// those equal a search of their own for each colour (White's piece
    /// rows are copied from Black's).
    #[test]
    fn tables_match_their_definitions_from_state_distances() {
        let t = tables();
        let mut succ = vec![Vec::new(); 2 * 6 * 64];
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in Square::ALL {
                    succ[cover_index(color, role, sq)] = successors(color, role, sq);
                }
            }
        }
        for color in Color::ALL {
            for role in Role::ALL {
                for from in Square::ALL {
                    let own = bfs(color, role, from, |c, r, sq| &succ[cover_index(c, r, sq)]);
                    assert_eq!(t.state_row(color, role, from), own.as_slice());
                    let states = || {
                        Role::ALL.into_iter().flat_map(move |r| {
                            Square::ALL
                                .into_iter()
                                .map(move |sq| (r, sq, t.state_dist(color, role, from, r, sq)))
                        })
                    };
                    for to in Square::ALL {
                        let reach = states()
                            .filter(|&(_, sq, _)| sq == to)
                            .map(|(_, _, d)| d)
                            .min();
                        assert_eq!(t.reach(color, role, from, to), reach.unwrap_or(FAR));
                        let attack = states()
                            .filter(|&(r, sq, d)| {
                                d != FAR && empty_attacks(color, r, sq).contains(to)
                            })
                            .map(|(_, _, d)| d)
                            .min();
                        assert_eq!(t.attack(color, role, from, to), attack.unwrap_or(FAR));
                        for d in 0..NEAR {
                            let within = u32::from(t.reach(color, role, from, to)) <= d as u32;
                            assert_eq!(t.near(color, role, from, d).contains(to), within);
                        }
                        if matches!(role, Role::Knight | Role::Pawn) {
                            let check = successors(color, role, from)
                                .into_iter()
                                .map(|(r, s)| t.attack(color, r, s, to).saturating_add(1))
                                .min();
                            let i = index(color, role, from, to);
                            assert_eq!(t.check[i], check.unwrap_or(FAR));
                        }
                    }
                    let promote = (role == Role::Pawn)
                        .then(|| states().filter(|&(r, _, _)| r != Role::Pawn))
                        .into_iter()
                        .flatten()
                        .map(|(_, _, d)| d)
                        .min();
                    if role == Role::Pawn {
                        assert_eq!(t.promote(color, from), promote.unwrap_or(FAR));
                    }
                }
            }
        }
    }

    #[test]
    fn distances_on_an_empty_board() {
        let t = tables();
        let w = Color::White;
        assert_eq!(t.reach(w, Role::Knight, Square::A1, Square::B3), 1);
        assert_eq!(t.reach(w, Role::Knight, Square::A1, Square::H8), 6);
        assert_eq!(t.reach(w, Role::Bishop, Square::A1, Square::B1), FAR);
        assert_eq!(t.reach(w, Role::King, Square::C1, Square::G3), 4);
        // e2-e4-e5-e6-e7-e8=Q.
        assert_eq!(t.reach(w, Role::Pawn, Square::E2, Square::E8), 5);
        // ... and the new queen goes on to a1 at once.
        assert_eq!(t.reach(w, Role::Pawn, Square::E2, Square::A4), 6);
        assert_eq!(t.reach(Color::Black, Role::Pawn, Square::D7, Square::D5), 1);
        // d2-d4-d5.
        assert_eq!(t.attack(w, Role::Pawn, Square::D2, Square::E6), 2);
        assert_eq!(t.attack(w, Role::King, Square::C1, Square::H2), 4);
        assert_eq!(t.attack(w, Role::Bishop, Square::G2, Square::H1), 0);
        assert_eq!(t.cover[cover_index(w, Role::King, Square::E4)], 3);
        assert_eq!(t.cover[cover_index(w, Role::Knight, Square::E4)], 2);
    }

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

    /// Every position on the way to a real helpstalemate passes the
    /// stalemate test with the plies it still has.
    #[test]
    fn stalemate_lines_pass_all_along() {
        let cases = [
            // hpint 33 (Steudel): four promotions.
            (
                "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
                "c2c1r h6h7 c1h1 h7h8q g2g1b h8h3 b2b1n h3f1",
            ),
            // hpint 54 (Szentai): three bishops given to the pawn.
            (
                "8/8/8/8/8/p7/P2p1pp1/1K5k b - - 0 1",
                "d2d1b b1a1 d1b3 a2b3 f2f1b b3b4 f1a6 b4b5 g2g1b b5a6 g1h2 a6a7 h2b8 a7b8q a3a2 b8g3",
            ),
            // hpint 31 (Steudel).
            (
                "8/p7/B7/7p/P3K1pr/7b/1p2p2p/6k1 b - - 0 1",
                "b2b1r a4a5 b1b6 a5b6 e2e1n b6b7 e1g2 b7b8q h2h1b b8g3",
            ),
        ];
        for (fen, line) in cases {
            let end = passes_all_along(fen, line, may_stalemate);
            assert!(end.is_stalemate(), "{fen}");
        }
    }

    /// A position the stalemate test rejects has no helpstalemate of that
    /// length, checked by playing every line along random games; and the
    /// test rejects some, or it would prove nothing.
    #[test]
    fn rejected_positions_have_no_stalemate() {
        use crate::testing::stalemate_cases;
        let fens = [
            "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
            "8/8/8/8/8/p7/P2p1pp1/1K5k b - - 0 1",
            "8/p7/B7/7p/P3K1pr/7b/1p2p2p/6k1 b - - 0 1",
            "8/8/8/3k4/8/8/2N5/K6R b - - 0 1",
            "7k/8/5K2/8/8/8/8/1B6 w - - 0 1",
            "k7/8/1K6/8/8/8/6p1/7R b - - 0 1",
        ];
        let (mut tested, mut rejected) = (0, 0);
        for (pos, left) in stalemate_cases(&fens) {
            tested += 1;
            if !may_stalemate(&pos, left) {
                rejected += 1;
                assert!(
                    !stalemate_in(&pos, left),
                    "{} in {left}",
                    shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                );
            }
        }
        println!("{rejected} of {tested} rejected");
        assert!(rejected * 10 > tested, "{rejected} of {tested} rejected");
    }
}
