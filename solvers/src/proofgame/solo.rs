//! The own-side test: a side with few moves to spare must walk its units
//! along ways at most that much longer than the shortest, and where its
//! units bar each other's ways in every order of its moves, the diagram is
//! out of reach. The static bound counts each unit's way on its own; this
//! test looks for one order of the side's moves alone.
//!
//! Take any game from here on and keep only the side's moves, on a board
//! without the opponent's units but for the ones that never move again:
//! each move is still possible there (its squares were free of the side's
//! units, and a pawn's capture took a unit the opponent had to spare), and
//! the units the opponent takes may be taken off at any time. So when no
//! such game of the side alone reaches the diagram's units in exactly its
//! moves left, no game does. Once the side has no move to spare, a unit
//! to be taken never moves again, so it is taken off at once: only those
//! orders are searched. A rook taken off keeps its castling right: it may
//! castle first (moved by the king's move) and be taken on its new square.

use shakmaty::{attacks, Bitboard, Board, Castles, CastlingSide, Color, Rank, Role, Square};

use super::analysis::Analysis;
use super::hash::{mix, piece_key, units_key, BoardHash};
use super::memo::{Answers, SideCache};
use crate::checking::promotions;

/// The test is skipped when the opponent must take more of the side's
/// units than this: each choice of them is a game of its own.
const MAX_TAKEN: u32 = 2;
/// States one test may expand; past them it gives up and prunes nothing.
/// Every answer kept is exact or "reachable", which prunes nothing either.
const MAX_STATES: u32 = 2000;
const STATE_SALT: u64 = 0x3C6E_F372_FE94_F82B;

/// One side's solitary games towards the diagram, with what is known of
/// them so far.
pub(super) struct Solo<'a> {
    analysis: &'a Analysis,
    color: Color,
    /// Squares the side's units never enter or cross: the opponent's units
    /// that stand all game.
    barred: Bitboard,
    /// Whether the diagram's units can still be reached from a state (a
    /// key of the side's units, its moves left and captures left).
    seen: Answers,
    /// States one test may expand.
    budget: u32,
    /// States the current test may still expand.
    states: u32,
}

