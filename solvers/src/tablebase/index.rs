//! Where a position lives in a DTM table: the index layout.
//!
//! A table covers one *normalized* material (the stronger side as White,
//! see [`Material::normalized`]); a position of the mirrored material is
//! probed with colours swapped and the board flipped.
//!
//! The index of a position is, most significant first:
//!
//! ```text
//! index = side_to_move · per_side                 (0 White, 1 Black)
//!       + ((king_pair · size(g1) + rank(g1)) · size(g2) + rank(g2)) …
//! ```
//!
//! * `king_pair` numbers the placements of the two kings that remain after
//!   the board's symmetries are used up. Without pawns all eight symmetries
//!   of the square apply: the White king is brought into the a1–d1–d4
//!   triangle and, when it stands on the a1–h8 diagonal, the Black king onto
//!   or below that diagonal, leaving 462 legal pairs. With pawns only the
//!   left–right mirror applies: the White king on files a–d, the Black king
//!   anywhere not next to it, 1806 pairs.
//! * `g1, g2, …` are the groups of identical units (same colour and role) in
//!   material-key order, White's first: `KQQvKR` has groups `QQ` and `r`.
//!   A group of `k` units on a domain of `m` squares (64, or the 48 squares
//!   of ranks 2–7 for pawns) has `size = C(m, k)` and its sorted squares
//!   `s0 < s1 < …` have `rank = C(s0, 1) + C(s1, 2) + …` (the combinatorial
//!   number system): `KQQvK` needs 63·64/2 slots for the queens, not 64².
//!
//! Some slots hold no legal position: units on the same square, the side
//! not to move in check, or a second name for a position that is symmetric
//! (both kings on the diagonal, where either of two mirror images encodes
//! it; [`Layout::encode`] picks the smaller index and the other slot stays
//! unused). Generation marks such slots as draws and never probes them.
//!
//! En passant is not part of the index: a position where an en-passant
//! capture is legal is valued from its moves (see the generator and
//! [`super::DtmTables::try_probe`]). Castling is excluded: with at most five units a side
//! can castle only with king and rook on their home squares, which problem
//! positions never need from a table, and Syzygy tables exclude it too.

use shakmaty::{
    Bitboard, Board, ByRole, CastlingMode, Chess, Color, FromSetup, Piece, Role, Setup, Square,
};

use super::Material;

/// The largest number of units a table may hold: more would need more
/// memory than a judge's machine has (a six-unit table is tens of GiB).
pub const MAX_UNITS: usize = 5;

const MAX_GROUP: usize = MAX_UNITS - 2;
const NO_PAIR: u16 = u16::MAX;

/// Unit placement as the index sees it: squares as 0..64 (a1 = 0, h8 = 63)
/// in layout order (White king, Black king, then the groups).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub squares: [u8; MAX_UNITS],
    pub white_to_move: bool,
}

/// One group of identical units.
#[derive(Debug, Clone)]
pub struct Group {
    pub piece: Piece,
    pub count: usize,
    /// Slot of the group's first unit in [`Placement::squares`].
    pub first: usize,
    size: u64,
    /// `size` as a divisor of slice numbers and places in a slice.
    divisor: Divisor,
    /// What one step of this group's rank adds to an index.
    stride: u64,
    /// What it adds to a slice number (pawns) or a place in a slice (the
    /// other groups), see [`Layout::encode_split`].
    split_stride: u64,
    /// Sorted squares (in the group's domain) by rank.
    unrank: Vec<[u8; MAX_GROUP]>,
}

impl Group {
    /// The group's rank in `p`, as placed (no symmetry applied).
    fn rank(&self, p: &Placement) -> u64 {
        self.rank_of(&p.squares[self.first..self.first + self.count])
    }

