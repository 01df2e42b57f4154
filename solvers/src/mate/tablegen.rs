//! The empty-board distance tables of [`super::distances`], generated:
//! by the build script, which writes them into the binary, and by the
//! tests, which check the binary's copy against them. Self-contained
//! (only `shakmaty` and `std`), so that the build script can include it.
//!
//! The bytes: seven little-endian `u32` section lengths, then the
//! sections in that order: `reach`, `attack`, `check`, `cover`,
//! `promote`, `near` (each unit's [`NEAR`] bitboards as little-endian
//! `u64`s) and `state`; their layouts are [`super::distances::Tables`]'s.

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

/// Marks a square a unit can never reach or attack.
pub const FAR: u8 = u8::MAX;

/// Distances the `near` section holds squares for.
pub const NEAR: usize = 8;

/// The tables as vectors, before they are written out.
struct Generated {
    reach: Vec<u8>,
    attack: Vec<u8>,
    check: Vec<u8>,
    cover: Vec<u8>,
    promote: Vec<u8>,
    near: Vec<[Bitboard; NEAR]>,
    state: Vec<u8>,
}

/// The tables' bytes (see the module's comment).
pub fn bytes() -> Vec<u8> {
    let g = generate();
    let near: Vec<u8> = g
        .near
        .iter()
        .flatten()
        .flat_map(|b| b.0.to_le_bytes())
        .collect();
    let sections = [
        &g.reach, &g.attack, &g.check, &g.cover, &g.promote, &near, &g.state,
    ];
    let mut out = Vec::new();
    for s in sections {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    }
    for s in sections {
        out.extend_from_slice(s);
    }
    out
}

pub fn index(color: Color, role: Role, from: Square, to: Square) -> usize {
    (((color as usize) * 6 + role as usize - 1) * 64 + from.to_usize()) * 64 + to.to_usize()
}

pub fn cover_index(color: Color, role: Role, king: Square) -> usize {
    ((color as usize) * 6 + role as usize - 1) * 64 + king.to_usize()
}

/// What a unit in `role` attacks from `sq` on an empty board.
pub fn empty_attacks(color: Color, role: Role, sq: Square) -> Bitboard {
    attacks::attacks(sq, Piece { color, role }, Bitboard::EMPTY)
}

/// One-move successors of a unit on an empty board, promotions included.
pub fn successors(color: Color, role: Role, sq: Square) -> Vec<(Role, Square)> {
    if role != Role::Pawn {
        return empty_attacks(color, role, sq)
            .into_iter()
            .map(|to| (role, to))
            .collect();
    }
    let mut to = attacks::pawn_attacks(color, sq);
    let step = if color.is_white() { 8 } else { -8 };
    if let Some(one) = sq.offset(step) {
        to |= one;
        if sq.rank() == color.relative_rank(shakmaty::Rank::Second) {
            if let Some(two) = one.offset(step) {
                to |= two;
            }
        }
    }
    let last = color.relative_rank(shakmaty::Rank::Eighth);
    let mut out = Vec::new();
    for t in to {
        if t.rank() == last {
            for promoted in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                out.push((promoted, t));
            }
        } else {
            out.push((Role::Pawn, t));
        }
    }
    out
}

/// [`successors`] of every unit, by [`cover_index`].
pub fn successor_table() -> Vec<Vec<(Role, Square)>> {
    let mut succ = vec![Vec::new(); 2 * 6 * 64];
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in Square::ALL {
                succ[cover_index(color, role, sq)] = successors(color, role, sq);
            }
        }
    }
    succ
}