impl<'a> Solo<'a> {
    pub fn new(analysis: &'a Analysis, color: Color, bits: u32) -> Solo<'a> {
        let barred = analysis.fixed() & analysis.target().by_color(!color);
        Solo {
            analysis,
            color,
            barred,
            seen: Answers::new(bits),
            budget: MAX_STATES,
            states: 0,
        }
    }

    /// Whether the side, with its units as on `board`, can make exactly
    /// `moves` moves of its own reaching the diagram's units, with at most
    /// `captures` pawn captures, some of its units taken off first (all
    /// above the diagram's number). `side` is the side's part of the
    /// board's key ([`BoardHash::side`]). Skipped (true) when the opponent
    /// must take many of the side's units.
    pub fn feasible(
        &mut self,
        (board, castles, side): (&Board, &Castles, u64),
        left: (i32, i32),
        cache: &mut SideCache,
    ) -> bool {
        // The search looks this state up too, but only after the board is
        // copied without the opponent's units: most tests end here.
        let rights = castles.castling_rights() & board.by_color(self.color);
        if let Some(known) = self.seen.lookup(state_key(units_key(side, rights), left)) {
            return known;
        }
        let target = self.analysis.target().by_color(self.color).count();
        if board.by_color(self.color).count().saturating_sub(target) > MAX_TAKEN as usize {
            return true;
        }
        let mut own = board.clone();
        for sq in board.by_color(!self.color) {
            own.discard_piece_at(sq);
        }
        self.states = self.budget;
        self.search((&own, castles, side), left, cache)
    }

    /// Whether the opponent must still take some of the side's units.
    fn must_take(&self, board: &Board) -> bool {
        board.occupied().count() > self.analysis.target().by_color(self.color).count()
    }

    /// Whether the search succeeds once the opponent has taken one of the
    /// side's units (any that may be taken), when it must take some.
    fn after_taking(
        &mut self,
        (board, castles, side): State,
        left: (i32, i32),
        cache: &mut SideCache,
    ) -> bool {
        if !self.must_take(board) {
            return false;
        }
        for sq in board.occupied() & !board.kings() & !self.analysis.fixed() {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let mut fewer = board.clone();
            fewer.discard_piece_at(sq);
            // A rook taken off keeps its castling right: it may castle
            // first (the king's move) and be taken on its new square,
            // which the king's castling then stands for.
            let rights = castles.clone();
            if self.search((&fewer, &rights, side ^ piece_key(sq, piece)), left, cache) {
                return true;
            }
        }
        false
    }

    fn search(
        &mut self,
        state: State,
        (moves, captures): (i32, i32),
        cache: &mut SideCache,
    ) -> bool {
        let (a, color) = (self.analysis, self.color);
        let (board, castles, side) = state;
        debug_assert_eq!(side, BoardHash::new(board).side(color), "kept move by move");
        // The side's rights whether or not their rooks are still there (a
        // rook taken off keeps its right), so that such states have keys
        // of their own, apart from every position of the search.
        let own_rights = castles.castling_rights() & Bitboard::from_rank(color.backrank());
        let key = units_key(side, own_rights);
        let Some(need) = cache.need(a, (board, castles), color, key) else {
            return false;
        };
        if need.moves.max(need.captures + need.straight) > moves || need.captures > captures {
            return false;
        }
        if moves == 0 {
            return true;
        }
        let memo = state_key(key, (moves, captures));
        if let Some(known) = self.seen.lookup(memo) {
            return known;
        }
        if self.states == 0 {
            // Out of effort: say yes, which prunes nothing.
            return true;
        }
        self.states -= 1;
        let may_move = need.moves < moves || !self.must_take(board);
        let found = self.after_taking(state, (moves, captures), cache)
            || (may_move && self.after_moving(state, key, (moves, captures), cache));
        self.seen.insert(memo, found);
        found
    }

    /// Whether the search succeeds after one of the side's moves. Moves
    /// after which the matching's bound is out of reach are left out
    /// before they are played; `key` is the state's units' key.
    fn after_moving(
        &mut self,
        state: State,
        key: u64,
        (moves, captures): (i32, i32),
        cache: &mut SideCache,
    ) -> bool {
        let (a, color) = (self.analysis, self.color);
        let (board, castles, _) = state;
        let Some(bound) = cache.bound(a, (board, castles), color, key) else {
            return false;
        };
        // The moves that get closest first: a game that reaches the
        // diagram is found the sooner.
        let mut ranked: Vec<(i32, SoloMove)> = self
            .moves(board, castles, captures > 0)
            .into_iter()
            .filter_map(|m| {
                let need = match m.castle {
                    Some(_) => 0,
                    None => a.need_after(&bound, m.from, m.to, m.promotion.unwrap_or(m.role)),
                };
                (need < moves).then_some((need, m))
            })
            .collect();
        ranked.sort_by_key(|&(need, _)| need);
        for (_, m) in ranked {
            let (child, rights, side) = self.play(state, m);
            let left = (moves - 1, captures - i32::from(m.capture));
            if self.search((&child, &rights, side), left, cache) {
                return true;
            }
        }
        false
    }

    /// The side's moves on `board` (its units alone, but for the barred
    /// squares); pawn captures only with `may_capture`.
    fn moves(&self, board: &Board, castles: &Castles, may_capture: bool) -> Vec<SoloMove> {
        let color = self.color;
        let occupied = board.occupied() | self.barred;
        let last = Rank::new(if color == Color::White { 7 } else { 0 });
        let mut out = Vec::new();
        for from in board.occupied() & !self.analysis.fixed() {
            let Some(piece) = board.piece_at(from) else {
                continue;
            };
            let role = piece.role;
            let mut add = |to: Square, capture: bool| {
                let promotions = promotions(role == Role::Pawn && to.rank() == last);
                for &promotion in promotions {
                    out.push(SoloMove {
                        from,
                        to,
                        role,
                        promotion,
                        capture,
                        castle: None,
                    });
                }
            };
            let reach = match role {
                Role::Pawn => {
                    if may_capture {
                        for to in attacks::pawn_attacks(color, from) & !occupied {
                            add(to, true);
                        }
                    }
                    pawn_pushes(color, from, occupied)
                }
                Role::Knight => attacks::knight_attacks(from),
                Role::King => attacks::king_attacks(from),
                _ => attacks::attacks(from, piece, occupied),
            };
            for to in reach & !occupied {
                add(to, false);
            }
        }
        if let Some(king) = board.king_of(color) {
            for side in CastlingSide::ALL {
                if castles.rook(color, side).is_some()
                    && (castles.path(color, side) & occupied).is_empty()
                {
                    out.push(SoloMove {
                        from: king,
                        to: side.king_to(color),
                        role: Role::King,
                        promotion: None,
                        capture: false,
                        castle: Some(side),
                    });
                }
            }
        }
        out
    }

    /// The board, castling rights and side's key after `m`.
    fn play(&self, (board, castles, side): State, m: SoloMove) -> (Board, Castles, u64) {
        let color = self.color;
        let mut child = board.clone();
        let mut rights = castles.clone();
        let moved = |child: &mut Board, from: Square, to: Square, role: Role, after: Role| {
            child.discard_piece_at(from);
            child.set_piece_at(to, after.of(color));
            piece_key(from, role.of(color)) ^ piece_key(to, after.of(color))
        };
        let mut side = side
            ^ moved(
                &mut child,
                m.from,
                m.to,
                m.role,
                m.promotion.unwrap_or(m.role),
            );
        rights.discard_rook(m.from);
        if m.role == Role::King {
            rights.discard_color(color);
        }
        if let Some((way, rook)) = m
            .castle
            .and_then(|way| Some((way, castles.rook(color, way)?)))
            .filter(|&(_, rook)| board.piece_at(rook) == Some(Role::Rook.of(color)))
        {
            side ^= moved(&mut child, rook, way.rook_to(color), Role::Rook, Role::Rook);
        }
        (child, rights, side)
    }
}

/// The side's units alone (a board without the opponent's), its castling
/// rights and its part of the board's key.
type State<'b> = (&'b Board, &'b Castles, u64);

/// A move of the side alone.
#[derive(Clone, Copy)]
struct SoloMove {
    from: Square,
    to: Square,
    role: Role,
    promotion: Option<Role>,
    /// A pawn's capture.
    capture: bool,
    castle: Option<CastlingSide>,
}

/// A pawn of `color` on `from`: its one or two steps forward onto free
/// squares.
fn pawn_pushes(color: Color, from: Square, occupied: Bitboard) -> Bitboard {
    let step = |sq: Square| sq.offset(if color == Color::White { 8 } else { -8 });
    let mut out = Bitboard::EMPTY;
    let Some(one) = step(from).filter(|sq| !occupied.contains(*sq)) else {
        return out;
    };
    out.add(one);
    let second = Rank::new(if color == Color::White { 1 } else { 6 });
    if from.rank() == second {
        if let Some(two) = step(one).filter(|sq| !occupied.contains(*sq)) {
            out.add(two);
        }
    }
    out
}

/// The key of a state: its units' key with its moves and captures left.
fn state_key(units: u64, (moves, captures): (i32, i32)) -> u64 {
    mix(units ^ STATE_SALT ^ ((moves as u64) << 32 | captures as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Chess, Position};

    /// Whether White, alone, can turn the units of the game `moves` (from
    /// the initial array) into those of the diagram `fen` in `left` moves.
    fn white_alone(fen: &str, moves: &[&str], left: i32) -> bool {
        let diagram = fen.parse::<Fen>().unwrap().into_setup().board;
        let analysis = Analysis::new(&diagram);
        let mut pos = Chess::default();
        for m in moves {
            let m = m.parse::<shakmaty::uci::UciMove>().unwrap();
            pos.play_unchecked(m.to_move(&pos).unwrap());
        }
        let (board, castles) = (pos.board(), pos.castles());
        let side = BoardHash::new(board).side(Color::White);
        let mut solo = Solo::new(&analysis, Color::White, 20);
        solo.budget = u32::MAX;
        solo.feasible(
            (board, castles, side),
            (left, 0),
            &mut SideCache::new(16, 16),
        )
    }

    /// spg200 (Heinonen, The Problemist 1991, unique in 24 plies from
    /// 1.c4). After 1.d3 White's units still need only ten of its eleven
    /// moves one by one, but no order works: the a1 rook's short ways all
    /// run through b1 and then d2 or the c-file, which the knight (one move,
    /// b1-d2) and the c-pawn (c2-c4) close behind them.
    #[test]
    fn units_that_bar_each_other_in_every_order_fail() {
        let fen = "rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R w K - 0 1";
        assert!(white_alone(fen, &["c2c4"], 11));
        assert!(!white_alone(fen, &["d2d3"], 11));
    }
}