    /// [`Group::rank`] with the unit in `slot` of `p` on `to`.
    fn rank_moved(&self, p: &Placement, slot: usize, to: u8) -> u64 {
        let mut squares = [0u8; MAX_GROUP];
        for (i, sq) in squares[..self.count].iter_mut().enumerate() {
            let s = self.first + i;
            *sq = if s == slot { to } else { p.squares[s] };
        }
        self.rank_of(&squares[..self.count])
    }

    /// The rank of the group's units on `squares`, as placed.
    fn rank_of(&self, squares: &[u8]) -> u64 {
        let offset = self.domain_offset();
        if let [sq] = squares {
            return u64::from(sq - offset);
        }
        let mut s = [0u8; MAX_GROUP];
        for (d, &sq) in s.iter_mut().zip(squares) {
            *d = sq - offset;
        }
        s[..self.count].sort_unstable();
        s[..self.count]
            .iter()
            .enumerate()
            .map(|(i, &sq)| BINOMIAL[usize::from(sq)][i + 1])
            .sum()
    }

    /// Puts the group's units on the squares of its rank `rank`.
    #[inline]
    fn place(&self, rank: usize, squares: &mut [u8; MAX_UNITS]) {
        let offset = self.domain_offset();
        for (i, &s) in self.unrank[rank][..self.count].iter().enumerate() {
            squares[self.first + i] = s + offset;
        }
    }

    fn domain_offset(&self) -> u8 {
        if self.piece.role == Role::Pawn {
            8
        } else {
            0
        }
    }
}

/// The index layout of one normalized material.
#[derive(Debug, Clone)]
pub struct Layout {
    material: Material,
    pairs: Vec<(u8, u8)>,
    pair_index: Vec<u16>,
    /// For each (White king, Black king): bit `t` set when symmetry `t`
    /// brings the pair into the stored set.
    symmetries: Vec<u8>,
    groups: Vec<Group>,
    /// The unit in each slot of a placement.
    pieces: [Piece; MAX_UNITS],
    /// The group of each slot past the kings.
    slot_groups: [u8; MAX_UNITS],
    units: usize,
    per_side: u64,
    /// See [`Layout::pawn_configs`].
    pawn_configs: u32,
    /// Places of a slice with one side to move.
    rest_per_side: u64,
    /// What one step of the king pair adds to an index.
    pair_stride: u64,
    /// What it adds to a place in a slice.
    pair_split_stride: u64,
}

/// Division of numbers below 2^32 by a constant, by multiplication
/// (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
/// 2019): decoding a slot divides by every group's size, and a hardware
/// division costs tens of cycles on the generator's hottest path.
#[derive(Debug, Clone, Copy)]
struct Divisor {
    d: u64,
    /// `ceil(2^64 / d)`.
    m: u64,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        assert!((2..1 << 32).contains(&d), "a divisor of 32 bits, not 1");
        Divisor {
            d,
            m: u64::MAX / d + 1,
        }
    }

    /// `(n / d, n % d)` for `n < 2^32`.
    #[inline]
    fn div_rem(self, n: u64) -> (u64, u64) {
        debug_assert!(n < 1 << 32);
        let low = self.m.wrapping_mul(n);
        let q = ((u128::from(self.m) * u128::from(n)) >> 64) as u64;
        let r = ((u128::from(low) * u128::from(self.d)) >> 64) as u64;
        (q, r)
    }
}

/// Symmetry `t` of the board: bit 2 mirrors in the a1–h8 diagonal, then bit
/// 0 mirrors left–right and bit 1 top–bottom. The eight values are the
/// eight symmetries of the square.
pub fn transform(t: u8, sq: u8) -> u8 {
    TRANSFORMS[usize::from(t)][usize::from(sq)]
}

/// [`transform`] as a table, for the hot path.
const TRANSFORMS: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut s = sq as u8;
            if t & 4 != 0 {
                s = (s >> 3) | ((s & 7) << 3);
            }
            if t & 1 != 0 {
                s ^= 7;
            }
            if t & 2 != 0 {
                s ^= 56;
            }
            table[t][sq] = s;
            sq += 1;
        }
        t += 1;
    }
    table
};

