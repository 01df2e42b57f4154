//! Pawn crossing: a White and a Black pawn that started on the same file
//! cannot pass each other while both stay on it. One of them has to leave
//! the file, which costs a capture (two for a pawn that ends on its start
//! file again).
//!
//! The search is a relaxation of every game: each side's pawns on the board
//! are assigned to start files (a pawn on its own file either never left it
//! or zigzagged with two captures), each missing pawn was captured, promoted
//! without leaving its file, or promoted after at least one capture. Pairs
//! of pawns that never left a common file must not have crossed (the White
//! one stands below the Black one, and neither promoted on it). The counts
//! must fit: each side's captures at most the units the other side lost,
//! and at least as many promotions as the promoted pieces on the board
//! need. When no choice fits, no game reaches the diagram.

use crate::fxhash::{FxHashMap, FxHashSet};

use shakmaty::{Color, Setup};

use super::pawns::PawnInfo;
use crate::legality::{cheap, Flaw, Reason};

/// Work limit (assignment pairs times DP states); beyond it, say nothing.
const MAX_WORK: usize = 400_000;

/// States kept per file in the search; beyond it, say nothing.
const MAX_STATES: usize = 20_000;

/// Searches with the accounting of lost units per diagram; beyond it, say
/// nothing.
const MAX_ACCOUNTED: usize = 200;

/// Assignments grouped by (used files, ranks on own files): the captures
/// landing per file and the cost of each.
type Grouped = FxHashMap<(u8, [Option<u8>; 8]), Vec<([u8; 8], u32)>>;

fn by_files(all: Assignments) -> Grouped {
    let mut out = Grouped::default();
    for (key, cost) in all {
        let (used, own, landed) = key.unpack();
        out.entry((used, own)).or_default().push((landed, cost));
    }
    out
}

/// Per side, the ways to assign the pawns on the board to start files,
/// each with the fewest captures.
type Assignments = FxHashMap<Key, u32>;

/// One way, packed so that the maps hash and compare one word: the used
/// files (bits 0-7), the rank of a pawn standing on its own start file
/// per file (four bits each, 0 for none, from bit 8), the captures surely
/// landing on each file (eight bits each, from bit 40).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u128);

impl Key {
    fn with_pawn(self, g: u32, own_rank: Option<u8>, landed_on: std::ops::Range<u32>) -> Key {
        let mut k = self.0 | 1 << g;
        if let Some(rank) = own_rank {
            k |= u128::from(rank + 1) << (8 + 4 * g);
        }
        for h in landed_on {
            k += 1 << (40 + 8 * h);
        }
        Key(k)
    }

    fn unpack(self) -> (u8, [Option<u8>; 8], [u8; 8]) {
        let k = self.0;
        let own = std::array::from_fn(|f| match (k >> (8 + 4 * f)) as u8 & 15 {
            0 => None,
            r => Some(r - 1),
        });
        (
            k as u8,
            own,
            std::array::from_fn(|f| (k >> (40 + 8 * f)) as u8),
        )
    }
}

/// Built pawn by pawn, keeping per (used files, own ranks, landed
/// captures) the fewest captures so far: assignments of the first pawns
/// that agree on those lead to the same completions, so each is extended
/// once. Trying every assignment instead, as the retraction search asks
/// again for each position it retracts to, made a legality-only `cookd
/// solve` of hm100 (six Black pawns, eleven captures to spend) 21 ms
/// against 13 ms, and of hm117 23 ms against 6 ms.
fn assignments(info: &PawnInfo, limit: usize) -> Option<Assignments> {
    let mut states = Assignments::default();
    states.insert(Key(0), 0);
    for (&sq, &feasible) in info.squares.iter().zip(&info.feasible) {
        let f = sq.file().to_u32();
        let rank = sq.rank().to_u32() as u8;
        let mut next = Assignments::default();
        for (&key, &cost) in &states {
            for g in 0..8u32 {
                let cost = cost + g.abs_diff(f);
                if feasible & (1 << g) == 0 || key.0 & (1 << g) != 0 || cost > info.budget {
                    continue;
                }
                // A pawn going from file g to file f captured at least
                // once on every file after g up to f, whatever its path.
                let between = if g < f { g + 1..f + 1 } else { f..g };
                let key = key.with_pawn(g, (g == f).then_some(rank), between);
                let slot = next.entry(key).or_insert(cost);
                *slot = (*slot).min(cost);
            }
        }
        states = next;
    }
    (states.len() <= limit).then_some(states)
}