/// Every table, by breadth-first searches from every unit.
fn generate() -> Generated {
    let mut reach = vec![FAR; 2 * 6 * 64 * 64];
    let mut attack = vec![FAR; 2 * 6 * 64 * 64];
    let mut cover = vec![0; 2 * 6 * 64];
    let mut promote = vec![FAR; 2 * 64];
    let mut near = vec![[Bitboard::EMPTY; NEAR]; 2 * 6 * 64];
    let mut state_dist = Vec::with_capacity(2 * 6 * 64 * 6 * 64);
    // Every unit's one-move successors, made once: the searches below
    // ask for each of them hundreds of times (making them anew was most
    // of a small one-shot solve's CPU time, when every process built
    // these tables).
    let succ = successor_table();
    let succ = |color: Color, role: Role, sq: Square| -> &[(Role, Square)] {
        &succ[cover_index(color, role, sq)]
    };
    // Each unit's attacks on an empty board, read below some hundred
    // thousand times.
    let mut attacks_of = vec![Bitboard::EMPTY; 2 * 6 * 64];
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in Square::ALL {
                attacks_of[cover_index(color, role, sq)] = empty_attacks(color, role, sq);
            }
        }
    }
    let attacks_of =
        |color: Color, role: Role, sq: Square| attacks_of[cover_index(color, role, sq)];
    for color in [Color::Black, Color::White] {
        for role in Role::ALL {
            for from in Square::ALL {
                let at_state =
                    (((color as usize) * 6 + role as usize - 1) * 64 + from.to_usize()) * 6 * 64;
                debug_assert_eq!(state_dist.len(), at_state);
                // A piece moves and attacks alike for both colours on
                // an empty board: White's rows are Black's (built
                // first), copied (the build 2.2 -> 1.5 ms).
                if color.is_white() && role != Role::Pawn {
                    let black = index(Color::Black, role, from, Square::A1);
                    let row = index(color, role, from, Square::A1);
                    // A colour's state rows: 6 roles x 64 squares, of
                    // 6 x 64 states each.
                    let black_state = at_state - 6 * 64 * 6 * 64;
                    state_dist.extend_from_within(black_state..black_state + 6 * 64);
                    reach.copy_within(black..black + 64, row);
                    attack.copy_within(black..black + 64, row);
                    near[row / 64] = near[black / 64];
                    continue;
                }
                let dist = bfs(color, role, from, succ);
                state_dist.extend_from_slice(&dist);
                // The squares stood on and attacked at each distance,
                // as bitboards: a square's distance is the first level
                // that holds it. (Square by square, attacks included,
                // this took most of the build's time.)
                let mut levels: Vec<(Bitboard, Bitboard)> = Vec::new();
                for (state, &d) in dist.iter().enumerate() {
                    if d == FAR {
                        continue;
                    }
                    let d = usize::from(d);
                    if levels.len() <= d {
                        levels.resize(d + 1, (Bitboard::EMPTY, Bitboard::EMPTY));
                    }
                    let r = Role::ALL[state / 64];
                    let at = Square::new((state % 64) as u32);
                    levels[d].0.add(at);
                    levels[d].1 |= attacks_of(color, r, at);
                    if role == Role::Pawn && r != Role::Pawn {
                        let p = (color as usize) * 64 + from.to_usize();
                        promote[p] = promote[p].min(d as u8);
                    }
                }
                let row = index(color, role, from, Square::A1);
                let (mut stood, mut attacked) = (Bitboard::EMPTY, Bitboard::EMPTY);
                for (d, &(on, hits)) in levels.iter().enumerate() {
                    for to in on & !stood {
                        reach[row + to.to_usize()] = d as u8;
                    }
                    for target in hits & !attacked {
                        attack[row + target.to_usize()] = d as u8;
                    }
                    stood |= on;
                    attacked |= hits;
                    if let Some(within) = near[row / 64].get_mut(d..) {
                        within.iter_mut().for_each(|w| *w |= on);
                    }
                }
            }
            for king in Square::ALL {
                let zone = attacks::king_attacks(king).with(king);
                let best = Square::ALL
                    .into_iter()
                    .filter(|&e| e != king && (role != Role::King || e.distance(king) >= 2))
                    .map(|e| (attacks_of(color, role, e) & zone).count())
                    .max()
                    .unwrap_or(0);
                cover[cover_index(color, role, king)] = best as u8;
            }
        }
    }
    // Only knights and pawns give their mating check by a move of
    // their own (see `check_cost`): the other roles' rows stay `FAR`.
    let mut check = vec![FAR; 2 * 6 * 64 * 64];
    for color in Color::ALL {
        for role in [Role::Knight, Role::Pawn] {
            for from in Square::ALL {
                for &(r, s) in succ(color, role, from) {
                    for target in Square::ALL {
                        let d = attack[index(color, r, s, target)].saturating_add(1);
                        let i = index(color, role, from, target);
                        check[i] = check[i].min(d);
                    }
                }
            }
        }
    }
    Generated {
        reach,
        attack,
        check,
        cover,
        promote,
        near,
        state: state_dist,
    }
}

/// Shortest move counts from `from` to every (role, square) state, indexed
/// `(role - 1) * 64 + square`: a breadth-first search a level at a time,
/// the squares of each role's states as a bitboard (a piece's next level
/// is its attacks from the last; only pawns read their listed successors,
/// for their steps and promotions). State by state, with a list per level,
/// the tables took 2.8 ms to build; this way 1.2 ms, byte for byte the
/// same tables.
pub fn bfs<'a>(
    color: Color,
    role: Role,
    from: Square,
    succ: impl Fn(Color, Role, Square) -> &'a [(Role, Square)],
) -> Vec<u8> {
    let mut dist = vec![FAR; 6 * 64];
    // A pawn never stands on its first or last rank.
    if role == Role::Pawn
        && (from.rank() == color.relative_rank(shakmaty::Rank::First)
            || from.rank() == color.relative_rank(shakmaty::Rank::Eighth))
    {
        return dist;
    }
    let layer = |r: Role| r as usize - 1;
    let mut seen = [Bitboard::EMPTY; 6];
    let mut frontier = [Bitboard::EMPTY; 6];
    seen[layer(role)] = Bitboard::from(from);
    frontier[layer(role)] = Bitboard::from(from);
    dist[layer(role) * 64 + from.to_usize()] = 0;
    let mut d = 0;
    while frontier.iter().any(|f| f.any()) {
        d += 1;
        let mut next = [Bitboard::EMPTY; 6];
        for r in Role::ALL {
            for sq in frontier[layer(r)] {
                if r == Role::Pawn {
                    for &(r2, to) in succ(color, r, sq) {
                        next[layer(r2)].add(to);
                    }
                } else {
                    next[layer(r)] |= empty_attacks(color, r, sq);
                }
            }
        }
        for (l, next) in next.iter_mut().enumerate() {
            *next &= !seen[l];
            seen[l] |= *next;
            for sq in *next {
                dist[l * 64 + sq.to_usize()] = d;
            }
        }
        frontier = next;
    }
    dist
}
