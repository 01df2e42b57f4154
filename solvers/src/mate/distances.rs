//! Distances on an empty board, tabled at compile time: for each unit
//! (colour, role, square), the moves it needs to stand on a square in
//! each role it may take (a pawn's promotions), to stand where it attacks
//! a square, and to give a mating check by a move of its own. A real
//! board only lengthens paths and shortens lines, so each is a lower
//! bound on what that unit needs: the helpmate move-count test
//! ([`super::help_bound`]), the mate pictures ([`super::picture`]) and
//! the helpstalemate immobility test ([`super::immobile`]) read them.

use std::sync::OnceLock;

use shakmaty::{Bitboard, Color, Role, Square};

use super::tablegen::{cover_index, index};
pub(super) use super::tablegen::{empty_attacks, FAR, NEAR};

/// Empty-board distance tables, generated at compile time.
pub(super) struct Tables {
    /// `[color][role][from][to]`: moves for a unit to stand on `to`
    /// (in any role it can promote to).
    reach: &'static [u8],
    /// `[color][role][from][target]`: moves for a unit to stand where it
    /// attacks `target`.
    attack: &'static [u8],
    /// `[color][role][from][target]`: moves for a unit to attack `target`
    /// with its last move landing on the attacking square (at least one
    /// move): a mating knight or pawn must make the checking move itself.
    /// Knights' and pawns' rows only; the others are `FAR`.
    check: &'static [u8],
    /// `[color][role][king]`: the most squares of `king` and its
    /// neighbourhood one unit of that role covers from one square (a king
    /// only counts neighbours: it never gives check).
    cover: &'static [u8],
    /// `[color][from]`: moves for a pawn to reach its promotion rank.
    promote: &'static [u8],
    /// `[color][role][from][d]`: the squares `reach` puts within `d`
    /// moves, for `d` below [`NEAR`], as little-endian `u64`s.
    near: &'static [u8],
    /// `[color][role][from][final role][to]`: moves for a unit to stand on
    /// `to` in the final role (a pawn's promotions).
    state: &'static [u8],
}

impl Tables {
    /// The tables in `bytes`, laid out as [`super::tablegen`] writes them.
    fn read(bytes: &'static [u8]) -> Tables {
        let (header, mut rest) = bytes.split_at(7 * 4);
        let mut sections = header.chunks_exact(4).map(|len| {
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
            let (section, after) = rest.split_at(len);
            rest = after;
            section
        });
        let mut next = || sections.next().unwrap_or_default();
        Tables {
            reach: next(),
            attack: next(),
            check: next(),
            cover: next(),
            promote: next(),
            near: next(),
            state: next(),
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
        let i = (index(color, role, from, Square::A1) / 64 * NEAR + d) * 8;
        let mut word = [0; 8];
        word.copy_from_slice(&self.near[i..i + 8]);
        Bitboard(u64::from_le_bytes(word))
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

/// The tables' bytes, generated by the build script (see
/// [`super::tablegen`]): built at compile time, they cost a one-shot solve
/// nothing but the pages it reads (building them took 1.2 ms of every
/// process, a seventh of a small helpmate's `cookd solve`).
static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/distances.bin"));

pub(super) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::read(BYTES))
}

#[cfg(test)]
mod tests {
    use super::super::tablegen::{bfs, bytes, successor_table, successors};
    use super::*;

    /// The tables the build script wrote into the binary are the
    /// generator's as it stands.
    #[test]
    fn the_built_tables_are_the_generators() {
        assert!(BYTES == bytes().as_slice());
    }

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
