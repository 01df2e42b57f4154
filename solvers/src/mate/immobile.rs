//! An admissible move-count test for helpstalemates: can every Black unit
//! but the king still end without a move?
//!
//! In a stalemate each Black unit but the king is captured or has no
//! legal move. A White move captures at most one unit, so the units that
//! cannot be made immobile in the moves left are at most White's moves.
//! A unit is immobile on its last square when it is pinned in a direction
//! it cannot move along, or when every square of its first step is held by
//! another Black unit (a White unit there could be taken), or, for a pawn,
//! when its push square is filled. A queen moves along every line, so a
//! pin never stops it. Each way is priced with empty-board distances
//! ([`super::distances::Tables`]), which only ever undercount: a pin
//! asks some White unit to stand, as a line piece, on a line through the
//! square, and the square to lie on a line through a square the king may
//! end on; a wall of blockers asks the unit's moves to the square plus
//! the moves of distinct other Black units to the blocking squares,
//! within Black's moves. Two joint counts come on top: a White line
//! piece pins one unit at most (on its one line to the king), so the
//! units only a pin stops, past the White units that are or may become
//! line pieces, are taken too; and each Black move moves one unit, so the
//! units' own least moves to where they are taken or stop add up within
//! Black's moves. The test only ever rejects positions with no
//! helpstalemate of that length, so it loses no solution. When White, to
//! move, has no move to spare for the units that must be taken, its move
//! must take one of them ([`Immobility::MustTake`]).
//!
//! The king's own stalemate is then asked of, as a helpmate's mate is by
//! [`super::help_bound`]: a square within its reach whose every flight
//! White attacks or a Black unit blocks, and here a blocker must itself
//! end without a move, which a queen never does without a wall, nor a
//! rook, bishop or knight without a pin or a wall; and the king's moves
//! come on top of those the other units need. It costs about as much as
//! the rest of the test, so it is asked only at the depths where it pays
//! ([`KingTally`]).
//!
//! The distances are those of [`super::distances`].

use std::cell::Cell;
use std::sync::OnceLock;

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Position, Rank, Role, Square};

use super::distances::{tables, Tables, NEAR};
use super::help_bound::{castling_bonus, may_end_with, squares_within, Others};

/// Most units of a side the test keeps (any legal position has at most
/// sixteen).
const MAX_UNITS: usize = 16;

/// What [`immobility`] tells of a helpstalemate node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Immobility {
    /// No sequence of the plies left leaves every Black unit but the king
    /// captured or without a move.
    Hopeless,
    /// White, to move, has as many moves left as there are Black units it
    /// must take: only a move taking one of the units on these squares
    /// may lead to stalemate.
    MustTake(Bitboard),
    /// The test tells nothing.
    Open,
}

/// May every Black unit but the king be captured or left without a move
/// after exactly `left` more plies (at least one), the last one White's?
///
/// A White move ([`Immobility::MustTake`]): after it, White has a move
/// fewer, Black as many, and no Black unit can stop more easily (each of
/// White's units is a move nearer to where it was going, with a move less
/// to go; a capture only takes a filler away). So the units that must be
/// taken now must still be taken after it, but for the one it takes.
///
/// The king's own stalemate is asked of too, its flights blocked only by
/// units that may end there without a move, where `king` says it pays.
pub(crate) fn immobility(pos: &Chess, left: u8, king: &mut KingTally) -> Immobility {
    immobility_of(pos, left, Some(king))
}

/// Plies left the [`KingTally`] tells apart; more count as these.
const TALLY_PLIES: usize = 16;

/// The king's part of [`immobility`] is dropped, plies left by plies
/// left, once this many calls there decided too few nodes.
const KING_TRIAL: u64 = 10_000;

/// Calls of the king's part of [`immobility`] and the nodes it decided,
/// per plies left: it costs about as much as the rest of the test, which
/// a node it decides saves for its whole subtree, about four times larger
/// per ply. So it must decide one node in 4 two plies from the end, one
/// in 16 at three, and so on (hpint 51, h=5: one in 3.4 at two, 20 at
/// three, 56 at four; hpint 74, h=6: one in 1.7 to 2.4 at every depth).
#[derive(Debug, Clone, Default)]
pub(crate) struct KingTally {
    calls: [u64; TALLY_PLIES],
    decided: [u64; TALLY_PLIES],
}

