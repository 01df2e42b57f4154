//! Mate pictures for helpmates, after Popeye's intelligent mode: the final
//! positions a helpmate may end in, reduced to what makes them mate, each
//! with the moves its units need to get there.
//!
//! A picture is the Black king's final square `K'`, final states (role and
//! square) of some White units that together attack `K'` and cover every
//! flight square no Black unit blocks, and the flights Black must block.
//! Every mate reachable from the diagram contains one of the pictures
//! enumerated there (its White units, taken in order, each kept when it
//! covers a square the earlier ones do not), so a position from which no
//! picture is reachable within the moves left has no solution. Distances
//! are per unit on an empty board (see [`super::distances`]), so the test
//! is admissible: it never loses a solution.
//!
//! A flight to block is a blocker *kind*: a plain square, which any Black
//! unit may fill, or, in a picture where nothing White can pin a blocker
//! (see [`Enumeration::sole_check`]), a square with the roles that may
//! stand there without parrying the mating check.

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Position, Role, Square};

use super::distances::{empty_attacks, tables, Tables, FAR, NEAR};

mod assignment;
mod blocked;
mod castling;
mod distinct;
mod enumerate;
mod movetest;
pub(crate) use blocked::BlockedPawn;
use castling::{Castling, Rows};
use distinct::two_cheapest;
pub(crate) use distinct::{black_planes, black_rights, DistinctMemo, DistinctTest, KindCosts};
use enumerate::*;
pub(crate) use movetest::{Costs, Scratch};

/// Above this many pictures the enumeration gives up (and the search goes
/// on without them): filtering them would cost more than it saves.
const MAX_PICTURES: usize = 20_000;

/// Above this many steps the enumeration gives up too: with many White
/// units the combinations that cover nothing new still take time to try.
const MAX_STEPS: u32 = 400_000;

/// Units a side may have.
const MAX_UNITS: usize = 32;

/// White units a picture names at most; further ones only add to its
/// coverage (dropping a unit's cost keeps the test a lower bound).
const MAX_NAMED: usize = 6;

/// Blocker kinds below this are plain squares (kind `k` is square `k`).
const SQUARE_KINDS: usize = 64;

/// Blocker kinds at most: the plain squares, then harmless blocks. A
/// harmless block beyond these is treated as a plain square, which costs
/// no more (a lower bound still).
const MAX_KINDS: usize = 128;

/// A set of blocker kinds, bit `k` for kind `k`.
type Kinds = u128;

/// King moves between two squares on an empty board, tabled: the filter
/// and the move test ask for it once per picture.
fn king_distance(a: Square, b: Square) -> u32 {
    const TABLE: [[u8; 64]; 64] = {
        let mut t = [[0; 64]; 64];
        let mut a = 0usize;
        while a < 64 {
            let mut b = 0usize;
            while b < 64 {
                let files = (a % 8).abs_diff(b % 8);
                let ranks = (a / 8).abs_diff(b / 8);
                t[a][b] = if files > ranks { files } else { ranks } as u8;
                b += 1;
            }
            a += 1;
        }
        t
    };
    u32::from(TABLE[a.to_usize()][b.to_usize()])
}

/// Moves for the Black king on `from` to reach `to`, castling included.
fn black_king_distance(castling: &Castling, from: Square, to: Square) -> u8 {
    castling.least(Color::Black, Role::King, from, |s| {
        king_distance(s, to) as u8
    })
}

fn kinds_of(kinds: Kinds) -> impl Iterator<Item = usize> {
    let mut rest = kinds;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            k
        })
    })
}

/// A square to be blocked by a Black unit in one of `roles` (bit
/// `role as usize`), with each unit's cost to do so by role and square.
#[derive(Debug)]
struct HarmlessBlock {
    sq: Square,
    roles: u8,
    /// Whether Black pawns may capture on their way (see [`block_dist`]).
    pawns_capture: bool,
    /// `[role - 1][from]`.
    dist: Vec<u8>,
}

/// Every unit of the diagram, followed through the moves by identity.
#[derive(Debug, Clone)]
pub(crate) struct Units {
    /// `(role, square)`, `None` once captured.
    units: [Option<(Color, Role, Square)>; MAX_UNITS],
    by_square: [u8; 64],
}

const NO_UNIT: u8 = u8::MAX;

impl Units {
    /// `None` with more units than the table holds.
    pub(crate) fn new(pos: &Chess) -> Option<Units> {
        let board = pos.board();
        // Sixteen a side at most, as in any legal position (the Black
        // blockers are held in sixteen slots); units only ever get fewer.
        if board.occupied().count() > MAX_UNITS
            || board.white().count() > 16
            || board.black().count() > 16
        {
            return None;
        }
        let mut units = Units {
            units: [None; MAX_UNITS],
            by_square: [NO_UNIT; 64],
        };
        for (i, sq) in board.occupied().into_iter().enumerate() {
            let piece = board.piece_at(sq)?;
            units.units[i] = Some((piece.color, piece.role, sq));
            units.by_square[sq.to_usize()] = i as u8;
        }
        Some(units)
    }

