//! Pawn geometry on bitboards: cones, diamonds, stretches, en-passant
//! squares.

use super::*;

/// Where `color`'s pawns stand when an enemy pawn takes them en passant
/// landing on one of `squares`: beside the landing square, one rank nearer
/// their own side.
pub(super) fn en_passant_victims(color: Color, squares: Bitboard) -> Bitboard {
    match color {
        Color::Black => (squares & Bitboard::from_rank(Rank::Sixth)).shift(-8),
        Color::White => (squares & Bitboard::from_rank(Rank::Third)).shift(8),
    }
}

/// `color`'s promotion rank.
pub(super) fn last_rank(color: Color) -> Bitboard {
    Bitboard::from_rank(if color == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    })
}

/// The fewest moves for `color`'s pawn on `from` to get to one of
/// `squares`, ignoring obstacles (`INF` for none).
pub(super) fn fewest_pawn_moves(color: Color, from: Square, squares: Bitboard) -> i32 {
    // The nearest rank of `squares` ahead within the pawn's reach; from
    // its second rank, one move less to where the double step leads.
    let nearest = |start: Square| {
        let ahead = squares & pawn_cone(color, start).with(start);
        let sq = if color == Color::White {
            ahead.first()
        } else {
            ahead.last()
        }?;
        Some(rel_rank(color, sq) - rel_rank(color, from))
    };
    let single = nearest(from).unwrap_or(INF);
    let double = (rel_rank(color, from) == 1)
        .then(|| from.offset(if color == Color::White { 16 } else { -16 }))
        .flatten()
        .and_then(nearest)
        .map_or(INF, |d| d - 1);
    single.min(double)
}

/// Where `color`'s pawns land when they take an enemy pawn en passant on
/// one of `squares`: behind it.
pub(super) fn en_passant_landings(color: Color, squares: Bitboard) -> Bitboard {
    match color {
        Color::White => (squares & Bitboard::from_rank(Rank::Fifth)).shift(8),
        Color::Black => (squares & Bitboard::from_rank(Rank::Fourth)).shift(-8),
    }
}

/// The cheapest matching of the `n × n` matrix `cost` that pairs row `i`
/// with column `j`.
pub(super) fn forced_cost(cost: &[i32; MAX_N * MAX_N], n: usize, i: usize, j: usize) -> i32 {
    let mut rest = [0; MAX_N * MAX_N];
    let mut k = 0;
    for r in (0..n).filter(|&r| r != i) {
        for c in (0..n).filter(|&c| c != j) {
            rest[k] = cost[r * n + c];
            k += 1;
        }
    }
    match min_cost(&rest, n - 1) {
        Some(c) => c.saturating_add(cost[i * n + j]).min(INF),
        None => INF,
    }
}

/// Squares a pawn of `color` can land on by a capture on its way from
/// `from` to `to` (ranks strictly after `from`, up to `to`).
pub(super) fn pawn_diamond(color: Color, from: Square, to: Square) -> Bitboard {
    let (r0, r1) = (rel_rank(color, from), rel_rank(color, to));
    let (f0, f1) = (from.file() as i32, to.file() as i32);
    ((r0 + 1)..=r1).fold(Bitboard::EMPTY, |squares, r| {
        let lo = (f0 - (r - r0)).max(f1 - (r1 - r));
        let hi = (f0 + (r - r0)).min(f1 + (r1 - r));
        squares | rank_span(color, r, lo, hi)
    })
}

/// Every square ahead of a pawn of `color` on `from` that it can reach.
pub(super) fn pawn_cone(color: Color, from: Square) -> Bitboard {
    Bitboard(PAWN_CONES[color_index(color)][from.to_usize()])
}

/// [`pawn_cone`] by colour index and square, worked out at compile time:
/// the capture tests ask for cones at nearly every node.
pub(super) const PAWN_CONES: [[u64; 64]; 2] = {
    let mut cones = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (rank, file) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut to: usize = 0;
        while to < 64 {
            let (r, f) = ((to / 8) as i32, (to % 8) as i32);
            let wide = (f - file).abs();
            // White's pawns go up the board (colour index 0), Black's down.
            if r > rank && wide <= r - rank {
                cones[0][sq] |= 1u64 << to;
            }
            if r < rank && wide <= rank - r {
                cones[1][sq] |= 1u64 << to;
            }
            to += 1;
        }
        sq += 1;
    }
    cones
};

/// The squares of files `lo..=hi` (clipped to the board) on the rank
/// `rank` counted from `color`'s side.
pub(super) fn rank_span(color: Color, rank: i32, lo: i32, hi: i32) -> Bitboard {
    let (lo, hi) = (lo.max(0), hi.min(7));
    if lo > hi {
        return Bitboard::EMPTY;
    }
    let row = ((1u64 << (hi - lo + 1)) - 1) << lo;
    let rank = if color == Color::White {
        rank
    } else {
        7 - rank
    };
    Bitboard(row << (8 * rank))
}