fn file(sq: u8) -> u8 {
    sq & 7
}

fn rank(sq: u8) -> u8 {
    sq >> 3
}

/// Whether kings on these squares stand apart (neither together nor side
/// by side).
pub fn kings_apart(a: u8, b: u8) -> bool {
    a != b
        && (i16::from(file(a)) - i16::from(file(b)))
            .abs()
            .max((i16::from(rank(a)) - i16::from(rank(b))).abs())
            > 1
}

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// `C(n, k)` for the squares and group sizes an index uses.
const BINOMIAL: [[u64; MAX_GROUP + 1]; 64] = {
    let mut table = [[0u64; MAX_GROUP + 1]; 64];
    let mut n = 0;
    while n < 64 {
        let mut k = 0;
        while k <= MAX_GROUP {
            let mut acc = 1u64;
            let mut i = 0;
            while i < k {
                acc = if n as u64 >= i as u64 {
                    acc * (n as u64 - i as u64) / (i as u64 + 1)
                } else {
                    0
                };
                i += 1;
            }
            table[n][k] = acc;
            k += 1;
        }
        n += 1;
    }
    table
};

impl Layout {
    /// The layout for `material`, which must be normalized and hold at
    /// most [`MAX_UNITS`] units.
    pub fn new(material: Material) -> Layout {
        debug_assert_eq!(material.normalized().0, material);
        assert!(material.count() as usize <= MAX_UNITS);
        let pawns = material.has_pawns();
        let mut pairs = Vec::new();
        let mut pair_index = vec![NO_PAIR; 64 * 64];
        for wk in 0..64u8 {
            let stored = if pawns {
                file(wk) < 4
            } else {
                file(wk) < 4 && rank(wk) <= file(wk)
            };
            if !stored {
                continue;
            }
            for bk in 0..64u8 {
                let below = !pawns && rank(wk) == file(wk) && rank(bk) > file(bk);
                if kings_apart(wk, bk) && !below {
                    pair_index[usize::from(wk) * 64 + usize::from(bk)] = pairs.len() as u16;
                    pairs.push((wk, bk));
                }
            }
        }
        let transforms: &[u8] = if pawns {
            &[0, 1]
        } else {
            &[0, 1, 2, 3, 4, 5, 6, 7]
        };
        let mut symmetries = vec![0u8; 64 * 64];
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                for &t in transforms {
                    let (a, b) = (transform(t, wk), transform(t, bk));
                    if pair_index[usize::from(a) * 64 + usize::from(b)] != NO_PAIR {
                        symmetries[usize::from(wk) * 64 + usize::from(bk)] |= 1 << t;
                    }
                }
            }
        }
        let mut groups = Vec::new();
        let mut first = 2;
        for color in [Color::White, Color::Black] {
            let side = material_side(&material, color);
            for role in [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ] {
                let count = usize::from(*side.get(role));
                if count == 0 {
                    continue;
                }
                let domain = if role == Role::Pawn { 48 } else { 64 };
                groups.push(Group {
                    piece: Piece { color, role },
                    count,
                    first,
                    size: binomial(domain, count as u64),
                    divisor: Divisor::new(binomial(domain, count as u64)),
                    stride: 0,
                    split_stride: 0,
                    unrank: unrank_table(domain as u8, count),
                });
                first += count;
            }
        }
        let mut stride = 1;
        let (mut pawn_stride, mut other_stride) = (1, 1);
        for group in groups.iter_mut().rev() {
            group.stride = stride;
            stride *= group.size;
            let split = if group.piece.role == Role::Pawn {
                &mut pawn_stride
            } else {
                &mut other_stride
            };
            group.split_stride = *split;
            *split *= group.size;
        }
        let per_side = stride * pairs.len() as u64;
        let pawn_configs = pawn_stride as u32;
        let rest_per_side = per_side / pawn_stride;
        assert!(2 * rest_per_side < 1 << 32, "places in a slice fit 32 bits");
        let mut pieces = [Color::White.king(); MAX_UNITS];
        pieces[1] = Color::Black.king();
        let mut slot_groups = [0; MAX_UNITS];
        for (number, group) in groups.iter().enumerate() {
            pieces[group.first..group.first + group.count].fill(group.piece);
            slot_groups[group.first..group.first + group.count].fill(number as u8);
        }
        Layout {
            pieces,
            slot_groups,
            material,
            pairs,
            pair_index,
            symmetries,
            groups,
            units: first,
            per_side,
            pawn_configs,
            rest_per_side,
            pair_stride: stride,
            pair_split_stride: other_stride,
        }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Slots in the table (both sides to move).
    pub fn size(&self) -> u64 {
        2 * self.per_side
    }

    pub fn king_pairs(&self) -> usize {
        self.pairs.len()
    }

    pub fn units(&self) -> usize {
        self.units
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The unit in slot `i` of a placement.
    pub fn piece(&self, slot: usize) -> Piece {
        self.pieces[slot]
    }

    /// The placement stored at `index`, `None` when two units would share
    /// a square.
    pub fn decode(&self, index: u64) -> Option<Placement> {
        let white_to_move = index < self.per_side;
        let mut rest = index % self.per_side;
        let mut squares = [0u8; MAX_UNITS];
        for group in self.groups.iter().rev() {
            group.place((rest % group.size) as usize, &mut squares);
            rest /= group.size;
        }
        self.with_kings(squares, rest, white_to_move)
    }

    /// The index of a placement (units on distinct squares, pawns on ranks
    /// 2–7, kings not adjacent), after bringing it into the stored part of
    /// the board by symmetry.
    pub fn encode(&self, p: &Placement) -> u64 {
        let (wk, bk) = (p.squares[0], p.squares[1]);
        let mask = self.symmetries[usize::from(wk) * 64 + usize::from(bk)];
        debug_assert!(mask != 0, "kings adjacent or on one square");
        let mut best = u64::MAX;
        let mut rest = mask;
        while rest != 0 {
            let t = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            best = best.min(self.encode_with(t, p));
        }
        best + if p.white_to_move { 0 } else { self.per_side }
    }

    /// The index of `q`, which is `p` with the unit in `slot` moved and the
    /// other side to move, where `index` is the index `p` was decoded from.
    /// Where only the moved unit's group (or the king pair) and the side
    /// change their digits (see [`Layout::place_delta`]), this saves a full
    /// [`Layout::encode`].
    pub fn encode_moved(&self, index: u64, p: &Placement, slot: usize, q: &Placement) -> u64 {
        match self.delta(p, slot, q.squares[slot], false) {
            Some(delta) => index.wrapping_add_signed(delta),
            None => self.encode(q),
        }
    }

    /// How far the slot of `p` moves when the unit in `slot`, not a pawn,
    /// steps to `to` and the other side is to move: in the full index
    /// without pawns, else in the place in the slice (the slice stays).
    /// `p` must be stored as placed (decoded from its slot). `None` when
    /// that takes a full encode: the move brings the kings where they need
    /// a mirror, or another unit moves while `p`'s kings have more than
    /// one stored image. Only the moved unit's group (or the king pair)
    /// and the side to move change their digits.
    #[inline]
    pub fn place_delta(&self, p: &Placement, slot: usize, to: u8) -> Option<i64> {
        debug_assert!(
            self.piece(slot).role != Role::Pawn,
            "a pawn changes the slice"
        );
        self.delta(p, slot, to, true)
    }

    /// [`Layout::place_delta`] of every move of the piece in `slot` at once,
    /// for a piece alone in its group (not a king, not a pawn) while
    /// `p`'s kings have one stored image: `(offset, stride)` such that the
    /// move to `to` moves the slot by `offset + stride * to`. The
    /// generator's predecessor loop then costs a multiply-add per un-move.
    #[inline]
    pub fn place_line(&self, p: &Placement, slot: usize) -> Option<(i64, i64)> {
        if slot < 2 || self.symmetries[king_pair_key(p)] != 1 {
            return None;
        }
        let group = self.group_of(slot);
        if group.count != 1 || group.piece.role == Role::Pawn {
            return None;
        }
        let stride = group.split_stride as i64;
        let side = self.rest_per_side as i64;
        let side = if p.white_to_move { side } else { -side };
        Some((side - stride * i64::from(p.squares[slot]), stride))
    }

    /// [`Layout::place_delta`] in the place in a slice (`split`) or in the
    /// full index, where a pawn may move too.
    #[inline(always)]
    fn delta(&self, p: &Placement, slot: usize, to: u8, split: bool) -> Option<i64> {
        let per_side = if split {
            self.rest_per_side
        } else {
            self.per_side
        } as i64;
        let side = if p.white_to_move { per_side } else { -per_side };
        // No moved copy of `p`: a byte written into it and the copy read
        // whole stalls the store buffer on this hot path.
        let digits = if slot < 2 {
            let key = if slot == 0 {
                usize::from(to) * 64 + usize::from(p.squares[1])
            } else {
                usize::from(p.squares[0]) * 64 + usize::from(to)
            };
            if self.symmetries[key] != 1 {
                return None;
            }
            let stride = if split {
                self.pair_split_stride
            } else {
                self.pair_stride
            };
            let pairs = i64::from(self.pair_index[key]) - self.pair_number(p) as i64;
            stride as i64 * pairs
        } else {
            if self.symmetries[king_pair_key(p)] != 1 {
                return None;
            }
            let group = self.group_of(slot);
            let stride = if split {
                group.split_stride
            } else {
                group.stride
            } as i64;
            if group.count == 1 {
                // A unit alone in its group: its square is its rank.
                stride * (i64::from(to) - i64::from(p.squares[slot]))
            } else {
                stride * (group.rank_moved(p, slot, to) as i64 - group.rank(p) as i64)
            }
        };
        Some(side + digits)
    }

    /// The number of the king pair of `p`, which must be stored as placed.
    fn pair_number(&self, p: &Placement) -> u64 {
        u64::from(self.pair_index[king_pair_key(p)])
    }

    fn group_of(&self, slot: usize) -> &Group {
        debug_assert!(slot >= 2, "the kings are in no group");
        &self.groups[usize::from(self.slot_groups[slot])]
    }

    /// The placement of `squares` (the units but the kings) with the kings
    /// of pair `pair`, or `None` when two units share a square.
    #[inline]
    fn with_kings(
        &self,
        mut squares: [u8; MAX_UNITS],
        pair: u64,
        white_to_move: bool,
    ) -> Option<Placement> {
        let (wk, bk) = self.pairs[pair as usize];
        squares[0] = wk;
        squares[1] = bk;
        let mut seen = 0u64;
        for &sq in &squares[..self.units] {
            if seen & (1 << sq) != 0 {
                return None;
            }
            seen |= 1 << sq;
        }
        Some(Placement {
            squares,
            white_to_move,
        })
    }

    fn encode_with(&self, t: u8, p: &Placement) -> u64 {
        let map = &TRANSFORMS[usize::from(t)];
        let wk = map[usize::from(p.squares[0])];
        let bk = map[usize::from(p.squares[1])];
        let mut index = u64::from(self.pair_index[usize::from(wk) * 64 + usize::from(bk)]);
        for group in &self.groups {
            index = index * group.size + group_rank(group, map, p);
        }
        index
    }

    /// The board of a placement.
    pub fn board(&self, p: &Placement) -> Board {
        let mut board = Board::empty();
        for slot in 0..self.units {
            board.set_piece_at(Square::new(u32::from(p.squares[slot])), self.piece(slot));
        }
        board
    }

    /// The position of a placement; `None` when it is not legal (the side
    /// not to move in check). Impossible-looking checks are kept: a table
    /// holds every position the rules allow to be set up.
    pub fn position(&self, p: &Placement) -> Option<Chess> {
        let setup = Setup {
            board: self.board(p),
            turn: Color::from_white(p.white_to_move),
            ..Setup::empty()
        };
        match Chess::from_setup(setup, CastlingMode::Standard) {
            Ok(pos) => Some(pos),
            Err(e) => e.ignore_impossible_check().ok(),
        }
    }

    /// The placement of a board holding this layout's material, or its
    /// colour-mirrored material when `mirrored` (the board is then flipped
    /// top–bottom and the colours swapped).
    pub fn placement(&self, board: &Board, turn: Color, mirrored: bool) -> Placement {
        let color_of = |c: Color| if mirrored { !c } else { c };
        let square_of = |sq: Square| {
            let s = u8::from(sq);
            if mirrored {
                s ^ 56
            } else {
                s
            }
        };
        let mut squares = [0u8; MAX_UNITS];
        squares[0] = square_of(board.king_of(color_of(Color::White)).expect("White king"));
        squares[1] = square_of(board.king_of(color_of(Color::Black)).expect("Black king"));
        for group in &self.groups {
            let bb = board.by_piece(Piece {
                color: color_of(group.piece.color),
                role: group.piece.role,
            });
            for (i, sq) in bb.into_iter().enumerate() {
                squares[group.first + i] = square_of(sq);
            }
        }
        Placement {
            squares,
            white_to_move: color_of(turn) == Color::White,
        }
    }

    pub fn occupied(&self, p: &Placement) -> Bitboard {
        p.squares[..self.units]
            .iter()
            .map(|&s| Bitboard::from_square(Square::new(u32::from(s))))
            .fold(Bitboard::EMPTY, |a, b| a | b)
    }
}

