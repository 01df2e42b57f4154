//! Captures: where each side's pawns can capture, and where the
//! opponent's pawns must take its units ([`Victims`]).

use super::*;

impl Analysis {
    /// Squares where `color`'s pawns can capture in a continuation in which
    /// `color` makes at most `budget` more moves: those on the way of a pawn
    /// to a diagram unit it can become within the budget. A matching that
    /// pairs a pawn with a target costs at least the optimum plus the
    /// pair's reduced cost (LP duality), which prunes most pairs.
    pub fn capture_squares(&self, m: Option<&Matching>, budget: i32) -> Bitboard {
        let Some(m) = m else {
            return Bitboard::EMPTY;
        };
        let (color, best, duals) = (m.color, m.best, &m.duals);
        let slack = i64::from(budget) - i64::from(best);
        let targets = &self.free_targets[color_index(color)];
        let mut squares = Bitboard::EMPTY;
        for (i, &(role, from)) in m.units[..m.n].iter().enumerate() {
            if role != Role::Pawn {
                continue;
            }
            for (j, &(target, to)) in targets.iter().enumerate() {
                if duals.reduced(&m.moves, m.n, i, j) > slack {
                    continue;
                }
                let way = if target == Role::Pawn {
                    pawn_diamond(color, from, to)
                } else {
                    pawn_cone(color, from)
                };
                // The duals bound is not tight: a pair it lets through
                // counts only if some matching with it fits the budget.
                if !(way & !squares).is_empty() && forced_cost(&m.moves, m.n, i, j) <= budget {
                    squares |= way;
                }
            }
        }
        squares & !self.fixed
    }

    /// Squares where `color`'s units may still be captured, in a
    /// continuation in which `color` makes at most `budget` more moves:
    /// wherever a unit that the matching can leave over within the budget
    /// can walk with the moves it has to spare (every square when one of
    /// them is a pawn that may promote). What forcing a unit out costs is
    /// bounded by its reduced cost (LP duality), which may let in more
    /// squares than needed but never too few.
    pub fn victim_squares(&self, m: Option<&Matching>, budget: i32) -> Bitboard {
        let Some(m) = m else {
            return Bitboard::FULL;
        };
        let (color, best, duals) = (m.color, m.best, &m.duals);
        // Every column past the targets stands for a unit left over.
        let left_over = self.free_targets[color_index(color)].len();
        if left_over >= m.n {
            return Bitboard::EMPTY;
        }
        let slack = i64::from(budget) - i64::from(best);
        let mut squares = Bitboard::EMPTY;
        for (i, &(role, from)) in m.units[..m.n].iter().enumerate() {
            let spare = slack - duals.reduced(&m.moves, m.n, i, left_over);
            if role == Role::King || spare < 0 {
                continue;
            }
            // A rook may castle first (the king's move) and be taken on
            // its new square, or on its way from there.
            for (start, spent) in self
                .starts(color, &m.castles, (role, from))
                .into_iter()
                .flatten()
            {
                if i64::from(spent) <= spare {
                    squares |= self.walk(color, role, start, spare as i32 - spent);
                }
            }
        }
        squares & !self.fixed
    }

    /// Squares `color`'s unit `role` on `from` can reach in `moves` moves.
    /// (For a pawn, a few more: its cone up to the ranks it can reach;
    /// every square when that is the last rank, as it may promote.)
    pub(super) fn walk(&self, color: Color, role: Role, from: Square, moves: i32) -> Bitboard {
        if role != Role::Pawn {
            return self.reach(role, from).within(moves);
        }
        let double = i32::from(rel_rank(color, from) == 1 && moves > 0);
        let farthest = rel_rank(color, from) + moves + double;
        if farthest >= 7 {
            return Bitboard::FULL;
        }
        let ranks = (0..=farthest).fold(Bitboard::EMPTY, |b, r| {
            let rank = if color == Color::White { r } else { 7 - r };
            b | Bitboard::from_rank(Rank::new(rank as u32))
        });
        (pawn_cone(color, from) & ranks).with(from)
    }