impl KingTally {
    fn pays(&self, left: u8) -> bool {
        let l = usize::from(left).min(TALLY_PLIES - 1);
        let rate = 1u64 << (2 * l.saturating_sub(1)).min(40);
        self.calls[l] < KING_TRIAL || self.decided[l] * rate >= self.calls[l]
    }

    fn count(&mut self, left: u8, decided: bool) {
        let l = usize::from(left).min(TALLY_PLIES - 1);
        self.calls[l] += 1;
        self.decided[l] += u64::from(decided);
    }
}

/// [`immobility`], the king's part left out without a `king` tally.
fn immobility_of(pos: &Chess, left: u8, king: Option<&mut KingTally>) -> Immobility {
    let board = pos.board();
    let white_moves = left.div_ceil(2) + castling_bonus(pos, Color::White);
    let black_moves = left / 2 + castling_bonus(pos, Color::Black);
    let others = board.black() & !board.kings();
    // Black's moves reach past the distances tabled by number.
    if usize::from(black_moves) >= NEAR {
        return Immobility::Open;
    }
    let mut black = [(Role::King, Square::A1); MAX_UNITS];
    let mut white = [(Role::King, Square::A1); MAX_UNITS];
    let (Some(n_black), Some(n_white)) = (
        fill(pos, Color::Black, &mut black),
        fill(pos, Color::White, &mut white),
    ) else {
        return Immobility::Open;
    };
    let t = tables();
    let near = |color: Color, units: &[(Role, Square)], moves: u8| {
        let moves = usize::from(moves);
        if moves >= NEAR {
            return Bitboard::FULL;
        }
        units.iter().fold(Bitboard::EMPTY, |all, &(role, from)| {
            all | t.near(color, role, from, moves)
        })
    };
    let black_near = near(Color::Black, &black[..n_black], black_moves);
    let sides = Sides {
        t,
        occupied: board.occupied(),
        black_now: board.black(),
        black_near,
        white_near: near(Color::White, &white[..n_white], white_moves),
        black: &black[..n_black],
        white: &white[..n_white],
        black_moves,
        white_moves,
        pins: pin_squares(
            t,
            &white[..n_white],
            white_moves,
            king_lines(pos, black_moves),
        ),
        walled: walled(black_near),
        least_black: [const { Cell::new(UNKNOWN) }; 64],
    };
    // Queens first: the likeliest to need taking, so a hopeless position
    // is told soonest.
    let mut order = [0usize; MAX_UNITS];
    let mut n = 0;
    for first in [true, false] {
        for (i, &(role, _)) in sides.black.iter().enumerate() {
            if role != Role::King && (role == Role::Queen) == first {
                order[n] = i;
                n += 1;
            }
        }
    }
    // With White to move (and no castling to blur its moves), the units
    // to take are told when they are as many as White's moves.
    let tell = pos.turn().is_white() && castling_bonus(pos, Color::White) == 0;
    // Unless White could take every one of them, count the units it must.
    let counted = if others.count() > usize::from(white_moves) {
        sides.count_takes(&order[..n], tell)
    } else {
        Immobility::Open
    };
    if counted == Immobility::Hopeless {
        return counted;
    }
    let Some(busy) = sides.least_sum(&order[..n]) else {
        return Immobility::Hopeless;
    };
    // The king's own stalemate, its flights blocked only by units that
    // may end there without a move.
    if let Some(tally) = king.filter(|t| t.pays(left)) {
        let others = Others {
            block: &|sq| sides.block_cost(sq),
            busy,
        };
        let hopeless = !may_end_with(pos, left, false, Some(&others));
        tally.count(left, hopeless);
        if hopeless {
            return Immobility::Hopeless;
        }
    }
    counted
}

/// The square of the unit `m` captures, if any (an en passant capture
/// takes the pawn beside its target square).
pub(crate) fn takes(m: &Move) -> Option<Square> {
    match *m {
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => m.is_capture().then(|| m.to()),
    }
}

/// Roles a Black pawn may end in: itself and its promotions, the first
/// five of [`Role::ALL`].
const FINAL_ROLES: usize = 5;

