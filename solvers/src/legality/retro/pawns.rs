//! Pawn structure: which file each pawn on the board started on, and what
//! captures that forces.
//!
//! A pawn only moves forward, and changes file only by capturing, so a pawn
//! on file f that started on file g made at least |f − g| captures, all of
//! enemy units. Pawns on their own second rank never moved and own their file.
//! Assigning pawns to distinct start files is a small assignment problem
//! (at most 8 pawns × 8 files), solved exactly by a DP over used-file masks.

use shakmaty::{Bitboard, Board, Color, File, Rank, Square};

/// What the pawn structure of one side says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PawnInfo {
    pub color: Color,
    /// The pawns of `color`, in square order.
    pub squares: Vec<Square>,
    /// Fewest captures over every assignment of pawns to distinct files;
    /// `None` when no assignment exists at all.
    pub min_captures: Option<u32>,
    /// Captures available: the units the enemy has lost.
    pub budget: u32,
    /// Per pawn, the start files (bit g = file g) that occur in some
    /// assignment using at most `budget` captures.
    pub feasible: Vec<u8>,
    /// Per set of used start files (bit mask), the fewest captures placing
    /// every pawn on the board on exactly those files.
    pub by_files: Vec<Option<u32>>,
}

/// The rank index counted from `color`'s side (0 = its first rank).
pub fn relative_rank(color: Color, sq: Square) -> u32 {
    let r = sq.rank().to_u32();
    if color.is_white() {
        r
    } else {
        7 - r
    }
}

/// The square on `file` at rank index `rel` counted from `color`'s side.
pub fn relative_square(color: Color, file: u32, rel: u32) -> Square {
    let rank = if color.is_white() { rel } else { 7 - rel };
    Square::from_coords(File::new(file), Rank::new(rank))
}

/// The start square of `color`'s pawn of file `file`.
pub fn start_square(color: Color, file: u32) -> Square {
    relative_square(color, file, 1)
}

/// Own pawns standing on their start rank: they never moved.
pub fn unmoved_pawns(board: &Board, color: Color) -> Bitboard {
    let rank = if color.is_white() {
        Rank::Second
    } else {
        Rank::Seventh
    };
    board.pawns() & board.by_color(color) & Bitboard::from_rank(rank)
}

fn file_cost(color: Color, sq: Square, file: u32, unmoved: Bitboard) -> Option<u32> {
    let f = sq.file().to_u32();
    let d = f.abs_diff(file);
    let advance = relative_rank(color, sq).checked_sub(1)?;
    let start = start_square(color, file);
    let owned_by_other = unmoved.contains(start) && start != sq;
    (d <= advance && !owned_by_other).then_some(d)
}

/// Analyses `color`'s pawns; `None` when the pawns are too odd to reason
/// about (more than eight, or on a back rank: the cheap layer says so).
pub fn analyse(board: &Board, color: Color) -> Option<PawnInfo> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    type Key = (bool, u64, u32);
    thread_local! {
        // The analysis depends only on the pawns and the enemy's unit
        // count; searches meet the same structures again and again.
        static CACHE: RefCell<HashMap<Key, Option<PawnInfo>>> = RefCell::new(HashMap::new());
    }
    let pawns = board.pawns() & board.by_color(color);
    let lost = 16u32.saturating_sub(board.by_color(!color).count() as u32);
    let key = (color.is_white(), u64::from(pawns), lost);
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let info = analyse_uncached(board, color);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(key, info.clone());
    });
    info
}

fn analyse_uncached(board: &Board, color: Color) -> Option<PawnInfo> {
    let pawns = board.pawns() & board.by_color(color);
    if pawns.count() > 8 || (pawns & Bitboard::BACKRANKS).any() {
        return None;
    }
    let squares: Vec<Square> = pawns.into_iter().collect();
    let unmoved = unmoved_pawns(board, color);
    let cost: Vec<[Option<u32>; 8]> = squares
        .iter()
        .map(|&sq| std::array::from_fn(|g| file_cost(color, sq, g as u32, unmoved)))
        .collect();
    let lost = 16u32.saturating_sub(board.by_color(!color).count() as u32);
    let rest = min_rest(&cost);
    let min_captures = rest[0][0];
    let (feasible, by_files) = feasible_files(&cost, &rest, lost);
    Some(PawnInfo {
        color,
        squares,
        min_captures,
        budget: lost,
        feasible,
        by_files,
    })
}

/// `rest[i][mask]`: fewest captures for pawns i.. given the files in `mask`
/// are taken.
fn min_rest(cost: &[[Option<u32>; 8]]) -> Vec<Vec<Option<u32>>> {
    let n = cost.len();
    let mut rest = vec![vec![None; 256]; n + 1];
    rest[n] = vec![Some(0); 256];
    for i in (0..n).rev() {
        for mask in 0..256usize {
            rest[i][mask] = (0..8)
                .filter(|g| mask & (1 << g) == 0)
                .filter_map(|g| Some(cost[i][g]? + rest[i + 1][mask | (1 << g)]?))
                .min();
        }
    }
    rest
}