    fn take(&mut self, sq: Square) -> Option<usize> {
        let id = self.by_square[sq.to_usize()];
        self.by_square[sq.to_usize()] = NO_UNIT;
        (id != NO_UNIT).then_some(usize::from(id))
    }

    fn put(&mut self, id: usize, role: Role, sq: Square) {
        if let Some((color, _, _)) = self.units[id] {
            self.units[id] = Some((color, role, sq));
            self.by_square[sq.to_usize()] = id as u8;
        }
    }

    fn capture(&mut self, sq: Square) {
        if let Some(id) = self.take(sq) {
            self.units[id] = None;
        }
    }

    /// Follows the legal move `m`, played by `turn`.
    pub(crate) fn play(&mut self, turn: Color, m: &Move) {
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                if capture.is_some() {
                    self.capture(to);
                }
                if let Some(id) = self.take(from) {
                    self.put(id, promotion.unwrap_or(role), to);
                }
            }
            Move::EnPassant { from, to } => {
                self.capture(Square::from_coords(to.file(), from.rank()));
                if let Some(id) = self.take(from) {
                    self.put(id, Role::Pawn, to);
                }
            }
            Move::Castle { king, rook } => {
                let Some(side) = m.castling_side() else {
                    return;
                };
                let k = self.take(king);
                let r = self.take(rook);
                if let Some(k) = k {
                    self.put(k, Role::King, side.king_to(turn));
                }
                if let Some(r) = r {
                    self.put(r, Role::Rook, side.rook_to(turn));
                }
            }
            Move::Put { .. } => {}
        }
    }
}

/// A White unit's final state in a picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placed {
    id: u8,
    role: Role,
    sq: Square,
}

/// One mate picture.
#[derive(Debug, Clone, Copy)]
struct Picture {
    king: Square,
    named: [Placed; MAX_NAMED],
    n_named: u8,
    /// Bit `id` set for each named unit.
    named_ids: u32,
    /// The blocks of the flights no named unit covers: Black units must
    /// stand there.
    kinds: Kinds,
}

impl Picture {
    /// The first two of its named units not yet in their final state
    /// where `units` stand.
    fn out_of_place(&self, units: &Units) -> (Option<&Placed>, Option<&Placed>) {
        let at = |n: &&Placed| units.units[usize::from(n.id)].map(|u| (u.1, u.2));
        let mut out = self.named[..usize::from(self.n_named)]
            .iter()
            .filter(|n| at(n) != Some((n.role, n.sq)));
        (out.next(), out.next())
    }
}

/// The pictures of one problem.
#[derive(Debug)]
pub(crate) struct Pictures {
    all: Vec<Picture>,
    /// Blocker kinds from [`SQUARE_KINDS`] on.
    harmless: Vec<HarmlessBlock>,
    /// By square, the harmless blocker kinds on it.
    harmless_on: [Kinds; 64],
    /// Whether White has one pawn in the diagram, so that a position of
    /// the search may have a [`BlockedPawn`] (White's pawns only get
    /// fewer).
    one_white_pawn: bool,
}

/// A final state a unit may take, with what it covers of the zone.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    role: Role,
    sq: Square,
    cost: u8,
    covers: Bitboard,
}

fn is_slider(role: Role) -> bool {
    matches!(role, Role::Bishop | Role::Rook | Role::Queen)
}

/// White's cost of a picture's named units from where they stand now, with
/// their state `rows` at the node; `FAR` when a named unit is gone. The
/// first named unit gives the mating check: it moves last, or it is a
/// slider and the check is discovered by a unit leaving the squares
/// between it and the king. A knight or pawn already on its checking
/// square, or a slider there next to the king (no square between), must
/// therefore leave and come back, which a pawn cannot. (A check standing
/// before White's last move would have been Black's own move into check.)
fn white_cost(t: &Tables, rows: &Rows, units: &Units, p: &Picture) -> u32 {
    let mut total = 0u32;
    for (i, n) in p.named[..usize::from(p.n_named)].iter().enumerate() {
        let Some((_, role, sq)) = units.units[usize::from(n.id)] else {
            return u32::from(FAR);
        };
        let d = named_dist_in(rows.way(t, role, sq), i, n, p.king);
        if d == FAR {
            return u32::from(FAR);
        }
        total += u32::from(d);
    }
    total
}