/// Where the kings of `p` are looked up in [`Layout`]'s tables by king
/// squares.
fn king_pair_key(p: &Placement) -> usize {
    usize::from(p.squares[0]) * 64 + usize::from(p.squares[1])
}

/// The rank of `group` in `p` after the square map `map`.
fn group_rank(group: &Group, map: &[u8; 64], p: &Placement) -> u64 {
    let offset = group.domain_offset();
    if group.count == 1 {
        return u64::from(map[usize::from(p.squares[group.first])] - offset);
    }
    let mut s = [0u8; MAX_GROUP];
    for i in 0..group.count {
        s[i] = map[usize::from(p.squares[group.first + i])] - offset;
    }
    s[..group.count].sort_unstable();
    s[..group.count]
        .iter()
        .enumerate()
        .map(|(i, &sq)| BINOMIAL[usize::from(sq)][i + 1])
        .sum()
}

fn material_side(material: &Material, color: Color) -> ByRole<u8> {
    match color {
        Color::White => material.white,
        Color::Black => material.black,
    }
}

/// Every sorted `count`-subset of `0..domain`, at its rank.
fn unrank_table(domain: u8, count: usize) -> Vec<[u8; MAX_GROUP]> {
    let size = binomial(u64::from(domain), count as u64) as usize;
    let mut table = vec![[0u8; MAX_GROUP]; size];
    let mut current = [0u8; MAX_GROUP];
    fill_subsets(domain, count, 0, 0, &mut current, &mut table);
    table
}

fn fill_subsets(
    domain: u8,
    count: usize,
    depth: usize,
    from: u8,
    current: &mut [u8; MAX_GROUP],
    table: &mut [[u8; MAX_GROUP]],
) {
    if depth == count {
        let r: u64 = current[..count]
            .iter()
            .enumerate()
            .map(|(i, &s)| binomial(u64::from(s), i as u64 + 1))
            .sum();
        table[r as usize] = *current;
        return;
    }
    for s in from..domain {
        current[depth] = s;
        fill_subsets(domain, count, depth + 1, s + 1, current, table);
    }
}

mod split;
#[cfg(test)]
mod tests;