fn feasible_files(
    cost: &[[Option<u32>; 8]],
    rest: &[Vec<Option<u32>>],
    budget: u32,
) -> (Vec<u8>, Vec<Option<u32>>) {
    let n = cost.len();
    let mut fwd = vec![vec![None::<u32>; 256]; n + 1];
    fwd[0][0] = Some(0);
    let mut feasible = vec![0u8; n];
    for i in 0..n {
        for mask in 0..256usize {
            let Some(before) = fwd[i][mask] else { continue };
            for g in (0..8).filter(|g| mask & (1 << g) == 0) {
                let Some(c) = cost[i][g] else { continue };
                let next = mask | (1 << g);
                let total = rest[i + 1][next].map(|r| before + c + r);
                if total.is_some_and(|t| t <= budget) {
                    feasible[i] |= 1 << g;
                }
                let slot = &mut fwd[i + 1][next];
                *slot = Some(slot.map_or(before + c, |s| s.min(before + c)));
            }
        }
    }
    let by_files = fwd.pop().unwrap_or_default();
    (feasible, by_files)
}

/// Files whose pawn of `info`'s side stood on that file all game: its only
/// possible start file is the one it is on, and no capture is to spare for a
/// zigzag (leaving the file and coming back takes two captures).
pub fn bound_files(info: &PawnInfo) -> u8 {
    let spare = info.min_captures.map(|m| info.budget.saturating_sub(m));
    if spare.is_none_or(|s| s >= 2) {
        return 0;
    }
    info.squares
        .iter()
        .zip(&info.feasible)
        .filter(|(sq, &mask)| mask == 1 << sq.file().to_u32())
        .fold(0, |acc, (sq, _)| acc | 1 << sq.file().to_u32())
}

/// Fewest captures for the pawns on the board plus `promotions` missing
/// pawns that reached the last rank; a pawn of a file in `blocked` (where an
/// enemy pawn stood all game) must have left its file, by a capture, to
/// get past it. `None`: not enough missing pawns.
pub fn min_with_promotions(info: &PawnInfo, blocked: u8, promotions: u32) -> Option<u32> {
    info.by_files
        .iter()
        .enumerate()
        .filter_map(|(mask, cost)| {
            // The promoting pawns come from the free files, unblocked
            // ones first.
            let free = !(mask as u8);
            let free_all = free.count_ones();
            let free_open = (free & !blocked).count_ones();
            if promotions > free_all {
                return None;
            }
            let needed = promotions.saturating_sub(free_open);
            Some((*cost)? + needed)
        })
        .min()
}

/// A capture a pawn on the board certainly made: one of `squares`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureEvent {
    /// The capturing pawn, where it stands now.
    pub pawn: Square,
    pub squares: Bitboard,
}

/// The captures made by pawns whose start file is forced.
pub fn capture_events(info: &PawnInfo) -> Vec<CaptureEvent> {
    let mut out = Vec::new();
    for (i, &sq) in info.squares.iter().enumerate() {
        let mask = info.feasible[i];
        if mask.count_ones() != 1 {
            continue;
        }
        let g = mask.trailing_zeros() as i32;
        let f = sq.file().to_u32() as i32;
        let d = (f - g).unsigned_abs();
        let dir = (f - g).signum();
        let r = relative_rank(info.color, sq);
        for step in 1..=d {
            // The step-th capture lands on its file no earlier than rank
            // 1 + step and late enough to leave room for the later ones.
            let file = (g + dir * step as i32) as u32;
            let mut squares = Bitboard::EMPTY;
            for rel in (1 + step)..=(r - (d - step)) {
                squares.add(relative_square(info.color, file, rel));
            }
            out.push(CaptureEvent { pawn: sq, squares });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    #[test]
    fn doubled_pawn_needs_a_capture() {
        let b = board("rnbqkbnr/p1pppppp/p7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let info = analyse(&b, Color::Black).unwrap();
        assert_eq!(info.min_captures, Some(1));
        assert_eq!(info.budget, 0);
        assert!(info.feasible.contains(&0));
    }

    #[test]
    fn forced_capture_square() {
        let b = board("rnbqkbnr/p1pppppp/p7/8/8/3P4/PPP1PPPP/RN1QKBNR w KQkq - 0 1");
        let info = analyse(&b, Color::Black).unwrap();
        let events = capture_events(&info);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].squares, Bitboard::from_square(Square::A6));
    }

    #[test]
    fn promotions_past_a_blocking_pawn_need_captures() {
        // Black promoted twice (two extra queens) with its b- and c-pawns,
        // but White's b- and c-pawns never left their files: two captures,
        // and White has lost only one unit (the h-pawn).
        let b = board("rnbqkbnr/p2ppppp/8/8/8/q6q/PPPPPPP1/RNBQKBNR w - - 0 1");
        let black = analyse(&b, Color::Black).unwrap();
        let white = analyse(&b, Color::White).unwrap();
        assert_eq!(bound_files(&white), 0b0111_1111);
        assert_eq!(min_with_promotions(&black, bound_files(&white), 2), Some(2));
        assert_eq!(black.budget, 1);
    }

    #[test]
    fn straight_pawns_need_nothing() {
        let b = board("4k3/pppppppp/8/8/4P3/8/PPPP1PPP/4K3 w - - 0 1");
        let info = analyse(&b, Color::White).unwrap();
        assert_eq!(info.min_captures, Some(0));
        assert!(capture_events(&info).is_empty());
    }

    #[test]
    fn far_pawn_capture_squares_span_ranks() {
        // The c4 pawn came from a2 (b2..e2 are at home): a2xb3xc4 exactly,
        // since it advanced two ranks with two captures.
        let b = board("4k3/8/8/8/2P5/8/1PPPP3/4K3 w - - 0 1");
        let info = analyse(&b, Color::White).unwrap();
        let events = capture_events(&info);
        let squares: Vec<Bitboard> = events.iter().map(|e| e.squares).collect();
        assert_eq!(
            squares,
            vec![
                Bitboard::from_square(Square::B3),
                Bitboard::from_square(Square::C4)
            ]
        );
    }
}