/// What the pawn of one side that started on a file did, as far as
/// crossing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Never left the file and stands on it, on this rank.
    On(u8),
    /// Never left the file and promoted on it.
    Promoted,
    /// Left the file, or was captured: it crosses nobody on this file.
    Free,
}

/// Whether the pawn was captured, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lost {
    /// Not captured (on the board, or promoted).
    No,
    /// Captured on its own file without having captured anything.
    OnFile,
    /// Captured after at least one capture of its own, on any file.
    Away,
}

/// One choice for one side's pawn of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Choice {
    captures: u32,
    promotions: u32,
    fate: Fate,
    lost: Lost,
}

const fn choice(captures: u32, promotions: u32, fate: Fate, lost: Lost) -> Choice {
    Choice {
        captures,
        promotions,
        fate,
        lost,
    }
}

/// The choices of one side's pawn of a file.
fn options(used: u8, own: &[Option<u8>; 8], file: usize) -> Vec<Choice> {
    if used & (1 << file) != 0 {
        match own[file] {
            Some(rank) => vec![
                choice(0, 0, Fate::On(rank), Lost::No),
                choice(2, 0, Fate::Free, Lost::No),
            ],
            None => vec![choice(0, 0, Fate::Free, Lost::No)],
        }
    } else {
        vec![
            choice(0, 0, Fate::Free, Lost::OnFile),
            choice(0, 1, Fate::Promoted, Lost::No),
            choice(1, 1, Fate::Free, Lost::No),
            choice(1, 0, Fate::Free, Lost::Away),
        ]
    }
}

fn crossed(white: Fate, black: Fate) -> bool {
    match (white, black) {
        (Fate::On(w), Fate::On(b)) => w > b,
        (Fate::Free, _) | (_, Fate::Free) => false,
        _ => true,
    }
}

/// One side's pawns as assigned: used start files, ranks of pawns on their
/// own file, captures surely landing on each file.
struct Side<'a> {
    used: u8,
    own: &'a [Option<u8>; 8],
    landed: &'a [u8; 8],
}

/// The counters of the search, per side (0 White, 1 Black): captures made
/// beyond the assignment, promotions (capped at the need), pawns lost, and
/// the load on the units lost: pawns lost plus the enemy's sure pawn
/// captures that cannot have taken one of these pawns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    captures: [u8; 2],
    promotions: [u8; 2],
    pawns_lost: [u8; 2],
    load: [u8; 2],
}

/// The load a side's pawn of a file adds: the enemy pawn captures sure to
/// land on the file (`landed`) must each have taken a unit of this side;
/// a pawn of this side captured there takes at most one of them on itself
/// (counted as a lost pawn instead), and a pawn captured after capturing
/// may have been any one of them anywhere.
fn load(landed: u8, lost: Lost) -> u32 {
    let landed = u32::from(landed);
    match lost {
        Lost::No => landed,
        Lost::OnFile => landed.max(1),
        Lost::Away => landed,
    }
}

/// Whether some choice per file fits the capture budgets and the
/// promotion counts, pawn crossing only (fast, dense).
fn fits_plain(
    white: (u8, &[Option<u8>; 8]),
    black: (u8, &[Option<u8>; 8]),
    room: [u32; 2],
    promotions: [u32; 2],
) -> bool {
    let dims = [
        room[0] as usize + 1,
        room[1] as usize + 1,
        promotions[0] as usize + 1,
        promotions[1] as usize + 1,
    ];
    let index = |s: [usize; 4]| ((s[0] * dims[1] + s[1]) * dims[2] + s[2]) * dims[3] + s[3];
    let size = dims.iter().product();
    let mut reach = vec![false; size];
    reach[0] = true;
    for file in 0..8 {
        // A pawn captured after capturing is never better than one
        // captured at once, as far as crossing goes.
        let wo: Vec<Choice> = options(white.0, white.1, file)
            .into_iter()
            .filter(|c| c.lost != Lost::Away)
            .collect();
        let bo: Vec<Choice> = options(black.0, black.1, file)
            .into_iter()
            .filter(|c| c.lost != Lost::Away)
            .collect();
        let mut next = vec![false; size];
        for wc in 0..dims[0] {
            for bc in 0..dims[1] {
                for wp in 0..dims[2] {
                    for bp in 0..dims[3] {
                        if !reach[index([wc, bc, wp, bp])] {
                            continue;
                        }
                        for w in &wo {
                            for b in &bo {
                                let s = [
                                    wc + w.captures as usize,
                                    bc + b.captures as usize,
                                    (wp + w.promotions as usize).min(dims[2] - 1),
                                    (bp + b.promotions as usize).min(dims[3] - 1),
                                ];
                                if s[0] < dims[0] && s[1] < dims[1] && !crossed(w.fate, b.fate) {
                                    next[index(s)] = true;
                                }
                            }
                        }
                    }
                }
            }
        }
        reach = next;
    }
    (0..dims[0]).any(|wc| (0..dims[1]).any(|bc| reach[index([wc, bc, dims[2] - 1, dims[3] - 1])]))
}