    /// Whether `color` can make a capture on one of `squares` (see
    /// [`Analysis::victim_squares`]) and still become the diagram's units
    /// within `budget` moves: some unit–target pair's reduced cost (a lower
    /// bound of what forcing the pair costs, LP duality) plus its unit's
    /// detour through a capture square fits the budget's slack over the
    /// matching's optimum. A pawn's capture on its way to its target costs
    /// nothing more, nor does one by a promoted piece (left unbounded).
    pub fn capture_fits(&self, m: Option<&Matching>, squares: Bitboard, budget: i32) -> bool {
        let Some(m) = m else {
            return false;
        };
        let (color, best, duals) = (m.color, m.best, &m.duals);
        let slack = i64::from(budget) - i64::from(best);
        let targets = &self.free_targets[color_index(color)];
        // Where a pawn lands when it takes a unit on `squares`.
        let landings = squares | en_passant_landings(color, squares);
        for (i, &(role, from)) in m.units[..m.n].iter().enumerate() {
            let starts = self.starts(color, &m.castles, (role, from));
            for j in 0..m.n {
                let cost = m.moves[i * m.n + j];
                let reduced = duals.reduced(&m.moves, m.n, i, j);
                if cost >= INF || reduced > slack {
                    continue;
                }
                // What the pair leaves for going out of the unit's way.
                let spare = (slack - reduced) as i32;
                let fits = match (role, targets.get(j)) {
                    (Role::Pawn, Some(&(Role::Pawn, to))) => {
                        (pawn_diamond(color, from, to) & landings).any()
                    }
                    // As what it promotes to, unbounded.
                    (Role::Pawn, Some(_)) => true,
                    (Role::Pawn, None) => {
                        let promoted = fewest_pawn_moves(color, from, last_rank(color));
                        fewest_pawn_moves(color, from, landings).min(promoted.saturating_add(1))
                            <= spare
                    }
                    // A piece's moves can be taken back, so its distances
                    // are the same both ways. Castling first may shorten a
                    // king's or rook's way to the capture; it cannot come
                    // after it.
                    (_, Some(&(target, to))) if target == role => {
                        let back = self.reach(role, to);
                        starts.into_iter().flatten().any(|(start, spent)| {
                            let out = self.reach(role, start);
                            let total = cost + spare - spent;
                            (0..=total)
                                .any(|k| (out.within(k) & back.within(total - k) & squares).any())
                        })
                    }
                    (_, Some(_)) => false,
                    // A unit left over costs nothing in the matching.
                    (_, None) => starts.into_iter().flatten().any(|(start, spent)| {
                        spent <= spare
                            && (self.reach(role, start).within(spare - spent) & squares).any()
                    }),
                };
                if fits {
                    return true;
                }
            }
        }
        false
    }

    /// The least moves for `color`'s unit `role` on `from` to stand where an
    /// enemy pawn captures it: on one of `squares`, or for a pawn also on
    /// `ep` (en passant), or after promoting.
    pub(super) fn victim_cost(
        &self,
        color: Color,
        (role, from): (Role, Square),
        squares: Bitboard,
        ep: Bitboard,
    ) -> i32 {
        match role {
            Role::King => INF,
            Role::Pawn => fewest_pawn_moves(color, from, squares | ep | last_rank(color)),
            _ => self.reach(role, from).nearest(squares),
        }
    }

    /// [`Analysis::victim_cost`] of a rook with a castling right in
    /// `castles`: it may get there by castling first (the king's move,
    /// which costs the rook nothing). Apart from the hot
    /// [`Analysis::need_after`], which never sees such a rook.
    pub(super) fn castling_rook_victim_cost(
        &self,
        color: Color,
        castles: &Castles,
        from: Square,
        squares: Bitboard,
    ) -> i32 {
        self.starts(color, castles, (Role::Rook, from))
            .into_iter()
            .flatten()
            .map(|(start, spent)| spent + self.reach(Role::Rook, start).nearest(squares))
            .min()
            .unwrap_or(INF)
    }
}

/// Where the opponent's pawns must capture some of a side's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Victims {
    /// Every square where those captures can happen.
    pub squares: Bitboard,
    /// How many units of the side they capture at least.
    pub count: i32,
}