/// Units of the diagram that provably never moved (nor were captured and
/// replaced): pawns on their initial squares, and the largest set of units
/// on their initial squares whose every neighbouring square (in their way of
/// moving) holds a unit of the set. Why the largest set is sound: take the
/// last time the occupant of one of these squares changed; the diagram unit
/// then entered it from a neighbouring square of the set, whose occupant had
/// to change later still.
pub(super) fn fixed_units(target: &Board) -> Bitboard {
    let mut fixed = Bitboard::EMPTY;
    for (sq, piece) in target.iter() {
        if initial_unit(sq) == Some((piece.color, piece.role)) {
            fixed.add(sq);
        }
    }
    loop {
        let mut kept = fixed;
        for sq in fixed {
            let piece = target.piece_at(sq).expect("fixed squares are occupied");
            let exits = match piece.role {
                Role::Pawn => continue,
                Role::Knight => attacks::knight_attacks(sq),
                Role::King => attacks::king_attacks(sq),
                _ => attacks::attacks(sq, piece, Bitboard::FULL),
            };
            if !(exits & !fixed).is_empty() {
                kept.discard(sq);
            }
        }
        if kept == fixed {
            return fixed;
        }
        fixed = kept;
    }
}

/// The stretches of a file from a pawn's initial square to its diagram
/// square, for each diagram pawn off its initial square that can only have
/// come straight up its own file: its side's pawns can make at most one
/// capture (the opponent lost at most one unit), so a pawn that ends on
/// its starting file made none; and every other initial square it could
/// have come from with that capture still holds the pawn that started
/// there. Such a pawn is on one square of its stretch at every moment.
pub(super) fn pawn_stretches(target: &Board) -> Vec<Bitboard> {
    let mut out = Vec::new();
    for color in Color::ALL {
        let captures = 16 - target.by_color(!color).count() as i32;
        if captures > 1 {
            continue;
        }
        let home_rank = if color == Color::White { 1 } else { 6 };
        let home = |file: i32| Square::from_coords(File::new(file as u32), Rank::new(home_rank));
        let at_home = |file: i32| target.piece_at(home(file)) == Some(Role::Pawn.of(color));
        for to in target.by_piece(Role::Pawn.of(color)) {
            let file = to.file().to_u32() as i32;
            let from = home(file);
            let others_home = (file - captures..=file + captures)
                .filter(|f| *f != file && (0..8).contains(f))
                .all(at_home);
            if to != from && !at_home(file) && others_home {
                out.push(attacks::between(from, to).with(from).with(to));
            }
        }
    }
    out
}

/// Whether a slide from `from` to `to` along a file covers all of one of
/// the `stretches`, on one square of which a pawn stands.
pub(super) fn crosses_a_pawn(from: Square, to: Square, stretches: &[Bitboard]) -> bool {
    let span = attacks::between(from, to).with(from).with(to);
    from.file() == to.file() && stretches.iter().any(|s| s.is_subset(span))
}

/// Rank counted from `color`'s own side (0 = its first rank).
pub(super) fn rel_rank(color: Color, sq: Square) -> i32 {
    let r = sq.rank().to_u32() as i32;
    match color {
        Color::White => r,
        Color::Black => 7 - r,
    }
}

/// The units the initial array has on `sq`, if any.
pub(super) fn initial_unit(sq: Square) -> Option<(Color, Role)> {
    Board::default()
        .piece_at(sq)
        .map(|piece| (piece.color, piece.role))
}

/// Fewest moves and captures for a pawn of `color` from `from` to `to`
/// (`to` may be on the last rank: the promotion move), ignoring obstacles.
pub(super) fn pawn_path(color: Color, from: Square, to: Square) -> Option<(i32, i32)> {
    let dr = rel_rank(color, to) - rel_rank(color, from);
    let df = from.file().distance(to.file()) as i32;
    if dr < 0 || df > dr {
        return None;
    }
    let double = rel_rank(color, from) == 1 && dr >= 2 && df <= dr - 2;
    Some((dr - i32::from(double), df))
}

/// Straight (non-capturing) moves a pawn of `color` must make at least from
/// `from` to `to`: captures change the file by one each, so when the ranks
/// left over after the file change are odd, one step is straight.
pub(super) fn straight_steps(color: Color, from: Square, to: Square) -> i32 {
    let dr = rel_rank(color, to) - rel_rank(color, from);
    let df = from.file().distance(to.file()) as i32;
    (dr - df).rem_euclid(2)
}