/// `[from][role - 1][d]`: the squares a Black pawn on `from` may stand on
/// as `role` within `d` moves (`d` below [`NEAR`]), from
/// [`Tables::state_dist`]: read as bitboards, not square by square, at
/// every pawn of every node tested.
fn pawn_states() -> &'static [[[Bitboard; NEAR]; FINAL_ROLES]; 64] {
    static STATES: OnceLock<Box<[[[Bitboard; NEAR]; FINAL_ROLES]; 64]>> = OnceLock::new();
    STATES.get_or_init(|| {
        let t = tables();
        let mut states = Box::new([[[Bitboard::EMPTY; NEAR]; FINAL_ROLES]; 64]);
        for from in Square::ALL {
            let row = t.state_row(Color::Black, Role::Pawn, from);
            for (r, near) in states[from.to_usize()].iter_mut().enumerate() {
                for to in Square::ALL {
                    let d = usize::from(row[r * 64 + to.to_usize()]);
                    for within in near.iter_mut().skip(d) {
                        within.add(to);
                    }
                }
            }
        }
        states
    })
}

/// `color`'s units, the king included, into `out`; `None` past
/// [`MAX_UNITS`].
fn fill(pos: &Chess, color: Color, out: &mut [(Role, Square); MAX_UNITS]) -> Option<usize> {
    let board = pos.board();
    let mut n = 0;
    for sq in board.by_color(color) {
        *out.get_mut(n)? = (board.role_at(sq)?, sq);
        n += 1;
    }
    Some(n)
}

/// Where Black units may end pinned, and by how many White units.
#[derive(Debug, Clone, Copy)]
struct Pins {
    /// Squares on a rank or file through a square some White unit can
    /// stand on as a rook or queen within White's moves, other than that
    /// square itself.
    straight: Bitboard,
    /// The same on diagonals, for a bishop or queen.
    diagonal: Bitboard,
    /// White units that are or may become line pieces in time: each pins
    /// one unit at most, on its one line to the king.
    pinners: usize,
}

/// The squares on a rank or file, and on a diagonal, through a square the
/// Black king may stand on after `moves` of Black's moves (castling's
/// bonus is in them): a pinned unit stands on such a line, between the
/// king and its pinner.
fn king_lines(pos: &Chess, moves: u8) -> (Bitboard, Bitboard) {
    let Some(king) = pos.board().king_of(Color::Black) else {
        return (Bitboard::FULL, Bitboard::FULL);
    };
    squares_within(king, u32::from(moves)).into_iter().fold(
        (Bitboard::EMPTY, Bitboard::EMPTY),
        |(straight, diagonal), k| {
            (
                straight | attacks::rook_attacks(k, Bitboard::EMPTY),
                diagonal | attacks::bishop_attacks(k, Bitboard::EMPTY),
            )
        },
    )
}

/// Where Black units may end pinned, within White's moves, on the king's
/// lines (`king`: straight, diagonal, from [`king_lines`]). Supersets will
/// do: a piece with a move to spare reaches a line through any square (a
/// bishop, any of its colour); a pawn that promotes with its last move
/// pins from its promotion squares. That the unit stands between the two,
/// on one line, is not asked for.
fn pin_squares(
    t: &Tables,
    white: &[(Role, Square)],
    moves: u8,
    king: (Bitboard, Bitboard),
) -> Pins {
    let mut pins = Pins {
        straight: Bitboard::EMPTY,
        diagonal: Bitboard::EMPTY,
        pinners: 0,
    };
    for &(role, from) in white {
        match role {
            Role::Queen => {
                pins.straight = Bitboard::FULL;
                pins.diagonal = Bitboard::FULL;
            }
            Role::Rook => pins.straight = Bitboard::FULL,
            Role::Bishop if Bitboard::LIGHT_SQUARES.contains(from) => {
                pins.diagonal |= Bitboard::LIGHT_SQUARES
            }
            Role::Bishop => pins.diagonal |= Bitboard::DARK_SQUARES,
            Role::Pawn => {
                let promote = t.promote(Color::White, from);
                if promote > moves {
                    continue;
                }
                if promote < moves {
                    pins.straight = Bitboard::FULL;
                    pins.diagonal = Bitboard::FULL;
                } else {
                    let row = t.state_row(Color::White, role, from);
                    for to in Bitboard::from_rank(Rank::Eighth) {
                        let within = |r: Role| row[(r as usize - 1) * 64 + to.to_usize()] <= moves;
                        if within(Role::Queen) || within(Role::Rook) {
                            pins.straight |= attacks::rook_attacks(to, Bitboard::EMPTY);
                        }
                        if within(Role::Queen) || within(Role::Bishop) {
                            pins.diagonal |= attacks::bishop_attacks(to, Bitboard::EMPTY);
                        }
                    }
                }
            }
            Role::King | Role::Knight => continue,
        }
        pins.pinners += 1;
    }
    pins.straight &= king.0;
    pins.diagonal &= king.1;
    pins
}