/// A unit's row of [`Tables::state_row`] (or of [`Rows::way`]), its role,
/// and whether it may castle.
type Way<'t> = (&'t [u8], Role, bool);

/// Moves for a unit on its `way` to take its state `n`, named `i`th in its
/// picture (the first gives the mating check on `king`, see
/// [`white_cost`]). A rook that may castle is not held to come back: its
/// row's naught may be its square after castling, and castling, which
/// carries it away, is the king's move.
fn named_dist_in((row, role, may_castle): Way, i: usize, n: &Placed, king: Square) -> u8 {
    let d = row[(n.role as usize - 1) * 64 + n.sq.to_usize()];
    let discoverable = is_slider(n.role) && (may_castle || attacks::between(n.sq, king).any());
    if i == 0 && d == 0 && !discoverable {
        if role == Role::Pawn {
            FAR
        } else {
            2
        }
    } else {
        d
    }
}

impl Pictures {
    /// Every picture reachable from `pos` within `plies` (the last White's),
    /// or `None` when there are too many (or too many units).
    pub(crate) fn enumerate(pos: &Chess, plies: u8) -> Option<(Pictures, Units)> {
        let units = Units::new(pos)?;
        let board = pos.board();
        let black_king = board.king_of(Color::Black)?;
        let t = tables();
        let castling = Castling::of(pos);
        let (white_moves, black_moves) = (plies.div_ceil(2), plies / 2);
        let white: Vec<(u8, Role, Square)> = units
            .units
            .iter()
            .enumerate()
            .filter_map(|(i, u)| match u {
                Some((Color::White, role, sq)) => Some((i as u8, *role, *sq)),
                _ => None,
            })
            .collect();
        let black_min = BlackBlocks::new(t, pos);
        let cheapest = black_min.cheapest_by_square();
        let mut all = Vec::new();
        let mut harmless = Vec::new();
        let mut block_rows = BlockRows::default();
        let mut steps = 0;
        for king in Square::ALL {
            let kd = black_king_distance(&castling, black_king, king);
            if kd > black_moves {
                continue;
            }
            let spare = black_moves - kd;
            let flights = attacks::king_attacks(king);
            let zone = flights.with(king);
            let options: Vec<Vec<Candidate>> = white
                .iter()
                .map(|&(_, role, from)| {
                    unit_options(t, &castling, role, from, king, zone, white_moves)
                })
                .collect();
            let mut search = Enumeration {
                king,
                flights,
                white: &white,
                options: &options,
                white_moves,
                spare,
                black: &black_min,
                cheapest: &cheapest,
                checker: 0,
                rest: Vec::new(),
                steps,
                named: Vec::new(),
                out: &mut all,
                harmless: &mut harmless,
                block_rows: &mut block_rows,
            };
            // The unit giving the mating check first, then the others in
            // order, each only where it covers something new.
            for (c, checker_options) in options.iter().enumerate() {
                let mut checks = checker_options
                    .iter()
                    .filter(|o| o.covers.contains(king))
                    .peekable();
                if checks.peek().is_none() {
                    continue;
                }
                search.checker = c;
                search.rest = rest_covers(&options, c, white_moves);
                for o in checks {
                    search.named.push(Placed {
                        id: white[c].0,
                        role: o.role,
                        sq: o.sq,
                    });
                    let ok = search.go(0, o.covers, Bitboard::from(o.sq), u32::from(o.cost));
                    search.named.pop();
                    if !ok {
                        return None;
                    }
                }
            }
            steps = search.steps;
        }
        let mut harmless_on = [0; 64];
        for (h, block) in harmless.iter().enumerate() {
            harmless_on[block.sq.to_usize()] |= 1 << (SQUARE_KINDS + h);
        }
        Some((
            Pictures {
                all,
                harmless,
                harmless_on,
                one_white_pawn: (board.white() & board.pawns()).count() == 1,
            },
            units,
        ))
    }

    /// The square a block of kind `k` stands on.
    fn kind_square(&self, k: usize) -> Square {
        match k.checked_sub(SQUARE_KINDS) {
            None => Square::new(k as u32),
            Some(h) => self.harmless[h].sq,
        }
    }

