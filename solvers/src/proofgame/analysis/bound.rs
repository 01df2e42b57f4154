//! Move bounds at a node: the units that stay put, and what a move costs
//! against the matching's optimum ([`MoveBound`]).

use super::*;

impl Analysis {
    /// `color`'s units that stay where they are for the rest of any game
    /// in which `color` makes at most `budget` more moves: units on their
    /// own diagram square that every matching within the budget pairs with
    /// that square (each other pair's reduced cost exceeds the slack, LP
    /// duality). A pawn never comes back to a square it left; a piece that
    /// leaves and comes back spends two moves more, so with a slack under
    /// two it stays too (but not a king or rook that may still castle,
    /// which moves a rook with the king's move).
    pub fn frozen(&self, m: &Matching, budget: i32) -> Bitboard {
        let (best, duals, castling) = (m.best, &m.duals, m.castling);
        let slack = i64::from(budget) - i64::from(best);
        if slack < 0 {
            return Bitboard::EMPTY;
        }
        let targets = &self.free_targets[color_index(m.color)];
        let mut frozen = Bitboard::EMPTY;
        for (i, &(role, from)) in m.units[..m.n].iter().enumerate() {
            let stays = match role {
                Role::Pawn => true,
                Role::King | Role::Rook if castling => false,
                _ => slack < 2,
            };
            let Some(j) = targets.iter().position(|&t| t == (role, from)) else {
                continue;
            };
            if stays
                && m.moves[i * m.n + j] == 0
                && (0..m.n).all(|k| k == j || duals.reduced(&m.moves, m.n, i, k) > slack)
            {
                frozen.add(from);
            }
        }
        frozen
    }

    /// `color`'s matching, kept to bound its moves after each of its next
    /// moves without a matching of its own (see [`Analysis::need_after`]);
    /// with `victims`, the matching of [`Analysis::need_with`].
    pub fn move_bound(&self, board: &Board, m: &Matching, victims: Option<Victims>) -> MoveBound {
        let (color, best, duals) = (m.color, m.best, &m.duals);
        let targets = self.free_targets[color_index(color)].len();
        let mut v = [0; MAX_N];
        for (j, v) in v.iter_mut().enumerate().take(targets) {
            *v = duals.column(j);
        }
        let victims = victims.filter(|v| v.count > 0);
        let taken = targets + victims.map_or(0, |v| v.count as usize);
        // Every unit to be taken costs the same on any of those columns,
        // so the largest potential among them is the one that counts.
        let victim_v = (targets..taken).map(|j| duals.column(j)).max();
        // A unit left over costs nothing (a king is never one).
        let left_over = (taken..m.n).map(|j| -duals.column(j)).min().unwrap_or(INF);
        let mut base = [0; MAX_N];
        for (i, b) in base.iter_mut().enumerate().take(m.n) {
            *b = best - duals.row(i);
        }
        MoveBound {
            color,
            castling: m.castling,
            best,
            units: board.by_color(color) & !(self.fixed & self.target.by_color(color)),
            base,
            v,
            victims: victims.zip(victim_v).map(|(victims, v)| {
                let ep = en_passant_victims(color, victims.squares);
                (victims.squares, ep, v)
            }),
            left_over,
        }
    }

    /// A lower bound of the moves `bound`'s side needs (as in
    /// [`Need::moves`], or with the bound's victims as in
    /// [`Analysis::need_with`], as long as the opponent's units stay as
    /// they are) once its unit on `from` goes to `to`, as `role`
    /// (itself, or what it promotes to): the old potentials, with the
    /// unit's lowered until they fit its new costs, are still feasible, so
    /// their sum bounds the new optimum (LP duality). Not for castling,
    /// which moves two units. The unit loses any castling right, which
    /// only makes other units' ways longer, so the bound holds.
    pub fn need_after(&self, bound: &MoveBound, from: Square, to: Square, role: Role) -> i32 {
        if !bound.units.contains(from) {
            // A unit that never moved in the diagram moves.
            return INF;
        }
        let i = (bound.units & Bitboard((1u64 << from.to_u32()) - 1)).count();
        let row = &self.row(bound.color, role, to)[0];
        let mut fit = if role == Role::King {
            INF
        } else {
            bound.left_over
        };
        // Columns past the targets hold INF and a zero potential.
        // Fixed-length lanes, so that the loop vectorises.
        for (c, v) in row.iter().zip(bound.v) {
            fit = fit.min(c - v);
        }
        if let Some((squares, ep, v)) = bound.victims {
            let cost = self.victim_cost(bound.color, (role, to), squares, ep);
            fit = fit.min(cost - v);
        }
        bound.base[i] + fit
    }

    /// Whether [`Analysis::need_after`] is at most `limit`. A piece's move
    /// can be taken back along the same squares, so it makes no way longer
    /// than one move more, and the bound can grow by one at most (not for
    /// a king or rook whose castling right shortened its way): then there
    /// is nothing to work out when the side has a move to spare.
    pub fn fits_after(
        &self,
        bound: &MoveBound,
        (from, to): (Square, Square),
        (role, promotion): (Role, Option<Role>),
        limit: i32,
    ) -> bool {
        let reversible = match role {
            Role::Pawn => false,
            Role::King | Role::Rook => !bound.castling,
            _ => true,
        };
        (reversible && bound.best < limit)
            || self.need_after(bound, from, to, promotion.unwrap_or(role)) <= limit
    }
}

/// One side's matching at a node, digested for [`Analysis::need_after`].
#[derive(Debug, Clone, Copy)]
pub struct MoveBound {
    pub(super) color: Color,
    /// Whether the side still has a castling right.
    pub(super) castling: bool,
    /// The optimum.
    pub(super) best: i32,
    /// The units in the matching, in its row order.
    pub(super) units: Bitboard,
    /// By row: the optimum less the row's potential.
    pub(super) base: [i32; MAX_N],
    /// The potentials of the target columns (zero past them).
    pub(super) v: [i32; MAX_N],
    /// With units the opponent's pawns must take: where (squares, and en
    /// passant squares), and the largest potential of their columns.
    pub(super) victims: Option<(Bitboard, Bitboard, i32)>,
    /// The least of the left-over columns' costs less their potentials.
    pub(super) left_over: i32,
}