/// What the test knows of both sides.
struct Sides<'a> {
    t: &'a Tables,
    occupied: Bitboard,
    /// Squares Black's units stand on.
    black_now: Bitboard,
    /// Squares some Black unit can stand on within Black's moves.
    black_near: Bitboard,
    /// Squares some White unit can stand on within White's moves.
    white_near: Bitboard,
    black: &'a [(Role, Square)],
    white: &'a [(Role, Square)],
    black_moves: u8,
    white_moves: u8,
    pins: Pins,
    /// Per role ([`Role`] as index), the squares whose every first step
    /// lies in `black_near`: where a wall of Black units may stop it.
    walled: [Bitboard; 7],
    /// Per square, the fewest moves for any Black unit to stand there, or
    /// [`UNKNOWN`]: filled as walls ask, each square asked again and
    /// again at a node whose king's flights are tested.
    least_black: [Cell<u8>; 64],
}

/// Not yet worked out, in [`Sides::least_black`].
const UNKNOWN: u8 = u8::MAX;

impl Sides<'_> {
    /// What counting tells, `order` holding the units to test (queens
    /// first): the units no way stops must be taken, one White move each,
    /// and so must the units only a pin stops past the pinners. `tell`:
    /// say which units White's move must take when none is to spare.
    fn count_takes(&self, order: &[usize], tell: bool) -> Immobility {
        let moves = usize::from(self.white_moves);
        // The most units the test may still find to take, past which it
        // tells nothing: White's moves, less one when it tells what to take.
        let open_below = if tell { moves } else { moves + 1 };
        let pinners = self.pins.pinners;
        // Each unit, pins allowed: taken, or stopped some way.
        let mut taken = Bitboard::EMPTY;
        let mut stopped = [0usize; MAX_UNITS];
        let mut n_stopped: usize = 0;
        for (done, &i) in order.iter().enumerate() {
            // The rest could all be taken, and those stopped all but pinned.
            let most = taken.count() + (order.len() - done) + n_stopped.saturating_sub(pinners);
            if most < open_below {
                return Immobility::Open;
            }
            if self.may_stop(i, true) {
                stopped[n_stopped] = i;
                n_stopped += 1;
            } else {
                taken.add(self.black[i].1);
                if taken.count() > moves {
                    return Immobility::Hopeless;
                }
            }
        }
        // A White line piece pins one unit at most: past the pinners, the
        // units only a pin stops are taken too.
        let mut pinned_only = Bitboard::EMPTY;
        for (done, &i) in stopped[..n_stopped].iter().enumerate() {
            let most =
                taken.count() + (pinned_only.count() + n_stopped - done).saturating_sub(pinners);
            if most < open_below {
                break;
            }
            if !self.may_stop(i, false) {
                pinned_only.add(self.black[i].1);
            }
        }
        let excess = pinned_only.count().saturating_sub(pinners);
        if taken.count() + excess > moves {
            Immobility::Hopeless
        } else if tell && taken.count() + excess == moves {
            // A take of a unit only a pin stops counts when they outnumber
            // the pinners.
            Immobility::MustTake(if excess > 0 {
                taken | pinned_only
            } else {
                taken
            })
        } else {
            Immobility::Open
        }
    }

    /// The fewest moves a Black unit other than the `i`th needs to stand
    /// on `sq`.
    fn other_black(&self, i: usize, sq: Square) -> u8 {
        self.black
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &(role, from))| self.t.reach(Color::Black, role, from, sq))
            .min()
            .unwrap_or(u8::MAX)
    }

    /// The fewest moves any Black unit needs to stand on `sq`.
    fn least_black(&self, sq: Square) -> u8 {
        let cell = &self.least_black[sq.to_usize()];
        if cell.get() == UNKNOWN {
            // `other_black` of no unit is below UNKNOWN: reach is FAR at most.
            cell.set(self.other_black(usize::MAX, sq));
        }
        cell.get()
    }

    /// The fewest moves a White unit needs to stand on `sq`.
    fn white(&self, sq: Square) -> u8 {
        self.white
            .iter()
            .map(|&(role, from)| self.t.reach(Color::White, role, from, sq))
            .min()
            .unwrap_or(u8::MAX)
    }

    /// May the `i`th Black unit end without a move (pinned, if `pins`),
    /// in Black's moves left (its own and its blockers') and White's?
    fn may_stop(&self, i: usize, pins: bool) -> bool {
        let (role, from) = self.black[i];
        let moves = usize::from(self.black_moves);
        if role != Role::Pawn {
            let within =
                self.t.near(Color::Black, role, from, moves) & self.may_stop_on(role, pins);
            return within.into_iter().any(|sq| {
                let d = self.t.reach(Color::Black, role, from, sq);
                self.stops(i, role, sq, d, pins)
            });
        }
        // Filled in front, it stops where it stands.
        if sq_ahead(from).is_some_and(|push| self.occupied.contains(push)) {
            return true;
        }
        // Every role it may end in: a pawn, or what it promotes to.
        let row = self.t.state_row(Color::Black, role, from);
        let near = &pawn_states()[from.to_usize()];
        (0..FINAL_ROLES).any(|r| {
            let last = Role::ALL[r];
            (near[r][moves] & self.may_stop_on(last, pins))
                .into_iter()
                .any(|sq| {
                    let d = row[r * 64 + sq.to_usize()];
                    self.stops(i, last, sq, d, pins)
                })
        })
    }

    /// The fewest moves for a Black unit other than the king to stand on
    /// `sq` and end there without a move (see [`Sides::stops`]), in any
    /// role it may end in; `u8::MAX` when none may within Black's moves.
    /// A stalemated king's flight holds such a unit or is attacked.
    fn block_cost(&self, sq: Square) -> u8 {
        let moves = self.black_moves;
        let mut best = u8::MAX;
        for (i, &(role, from)) in self.black.iter().enumerate() {
            let mut consider = |last: Role, d: u8| {
                if d <= moves
                    && d < best
                    && self.may_stop_on(last, true).contains(sq)
                    && self.stops(i, last, sq, d, true)
                {
                    best = d;
                }
            };
            match role {
                Role::King => {}
                Role::Pawn => {
                    let row = self.t.state_row(Color::Black, role, from);
                    for (r, &last) in Role::ALL[..FINAL_ROLES].iter().enumerate() {
                        consider(last, row[r * 64 + sq.to_usize()]);
                    }
                }
                _ => consider(role, self.t.reach(Color::Black, role, from, sq)),
            }
        }
        best
    }

    /// The Black moves every unit in `units` needs at least to reach where
    /// it is taken or stops, `None` past Black's moves: each Black move
    /// moves one unit, so the units' own least moves add up.
    fn least_sum(&self, units: &[usize]) -> Option<u8> {
        let mut sum = 0;
        for &i in units {
            sum += self.least_moves(i)?;
            if sum > self.black_moves {
                return None;
            }
        }
        Some(sum)
    }

    /// The fewest moves the `i`th Black unit needs to reach a square where
    /// a White unit may take it, or where it may stop; `None` past Black's
    /// moves.
    fn least_moves(&self, i: usize) -> Option<u8> {
        let (role, from) = self.black[i];
        if role == Role::Pawn && sq_ahead(from).is_some_and(|push| self.occupied.contains(push)) {
            return Some(0);
        }
        let moves = usize::from(self.black_moves);
        let pawn = &pawn_states()[from.to_usize()];
        for d in 0..=moves {
            // The squares first reached in `d` moves, in each final role.
            let ring = |within: &[Bitboard; NEAR]| match d {
                0 => within[0],
                _ => within[d] & !within[d - 1],
            };
            let found = if role == Role::Pawn {
                (0..FINAL_ROLES).any(|r| {
                    let ring = ring(&pawn[r]);
                    // En passant: the White pawn lands behind it.
                    let behind = match r {
                        0 => (ring & Bitboard::from_rank(Rank::Fifth)).shift(8),
                        _ => Bitboard::EMPTY,
                    };
                    ((ring | behind) & self.white_near).any()
                        || (ring & self.may_stop_on(Role::ALL[r], true))
                            .into_iter()
                            .any(|sq| self.stops(i, Role::ALL[r], sq, d as u8, true))
                })
            } else {
                let ring = match d {
                    0 => Bitboard::from(from),
                    _ => {
                        self.t.near(Color::Black, role, from, d)
                            & !self.t.near(Color::Black, role, from, d - 1)
                    }
                };
                (ring & self.white_near).any()
                    || (ring & self.may_stop_on(role, true))
                        .into_iter()
                        .any(|sq| self.stops(i, role, sq, d as u8, true))
            };
            if found {
                return Some(d as u8);
            }
        }
        None
    }

    /// The squares where [`Sides::stops`] may hold for a unit ending as
    /// `role` (pinned, if `pins`): told by bitboards, so the squares
    /// where no pin nor wall nor filled push square is possible are not
    /// tried one by one.
    fn may_stop_on(&self, role: Role, pins: bool) -> Bitboard {
        let pinned = if pins {
            self.pinned(role)
        } else {
            Bitboard::EMPTY
        };
        match role {
            // Its push square filled, by either side (none on the first
            // rank, where `stops` lets it be).
            Role::Pawn => {
                pinned
                    | (self.black_near | self.white_near).shift(8)
                    | Bitboard::from_rank(Rank::First)
            }
            _ => pinned | self.walled[role as usize],
        }
    }

    /// Where a pin may stop a unit ending as `role`: a knight on any line,
    /// a bishop on a rank or file, a rook on a diagonal, a pawn on either
    /// (a superset of the pins that stop one); a queen moves along every
    /// line.
    fn pinned(&self, role: Role) -> Bitboard {
        let Pins {
            straight, diagonal, ..
        } = self.pins;
        match role {
            Role::Knight | Role::Pawn => straight | diagonal,
            Role::Bishop => straight,
            Role::Rook => diagonal,
            Role::Queen | Role::King => Bitboard::EMPTY,
        }
    }

    /// May the `i`th Black unit end without a move (pinned, if `pins`) as
    /// `role` on `sq`, having used `d` of Black's moves to get there? `sq`
    /// is one of [`Sides::may_stop_on`]'s squares.
    fn stops(&self, i: usize, role: Role, sq: Square, d: u8, pins: bool) -> bool {
        if pins && self.pinned(role).contains(sq) {
            return true;
        }
        let black_moves = u32::from(self.black_moves);
        let wall = match role {
            Role::Pawn => {
                // Black pawns stand on ranks 2 to 7: the push square is on
                // the board. Any unit may fill it.
                let Some(push) = sq_ahead(sq) else {
                    return true;
                };
                return (self.black_near.contains(push)
                    && u32::from(d) + u32::from(self.other_black(i, push)) <= black_moves)
                    || (self.white_near.contains(push) && self.white(push) <= self.white_moves);
            }
            Role::Knight => attacks::knight_attacks(sq),
            Role::Bishop => attacks::king_attacks(sq) & !straight_lines(sq),
            Role::Rook => attacks::king_attacks(sq) & straight_lines(sq),
            Role::Queen | Role::King => attacks::king_attacks(sq),
        };
        // Every square of its first step held by another Black unit: each
        // one not held now costs a move (told without counting bits), and
        // the units that fill them are distinct.
        // Asked only on `may_stop_on`'s squares: past the pin, the wall's
        // squares are all within Black's reach.
        debug_assert!(self.walled[role as usize].contains(sq));
        let spare = black_moves.saturating_sub(u32::from(d));
        if more_than(wall & !self.black_now, spare) || wall.count() >= self.black.len() {
            return false;
        }
        // Per square (in the search's order), what the squares after it
        // cost at least, each its cheapest unit: worked out once per wall,
        // read at every step of the search.
        let mut after = [0u32; 8];
        let mut sum = 0;
        for (k, b) in wall.into_iter().enumerate().rev() {
            after[k] = sum;
            sum += u32::from(self.least_black(b));
        }
        self.may_fill(1 << i, wall, &after, spare, &mut { WALL_STEPS })
    }

    /// Can the Black units not in `used` (a bit per unit) fill `squares`,
    /// a distinct unit each, within `moves` moves all told? A search over
    /// the assignments, cut by `after` (the least the squares after the
    /// first cost); after `steps` it answers yes (admissible, and no
    /// answer costs more).
    fn may_fill(
        &self,
        used: u32,
        squares: Bitboard,
        after: &[u32],
        moves: u32,
        steps: &mut u32,
    ) -> bool {
        let (Some(b), Some((&cheapest, after))) = (squares.first(), after.split_first()) else {
            return true;
        };
        if *steps == 0 {
            return true;
        }
        *steps -= 1;
        let rest = squares.without(b);
        self.black.iter().enumerate().any(|(j, &(role, from))| {
            let d = u32::from(self.t.reach(Color::Black, role, from, b));
            used & (1 << j) == 0
                && d + cheapest <= moves
                && self.may_fill(used | 1 << j, rest, after, moves - d, steps)
        })
    }
}