    /// Moves for a Black unit now `role` on `from` to fill kind `k`.
    fn kind_dist(&self, t: &Tables, k: usize, role: Role, from: Square) -> u8 {
        match k.checked_sub(SQUARE_KINDS) {
            None => t.reach(Color::Black, role, from, Square::new(k as u32)),
            Some(h) => self.harmless[h].dist[(role as usize - 1) * 64 + from.to_usize()],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.all.len()
    }

    /// The pictures among `from` (indices) still reachable in `pos`, with
    /// `left` plies to go, with their costs there, into `into`.
    pub(crate) fn filter(
        &self,
        pos: &Chess,
        units: &Units,
        left: u8,
        from: Option<&[Costs]>,
        into: &mut Vec<Costs>,
    ) {
        into.clear();
        let t = tables();
        let Some(black_king) = pos.board().king_of(Color::Black) else {
            return;
        };
        let white_moves = u32::from(left.div_ceil(2));
        let black_moves = u32::from(left / 2);
        let castling = Castling::of(pos);
        let rows = Rows::new(t, castling);
        let mut blocks = BlackBlocks::new(t, pos);
        let mut keep = |index: u32| {
            let p = &self.all[index as usize];
            let king = u32::from(black_king_distance(&castling, black_king, p.king));
            if king > black_moves {
                return;
            }
            let Some(blocks) = blocks.cost_within(self, p.kinds, black_moves - king) else {
                return;
            };
            let white = white_cost(t, &rows, units, p);
            if white <= white_moves {
                into.push(Costs {
                    index,
                    white: white as u8,
                    blocks: blocks as u8,
                    king: king as u8,
                    king_sq: p.king,
                    kinds: p.kinds,
                    named_ids: p.named_ids,
                    checker: p.named[0],
                });
            }
        };
        match from {
            Some(from) => from.iter().for_each(|c| keep(c.index)),
            None => (0..self.all.len() as u32).for_each(keep),
        }
    }
}

/// The moves White's last move may be, from the pictures alive before it
/// (see [`Pictures::last_moves`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastMoves {
    /// By from-square, the squares a move from there may go to.
    to: [Bitboard; 64],
}

impl LastMoves {
    /// Whether `m` may be White's last move. Castling and en passant are
    /// let through untold: a castling rook's distance to its square after
    /// castling is naught (see [`castling`]) though it stands elsewhere,
    /// and en passant takes a Black unit off a checking line.
    pub(crate) fn may_be(&self, m: &Move) -> bool {
        crate::checking::on_targets(|from| self.to[from.to_usize()], m)
    }
}

impl Pictures {
    /// The moves White's last move may be, given the pictures `alive` at
    /// its node. The mate it gives contains an alive picture, whose named
    /// units stand in their states after the move. White's cost is the
    /// sum of their distances, each 0 exactly in place, so one move from
    /// the end at most one named unit is out of place:
    ///
    /// - one out of place makes the move: onto its state's square;
    /// - none out of place: the checker (a slider, or its cost would be
    ///   two) checks after the move but not before it (Black's last move
    ///   left no check), so the move takes a White unit off the line
    ///   between the checker and the king's square: any move from there.
    pub(crate) fn last_moves(&self, units: &Units, alive: &[Costs]) -> LastMoves {
        let mut last = LastMoves {
            to: [Bitboard::EMPTY; 64],
        };
        for c in alive {
            let p = &self.all[c.index as usize];
            match p.out_of_place(units) {
                (None, _) => {
                    for from in attacks::between(p.named[0].sq, p.king) {
                        last.to[from.to_usize()] = Bitboard::FULL;
                    }
                }
                (Some(n), None) => {
                    if let Some((_, _, from)) = units.units[usize::from(n.id)] {
                        last.to[from.to_usize()].add(n.sq);
                    }
                }
                (Some(_), Some(_)) => {}
            }
        }
        last
    }
}

impl Pictures {
    /// Where Black's last move may go, by from-square, given the pictures
    /// `alive` at its node (Black to move, two plies left), into `onto`;
    /// false when any move may do. Black has one move for each alive
    /// picture's king and blocks: a picture whose king is a move away takes
    /// a king move to its square; one with a block still to fill takes a
    /// move onto the block's square by a unit standing on none of its
    /// blocks; one with everything in place takes any move of such a unit
    /// (a unit leaving a block undoes it). Castling and en passant are not
    /// told apart (see [`LastMoves::may_be`]).
    pub(crate) fn last_black_targets(
        &self,
        pos: &Chess,
        alive: &[Costs],
        onto: &mut [Bitboard; 64],
    ) -> bool {
        let board = pos.board();
        let blockers = board.black() & !board.kings();
        *onto = [Bitboard::EMPTY; 64];
        for c in alive {
            if c.king > 0 {
                if let Some(king) = board.king_of(Color::Black) {
                    onto[king.to_usize()].add(c.king_sq);
                }
                continue;
            }
            let mut squares = Bitboard(c.kinds as u64);
            for k in kinds_of(c.kinds & !Kinds::from(u64::MAX)) {
                squares.add(self.harmless[k - SQUARE_KINDS].sq);
            }
            let open = match squares & !blockers {
                _ if c.blocks == 0 => Bitboard::FULL,
                open if open.is_empty() => return false,
                open => open,
            };
            for from in blockers & !squares {
                onto[from.to_usize()] |= open;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