/// Whether the accounting of lost units can bind for the side whose pawns
/// are `side` (the enemy's sure captures `enemy_landed`): its pawns lost,
/// or its load, can exceed the units it lost.
fn binds(side: &Side, enemy_landed: &[u8; 8], lost: u32) -> bool {
    let missing = (0..8).filter(|f| side.used & (1 << f) == 0);
    let unlanded = missing.clone().filter(|&f| enemy_landed[f] == 0).count() as u32;
    let landed: u32 = enemy_landed.iter().map(|&n| u32::from(n)).sum();
    missing.count() as u32 > lost || landed + unlanded > lost
}

/// Whether some choice per file fits the budgets and the promotion counts.
///
/// Each side's pawn captures are at most the units the other side lost
/// (`room`: what is left after the assignment), its missing pawns that
/// were captured too, and the units the other side lost also cover every
/// pawn capture surely made on a file where no pawn of theirs can have
/// stood then: a pawn captured on its own file covers one such capture,
/// and so does a pawn captured after capturing (it can have gone there),
/// the others took pieces.
fn fits(white: &Side, black: &Side, room: [u32; 2], promotions: [u32; 2], lost: [u32; 2]) -> bool {
    let mut states = vec![State {
        captures: [0; 2],
        promotions: [0; 2],
        pawns_lost: [0; 2],
        load: [0; 2],
    }];
    let mut seen = FxHashSet::default();
    for file in 0..8 {
        let wo = options(white.used, white.own, file);
        let bo = options(black.used, black.own, file);
        let mut next = Vec::new();
        seen.clear();
        for s in &states {
            for w in &wo {
                for b in &bo {
                    if crossed(w.fate, b.fate) {
                        continue;
                    }
                    let mut t = *s;
                    let mut ok = true;
                    for (side, c, landed) in
                        [(0, w, black.landed[file]), (1, b, white.landed[file])]
                    {
                        let captures = u32::from(t.captures[side]) + c.captures;
                        let prom =
                            (u32::from(t.promotions[side]) + c.promotions).min(promotions[side]);
                        let pawns_lost =
                            u32::from(t.pawns_lost[side]) + u32::from(c.lost != Lost::No);
                        let load = u32::from(t.load[side]) + self::load(landed, c.lost);
                        ok &= captures <= room[side]
                            && pawns_lost <= lost[side]
                            && load <= lost[side];
                        t.captures[side] = captures.min(255) as u8;
                        t.promotions[side] = prom.min(255) as u8;
                        t.pawns_lost[side] = pawns_lost.min(255) as u8;
                        t.load[side] = load.min(255) as u8;
                    }
                    if ok && seen.insert(t) {
                        next.push(t);
                    }
                }
            }
        }
        if next.len() > MAX_STATES {
            return true;
        }
        states = next;
    }
    states.iter().any(|s| {
        u32::from(s.promotions[0]) >= promotions[0] && u32::from(s.promotions[1]) >= promotions[1]
    })
}
/// `TooManyCaptures` when no assignment of the pawns lets the pawns that
/// share a start file avoid crossing within the capture budgets, with
/// every sure pawn capture taking a unit the other side lost.
pub fn check(setup: &Setup, infos: &[Option<PawnInfo>; 2]) -> Option<Reason> {
    let [Some(white), Some(black)] = infos else {
        return None;
    };
    let promotions = [
        cheap::min_promoted(&setup.board, Color::White),
        cheap::min_promoted(&setup.board, Color::Black),
    ];
    let wa = by_files(assignments(white, 2000)?);
    let ba = by_files(assignments(black, 2000)?);
    let states = (white.budget as usize + 1)
        * (black.budget as usize + 1)
        * (promotions[0] as usize + 1)
        * (promotions[1] as usize + 1);
    if wa.len() * ba.len() * states > MAX_WORK {
        return None;
    }
    // Units each side lost: the other side's capture budget.
    let lost = [black.budget, white.budget];
    let mut accounted = 0;
    for ((wused, wown), wvars) in &wa {
        for ((bused, bown), bvars) in &ba {
            let wmin = wvars.iter().map(|v| v.1).min().unwrap_or(0);
            let bmin = bvars.iter().map(|v| v.1).min().unwrap_or(0);
            let room = [white.budget - wmin, black.budget - bmin];
            if !fits_plain((*wused, wown), (*bused, bown), room, promotions) {
                continue;
            }
            for (wlanded, wcost) in wvars {
                for (blanded, bcost) in bvars {
                    let room = [white.budget - wcost, black.budget - bcost];
                    let w = Side {
                        used: *wused,
                        own: wown,
                        landed: wlanded,
                    };
                    let b = Side {
                        used: *bused,
                        own: bown,
                        landed: blanded,
                    };
                    let plain = !binds(&w, blanded, lost[0]) && !binds(&b, wlanded, lost[1]);
                    if plain {
                        if fits_plain((*wused, wown), (*bused, bown), room, promotions) {
                            return None;
                        }
                        continue;
                    }
                    accounted += 1;
                    if accounted > MAX_ACCOUNTED || fits(&w, &b, room, promotions, lost) {
                        return None;
                    }
                }
            }
        }
    }
    Some(Reason::new(
        Flaw::TooManyCaptures,
        None,
        format!(
            "a White and a Black pawn from the same file cannot pass each other unless one \
             leaves the file by a capture, and every pawn capture took a unit that could stand \
             there: with White's {} and Black's {} promotion(s), no assignment of the pawns to \
             their files fits in the captures available (White {}, Black {}) and the units lost",
            promotions[0], promotions[1], white.budget, black.budget
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::pawns;
    use crate::testing::{random_games, Lcg};
    use shakmaty::fen::Fen;
    use shakmaty::{Chess, EnPassantMode, MoveList, Position};

    fn crossing(fen: &str) -> Option<Reason> {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        let infos = [
            pawns::analyse(&setup.board, Color::White),
            pawns::analyse(&setup.board, Color::Black),
        ];
        check(&setup, &infos)
    }

    #[test]
    fn facing_pawns_on_one_file_cannot_pass() {
        // White h5 above Black h4 and nothing captured: impossible.
        let fen = "rnbqkbnr/ppppppp1/8/7P/7p/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1";
        let r = crossing(fen);
        assert_eq!(r.map(|r| r.flaw), Some(Flaw::TooManyCaptures));
        // White h4 below Black h5: fine.
        assert!(crossing("rnbqkbnr/ppppppp1/8/7p/7P/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1").is_none());
        // With a Black unit lost, White's h5 pawn can have come from g2.
        assert!(crossing("rnbqkb1r/ppppppp1/8/7P/7p/8/PPPPPP1P/RNBQKBNR w KQkq - 0 1").is_none());
    }

    #[test]
    fn promotion_past_a_pawn_on_its_file_needs_a_capture() {
        // White promoted (second queen) with no Black unit lost; Black's
        // pawns are all at home: White's promoting pawn passed one of them.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/QNBQKBNR w Kkq - 0 1";
        assert!(crossing(fen).is_some());
        // A Black unit lost (the a7 pawn): the a-pawn passed nothing.
        let fen = "rnbqkbnr/1ppppppp/8/8/8/8/1PPPPPPP/QNBQKBNR w Kkq - 0 1";
        assert!(crossing(fen).is_none());
    }

    #[test]
    fn pawn_capture_beside_an_unmoved_pawn_took_a_piece() {
        // b7xa6 took a White unit, which cannot have been a pawn (a2 never
        // moved, and White captured nothing to bring another pawn there);
        // White's only lost unit is the h-pawn: impossible.
        let fen = "rnbqkbnr/p1pppppp/p7/8/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1";
        assert_eq!(crossing(fen).map(|r| r.flaw), Some(Flaw::TooManyCaptures));
        // With a knight lost instead, b7xa6 took the knight.
        assert!(crossing("rnbqkbnr/p1pppppp/p7/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1").is_none());
        // A White pawn captured on the a-file after capturing there itself.
        assert!(crossing("rnbqkbn1/p1pppppp/p7/8/8/8/P1PPPPPP/RNBQKBNR w KQq - 0 1").is_none());
    }

    /// Soundness: games where pawns capture whatever they can, pieces and
    /// pawns, never break the capture accounting.
    #[test]
    fn pawn_captures_never_break_the_accounting() {
        use shakmaty::{Move, Role};
        let mut piece_taken = 0;
        let pawn_captures_first = |_: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let pawn_captures: Vec<&Move> = moves
                .iter()
                .filter(|m| m.role() == Role::Pawn && m.is_capture())
                .collect();
            let pawn_moves: Vec<&Move> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
            let m = match rng.next(3) {
                0 | 1 if !pawn_captures.is_empty() => *pawn_captures[rng.next(pawn_captures.len())],
                0 if !pawn_moves.is_empty() => *pawn_moves[rng.next(pawn_moves.len())],
                _ => moves[rng.next(moves.len())],
            };
            piece_taken +=
                usize::from(m.role() == Role::Pawn && m.capture().is_some_and(|c| c != Role::Pawn));
            Some(m)
        };
        assert_never_crossed(&random_games(11, GAMES, 100, pawn_captures_first));
        assert!(piece_taken > 0);
    }

    /// Soundness: games full of pawn moves, captures and promotions never
    /// break the crossing count.
    #[test]
    fn pawn_races_never_cross() {
        use shakmaty::{Move, Role};
        let mut promoted = 0;
        let pawns_first = |_: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let pawn_moves: Vec<&Move> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
            let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = match rng.next(4) {
                0 | 1 if !pawn_moves.is_empty() => *pawn_moves[rng.next(pawn_moves.len())],
                2 if !captures.is_empty() => *captures[rng.next(captures.len())],
                _ => moves[rng.next(moves.len())],
            };
            promoted += usize::from(m.is_promotion());
            Some(m)
        };
        assert_never_crossed(&random_games(5, GAMES, 120, pawns_first));
        assert!(promoted > 0);
    }

    fn assert_never_crossed(games: &[Vec<Chess>]) {
        for (game, positions) in games.iter().enumerate() {
            for (ply, pos) in positions.iter().enumerate() {
                let setup = pos.to_setup(EnPassantMode::Legal);
                let infos = [
                    pawns::analyse(&setup.board, Color::White),
                    pawns::analyse(&setup.board, Color::Black),
                ];
                let r = check(&setup, &infos);
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                assert!(r.is_none(), "game {game} ply {ply}: {fen}: {r:?}");
            }
        }
    }

    /// Used files, own ranks, sure captures per file.
    type Unpacked = (u8, [Option<u8>; 8], [u8; 8]);

    /// Every assignment of the pawns to distinct feasible files within
    /// the budget, by plain recursion, unpacked: what [`assignments`]
    /// keeps, worked out without its merging.
    fn every_assignment(
        info: &PawnInfo,
        i: usize,
        ((used, own, landed), cost): (Unpacked, u32),
        out: &mut std::collections::HashMap<Unpacked, u32>,
    ) {
        let Some(&sq) = info.squares.get(i) else {
            let slot = out.entry((used, own, landed)).or_insert(cost);
            *slot = (*slot).min(cost);
            return;
        };
        let f = sq.file() as usize;
        for g in 0..8usize {
            let cost = cost + g.abs_diff(f) as u32;
            if info.feasible[i] & (1 << g) == 0 || used & (1 << g) != 0 || cost > info.budget {
                continue;
            }
            let mut own = own;
            if g == f {
                own[g] = Some(sq.rank() as u8);
            }
            let mut landed = landed;
            for h in g.min(f)..g.max(f) {
                // The files after g up to f: from g + 1 going right, from
                // f going left.
                landed[if g < f { h + 1 } else { h }] += 1;
            }
            every_assignment(info, i + 1, ((used | 1 << g, own, landed), cost), out);
        }
    }

    /// The pawn-by-pawn merging keeps exactly the assignments, and their
    /// fewest captures, that trying every assignment finds.
    #[test]
    fn merged_assignments_are_every_assignment() {
        use shakmaty::Role;
        let mut compared = 0;
        let pawns_first = |_: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let pawn: Vec<_> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
            match rng.next(3) {
                0 | 1 if !pawn.is_empty() => Some(*pawn[rng.next(pawn.len())]),
                _ => Some(moves[rng.next(moves.len())]),
            }
        };
        for positions in random_games(17, 20, 120, pawns_first) {
            for pos in positions.iter().step_by(7) {
                for color in Color::ALL {
                    let Some(info) = pawns::analyse(pos.board(), color) else {
                        continue;
                    };
                    let mut every = std::collections::HashMap::new();
                    every_assignment(&info, 0, ((0, [None; 8], [0; 8]), 0), &mut every);
                    let merged: std::collections::HashMap<_, _> = assignments(&info, usize::MAX)
                        .unwrap()
                        .into_iter()
                        .map(|(k, cost)| (k.unpack(), cost))
                        .collect();
                    assert_eq!(
                        merged,
                        every,
                        "{}",
                        Fen::from_position(pos, EnPassantMode::Legal)
                    );
                    compared += every.len();
                }
            }
        }
        assert!(compared > 1000, "{compared} assignments compared");
    }

    const GAMES: usize = 60;
}