/// Per role ([`Role`] as index), the squares whose every first step (a
/// knight's jumps, a bishop's diagonal steps, a rook's straight ones, a
/// queen's all eight) lies in `near`: `near` shrunk step by step.
fn walled(near: Bitboard) -> [Bitboard; 7] {
    // The squares whose step stays on the board and lands in `near`, or
    // leaves the board.
    let all = |steps: &[Step]| {
        steps.iter().fold(Bitboard::FULL, |b, &(offset, inside)| {
            b & ((near.shift(-offset) & inside) | !inside)
        })
    };
    let (bishop, rook) = (all(&DIAGONAL_STEPS), all(&STRAIGHT_STEPS));
    let mut walled = [Bitboard::EMPTY; 7];
    walled[Role::Knight as usize] = all(&KNIGHT_STEPS);
    walled[Role::Bishop as usize] = bishop;
    walled[Role::Rook as usize] = rook;
    walled[Role::Queen as usize] = bishop & rook;
    walled[Role::King as usize] = bishop & rook;
    walled
}

/// A step: its offset in square numbers, and the squares it stays on the
/// board from.
type Step = (i32, Bitboard);

/// The step `df` files and `dr` ranks away (worked out at compile time).
const fn step(df: i32, dr: i32) -> Step {
    let mut inside = 0u64;
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8 + df, sq / 8 + dr);
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            inside |= 1 << sq;
        }
        sq += 1;
    }
    (df + 8 * dr, Bitboard(inside))
}

