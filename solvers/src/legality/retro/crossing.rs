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

use std::collections::HashMap;

use shakmaty::{Color, Setup};

use super::pawns::PawnInfo;
use crate::legality::{cheap, Flaw, Reason};

/// Work limit (assignment pairs times DP states); beyond it, say nothing.
const MAX_WORK: usize = 400_000;

/// Per side, the ways to assign the pawns on the board to start files:
/// (used files, the rank of a pawn standing on its own start file per
/// file) with the fewest captures.
type Assignments = HashMap<(u8, [Option<u8>; 8]), u32>;

fn assignments(info: &PawnInfo, limit: usize) -> Option<Assignments> {
    let mut out = Assignments::new();
    let mut own = [None; 8];
    walk(info, 0, 0, 0, &mut own, &mut out, limit)?;
    Some(out)
}

fn walk(
    info: &PawnInfo,
    i: usize,
    used: u8,
    cost: u32,
    own: &mut [Option<u8>; 8],
    out: &mut Assignments,
    limit: usize,
) -> Option<()> {
    if cost > info.budget {
        return Some(());
    }
    let Some(&sq) = info.squares.get(i) else {
        let slot = out.entry((used, *own)).or_insert(cost);
        *slot = (*slot).min(cost);
        return (out.len() <= limit).then_some(());
    };
    let f = sq.file().to_u32();
    for g in 0..8u32 {
        if info.feasible[i] & (1 << g) == 0 || used & (1 << g) != 0 {
            continue;
        }
        if g == f {
            own[g as usize] = Some(sq.rank().to_u32() as u8);
        }
        walk(
            info,
            i + 1,
            used | (1 << g),
            cost + g.abs_diff(f),
            own,
            out,
            limit,
        )?;
        own[g as usize] = None;
    }
    Some(())
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

/// (captures, promotions, fate) choices of one side's pawn of a file.
fn options(used: u8, own: &[Option<u8>; 8], file: usize) -> Vec<(u32, u32, Fate)> {
    if used & (1 << file) != 0 {
        match own[file] {
            Some(rank) => vec![(0, 0, Fate::On(rank)), (2, 0, Fate::Free)],
            None => vec![(0, 0, Fate::Free)],
        }
    } else {
        vec![
            (0, 0, Fate::Free),
            (0, 1, Fate::Promoted),
            (1, 1, Fate::Free),
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

/// Whether some choice per file fits the budgets and the promotion counts.
fn fits(
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
        let wo = options(white.0, white.1, file);
        let bo = options(black.0, black.1, file);
        let mut next = vec![false; size];
        for wc in 0..dims[0] {
            for bc in 0..dims[1] {
                for wp in 0..dims[2] {
                    for bp in 0..dims[3] {
                        if !reach[index([wc, bc, wp, bp])] {
                            continue;
                        }
                        for &(wcost, wprom, wf) in &wo {
                            for &(bcost, bprom, bf) in &bo {
                                let s = [
                                    wc + wcost as usize,
                                    bc + bcost as usize,
                                    (wp + wprom as usize).min(dims[2] - 1),
                                    (bp + bprom as usize).min(dims[3] - 1),
                                ];
                                if s[0] < dims[0] && s[1] < dims[1] && !crossed(wf, bf) {
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

/// `TooManyCaptures` when no assignment of the pawns lets the pawns that
/// share a start file avoid crossing within the capture budgets.
pub fn check(setup: &Setup, infos: &[Option<PawnInfo>; 2]) -> Option<Reason> {
    let [Some(white), Some(black)] = infos else {
        return None;
    };
    let promotions = [
        cheap::min_promoted(&setup.board, Color::White),
        cheap::min_promoted(&setup.board, Color::Black),
    ];
    let wa = assignments(white, 2000)?;
    let ba = assignments(black, 2000)?;
    let states = (white.budget as usize + 1)
        * (black.budget as usize + 1)
        * (promotions[0] as usize + 1)
        * (promotions[1] as usize + 1);
    if wa.len() * ba.len() * states > MAX_WORK {
        return None;
    }
    for ((wused, wown), &wcost) in &wa {
        for ((bused, bown), &bcost) in &ba {
            let room = [white.budget - wcost, black.budget - bcost];
            if fits((*wused, wown), (*bused, bown), room, promotions) {
                return None;
            }
        }
    }
    Some(Reason::new(
        Flaw::TooManyCaptures,
        None,
        format!(
            "a White and a Black pawn from the same file cannot pass each other unless one \
             leaves the file by a capture: with White's {} and Black's {} promotion(s), no \
             assignment of the pawns to their files fits in the captures available (White {}, \
             Black {})",
            promotions[0], promotions[1], white.budget, black.budget
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::pawns;
    use shakmaty::fen::Fen;

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

    /// Soundness: games full of pawn moves, captures and promotions never
    /// break the crossing count.
    #[test]
    fn pawn_races_never_cross() {
        use shakmaty::{Chess, EnPassantMode, Position, Role};
        let mut seed = 5u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n.max(1)
        };
        let mut promoted = 0;
        for game in 0..GAMES {
            let mut pos = Chess::default();
            for ply in 0..120 {
                let setup = pos.to_setup(EnPassantMode::Legal);
                let infos = [
                    pawns::analyse(&setup.board, Color::White),
                    pawns::analyse(&setup.board, Color::Black),
                ];
                let r = check(&setup, &infos);
                let fen = Fen::from_position(&pos, EnPassantMode::Legal);
                assert!(r.is_none(), "game {game} ply {ply}: {fen}: {r:?}");
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let pawn_moves: Vec<_> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
                let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
                let m = match next(4) {
                    0 | 1 if !pawn_moves.is_empty() => *pawn_moves[next(pawn_moves.len())],
                    2 if !captures.is_empty() => *captures[next(captures.len())],
                    _ => moves[next(moves.len())],
                };
                promoted += usize::from(m.is_promotion());
                pos.play_unchecked(m);
            }
        }
        assert!(promoted > 0);
    }

    const GAMES: usize = 60;
}
