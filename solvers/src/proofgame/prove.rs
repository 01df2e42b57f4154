//! Proof games as evidence for other stages: a short game to the diagram
//! (legality), whether a position may still reach it, and where a game
//! first breaks a static test.

use super::*;

/// A game from the initial array to exactly `setup` (board, side to move,
/// castling rights), of at most `max_plies` half-moves, found
/// before `deadline`: the proof the legality stage needs to call a position
/// legal. Shortest first. `None` when none was found in time (which proves
/// nothing), and for diagrams that claim an en-passant square.
pub fn prove(setup: &Setup, max_plies: u32, deadline: Instant) -> Option<Line> {
    if setup.ep_square.is_some() || Color::ALL.iter().any(|c| setup.board.king_of(*c).is_none()) {
        return None;
    }
    // Each unit a side lost took one of the other side's moves: a diagram
    // with more lost than moves fits no game this short (most problem
    // diagrams; the analysis below costs more than their whole search).
    let lost = |color: Color| 16 - setup.board.by_color(color).count().min(16) as u32;
    if lost(Color::Black) > max_plies.div_ceil(2) || lost(Color::White) > max_plies / 2 {
        return None;
    }
    let analysis = Analysis::new(&setup.board);
    if static_impossibility(&analysis).is_some() {
        return None;
    }
    let table = Table::sized(16, 16);
    let shared = Shared::new(&table, Some(deadline), None, u32::MAX);
    let rights = Rights {
        castling: Some(setup.castling_rights),
        en_passant: None,
    };
    let goal = Goal::new(&analysis, None, rights);
    let start = Chess::default();
    let first = u32::from(setup.turn == Color::Black);
    let mut worker = Worker::new(&shared, goal, false, max_plies, 0);
    for length in (first..=max_plies).step_by(2) {
        if !worker.feasible(&start, length) {
            continue;
        }
        let mut games = Vec::new();
        worker.lines(&start, length, &mut Vec::new(), &mut games, 1);
        if shared.aborted() {
            return None;
        }
        if let Some(game) = games.first() {
            return Some(render_line(&start, game));
        }
    }
    None
}

/// Whether the search's static tests let `pos` through with `left` plies
/// to go towards `diagram`: false proves that no game of exactly `left`
/// more plies leads from `pos` to the diagram.
pub fn may_reach(diagram: &Board, pos: &Chess, left: u32) -> bool {
    let analysis = Analysis::new(diagram);
    let table = Table::sized(1, 10);
    let shared = Shared::new(&table, None, None, u32::MAX);
    let goal = Goal::new(&analysis, None, Rights::default());
    Worker::probe(&shared, goal).feasible(pos, left)
}

/// The first prefix of `game` (its number of plies) that the search's
/// static tests reject with the plies left to the end of the game, towards
/// the board `game` ends on with the stated `rights`; `None` when they let
/// every prefix through, as they must (a test for the bound's soundness).
pub fn first_rejected_prefix(diagram: &Board, rights: Rights, game: &[Move]) -> Option<usize> {
    let analysis = Analysis::new(diagram);
    let table = Table::sized(1, 10);
    let shared = Shared::new(&table, None, None, u32::MAX);
    let goal = Goal::new(&analysis, None, rights);
    let mut probe = Worker::probe(&shared, goal);
    let mut pos = Chess::default();
    let length = game.len();
    for (i, m) in game.iter().enumerate() {
        let castling = pos.castles().castling_rights();
        if !rights.still_possible(castling) || !probe.feasible(&pos, (length - i) as u32) {
            return Some(i);
        }
        pos.play_unchecked(*m);
    }
    let reached = pos.board() == diagram && rights.met_by(&pos);
    (!reached || !probe.feasible(&pos, 0)).then_some(length)
}

/// Why no game of any length can reach the diagram, if the static analysis
/// shows that.
pub(super) fn static_impossibility(analysis: &Analysis) -> Option<String> {
    let start = Board::default();
    let castles = Chess::default().castles().clone();
    let target = analysis.target();
    for color in Color::ALL {
        let Some(need) = analysis.need(&start, &castles, color) else {
            return Some(format!(
                "static analysis: {color}'s units cannot all have come from the initial array \
                 (a unit unreachable or too many promotions needed)"
            ));
        };
        let lost = 16 - target.by_color(!color).count() as i32;
        if need.captures > lost {
            return Some(format!(
                "static analysis: {color}'s pawns need {} capture(s) but {} lost only {lost} unit(s)",
                need.captures, !color
            ));
        }
    }
    None
}

/// Whether the board of `before`, with its side to move, passes the
/// legality tests that hold in every game: the cheap ones (above all, that
/// the side not to move is not in check) and the static retro ones.
/// Castling rights and the en-passant square are left out, as a goal fixes
/// neither. Most positions before a checking move fail this (the check was
/// already there), and each would cost a whole search otherwise.
pub(super) fn reachable_board(before: &Setup) -> bool {
    let mut before = before.clone();
    before.castling_rights = shakmaty::Bitboard::EMPTY;
    before.ep_square = None;
    crate::legality::cheap::check(&before).is_empty()
        && !crate::legality::retro::has_static_flaw(&before)
}