const DIAGONAL_STEPS: [Step; 4] = [step(1, 1), step(1, -1), step(-1, 1), step(-1, -1)];
const STRAIGHT_STEPS: [Step; 4] = [step(1, 0), step(-1, 0), step(0, 1), step(0, -1)];
const KNIGHT_STEPS: [Step; 8] = [
    step(1, 2),
    step(2, 1),
    step(2, -1),
    step(1, -2),
    step(-1, -2),
    step(-2, -1),
    step(-2, 1),
    step(-1, 2),
];

/// Assignments [`Sides::may_fill`] tries at most for one wall.
const WALL_STEPS: u32 = 64;

/// The rank and file of `sq` (shifts, not a table lookup: this runs at
/// every square a unit may stop on).
fn straight_lines(sq: Square) -> Bitboard {
    Bitboard::from_rank(sq.rank()) | Bitboard::from_file(sq.file())
}

/// Does `squares` hold more than `k` squares?
fn more_than(mut squares: Bitboard, k: u32) -> bool {
    for _ in 0..k {
        if squares.pop_front().is_none() {
            return false;
        }
    }
    squares.any()
}

/// The square a Black pawn on `sq` pushes to.
fn sq_ahead(sq: Square) -> Option<Square> {
    sq.offset(-8)
}

#[cfg(test)]
mod tests;
