//! Distances on an empty board, tabled once per process: for each unit
//! (colour, role, square), the moves it needs to stand on a square in
//! each role it may take (a pawn's promotions), to stand where it attacks
//! a square, and to give a mating check by a move of its own. A real
//! board only lengthens paths and shortens lines, so each is a lower
//! bound on what that unit needs: the helpmate move-count test
//! ([`super::help_bound`]), the mate pictures ([`super::picture`]) and
//! the helpstalemate immobility test ([`super::immobile`]) read them.

use std::sync::OnceLock;

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

/// Marks a square a unit can never reach or attack.
pub(super) const FAR: u8 = u8::MAX;

/// Distances [`Tables::near`] holds squares for.
pub(super) const NEAR: usize = 8;

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

/// [`successors`] of every unit, by [`cover_index`].
fn successor_table() -> Vec<Vec<(Role, Square)>> {
    let mut succ = vec![Vec::new(); 2 * 6 * 64];
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in Square::ALL {
                succ[cover_index(color, role, sq)] = successors(color, role, sq);
            }
        }
    }
    succ
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
        let succ = successor_table();
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
    pub(super) fn check_cost(
        &self,
        color: Color,
        role: Role,
        sq: Square,
        king: Square,
        moves: u8,
    ) -> u8 {
        match role {
            Role::King => FAR,
            Role::Bishop | Role::Rook | Role::Queen => self.attack(color, role, sq, king),
            Role::Pawn if self.promote(color, sq) <= moves => self.attack(color, role, sq, king),
            Role::Knight | Role::Pawn => self.check[index(color, role, sq, king)],
        }
    }

    /// How many squares of `king`'s zone a unit may cover once it has used
    /// at most `moves` moves (a pawn may have promoted by then).
    pub(super) fn cover(
        &self,
        color: Color,
        role: Role,
        from: Square,
        king: Square,
        moves: u8,
    ) -> u8 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables built level by level with bitboards equal their
    /// definitions taken square by square from the state distances, and
    /// those equal a search of their own for each colour (White's piece
    /// rows are copied from Black's).
    #[test]
    fn tables_match_their_definitions_from_state_distances() {
        let t = tables();
        let succ = successor_table();
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
}
