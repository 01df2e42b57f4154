//! The retro layer: reasoning about how the diagram could have come about.
//!
//! - [`pawns`]: each pawn's start file; captures the pawn structure forces;
//! - [`checks`]: double checks no single move can have given;
//! - [`cage`]: a piece next to the enemy king that can only have arrived
//!   with a contact check the king could not have been in;
//! - [`crossing`]: pawns of both sides from one file cannot pass each other
//!   without captures;
//! - [`facts`]: units that never moved, one-move pawns and the phases they
//!   define;
//! - [`reach`]: where a unit can have been, phase by phase;
//! - [`origins`]: every unit on the board and every forced capture traced
//!   back to a distinct original unit (promotions, caged pieces, bishops on
//!   the wrong colour, kings that cannot have got in);
//! - [`parity`]: move counts fixed modulo 2;
//! - [`lastmove`]: some retraction must lead to a possible position;
//! - [`deep`]: some chain of retractions must stay possible for a few moves.
//!
//! Every analysis is sound: it reports a flaw only when no game can reach
//! the diagram; when unsure it says nothing.

pub mod cage;
pub mod checks;
pub mod crossing;
pub mod deep;
pub mod facts;
pub mod lastmove;
pub mod origins;
pub mod parity;
pub mod pawns;
pub mod reach;

use shakmaty::{Bitboard, Board, Color, Setup};

use crate::fxhash::FxHashMap;

use self::facts::Facts;
use self::pawns::PawnInfo;
use super::{Flaw, Reason};

/// What the retro layer found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub reasons: Vec<Reason>,
    /// Short descriptions of the analyses that ran.
    pub checked: Vec<String>,
    /// A proof of legality (a game reaching the diagram), when one was found.
    pub proof: Option<String>,
}

fn name(color: Color) -> &'static str {
    if color.is_white() {
        "White"
    } else {
        "Black"
    }
}

fn pawn_infos(setup: &Setup) -> [Option<PawnInfo>; 2] {
    [
        pawns::analyse(&setup.board, Color::White),
        pawns::analyse(&setup.board, Color::Black),
    ]
}

/// Pawns sharing a file with another pawn of theirs: the visible cause of
/// forced captures.
fn doubled(info: &PawnInfo) -> Bitboard {
    let all: Bitboard = info.squares.iter().copied().collect();
    all.into_iter()
        .filter(|sq| (all & Bitboard::from_file(sq.file())).more_than_one())
        .collect()
}

/// Captures the promoted pieces need on top: a missing pawn promoting on
/// a file where an enemy pawn stood all game had to leave that file.
fn promotion_captures(setup: &Setup, info: &PawnInfo, enemy: Option<&PawnInfo>) -> Option<Reason> {
    let color = info.color;
    let blocked = enemy.map_or(0, pawns::bound_files);
    let promotions = super::cheap::min_promoted(&setup.board, color);
    let needed = pawns::min_with_promotions(info, blocked, promotions)?;
    let plain = info.min_captures?;
    (needed > info.budget && plain <= info.budget).then(|| {
        let files: String = (0..8u32)
            .filter(|g| blocked & (1 << g) != 0)
            .map(|g| shakmaty::File::new(g).char())
            .collect();
        Reason::new(
            Flaw::TooManyCaptures,
            Some(color),
            format!(
                "{}'s {promotions} promoted piece(s) and pawns need at least {needed} capture(s): \
                 a pawn promoting from a file where an enemy pawn stood all game (files {files}) \
                 had to capture to get past it; {} has lost only {} unit(s)",
                name(color),
                name(!color),
                info.budget
            ),
        )
    })
}

fn captures(info: &PawnInfo) -> Option<Reason> {
    let color = info.color;
    let needed = info.min_captures;
    if needed.is_some_and(|n| n <= info.budget) {
        return None;
    }
    let detail = match needed {
        Some(n) => format!(
            "{}'s pawns need at least {n} capture(s) to stand on their files, but {} has lost only {} unit(s)",
            name(color),
            name(!color),
            info.budget
        ),
        None => format!(
            "{}'s pawns cannot all have come from different files",
            name(color)
        ),
    };
    Some(Reason::new(Flaw::TooManyCaptures, Some(color), detail).at(doubled(info)))
}

/// The analyses that judge a position without looking at its last move.
pub fn static_flaws(setup: &Setup) -> Vec<Reason> {
    let infos = pawn_infos(setup);
    let mut out: Vec<Reason> = infos.iter().flatten().filter_map(captures).collect();
    for (own, enemy) in [(&infos[0], &infos[1]), (&infos[1], &infos[0])] {
        if let Some(own) = own {
            out.extend(promotion_captures(setup, own, enemy.as_ref()));
        }
    }
    out.extend(checks::check(setup));
    if out.is_empty() {
        out.extend(crossing::check(setup, &infos));
    }
    let facts = Facts::new(setup, &infos);
    if out.is_empty() {
        out.extend(cage::check(setup, &facts));
    }
    for (own, enemy) in [(&infos[0], &infos[1]), (&infos[1], &infos[0])] {
        if let Some(own) = own {
            let found = origins::check(&facts, own.color, own, enemy.as_ref());
            out.extend(found.filter(|r| !cheap_promotions_exceeded(setup, r)));
        }
    }
    out
}

/// Whether [`static_flaws`] finds anything, stopping at the first flaw
/// (for searches that only need the verdict).
pub fn has_static_flaw(setup: &Setup) -> bool {
    has_static_flaw_with(setup, &mut PawnMaterialVerdicts::default())
}

/// What the tests that read only the pawns and the material see: each
/// side's pawns, and per side its units, queens, rooks, knights and
/// bishops by square colour (all that the capture budgets and the fewest
/// promoted pieces are counted from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PawnMaterial([u64; 2], [[u8; 6]; 2]);

impl PawnMaterial {
    fn of(board: &Board) -> PawnMaterial {
        let side = |color: Color| {
            let ours = board.by_color(color);
            let n = |bb: Bitboard| (bb & ours).count() as u8;
            let bishops = board.bishops();
            [
                n(Bitboard::FULL),
                n(board.queens()),
                n(board.rooks()),
                n(board.knights()),
                n(bishops & Bitboard::LIGHT_SQUARES),
                n(bishops & Bitboard::DARK_SQUARES),
            ]
        };
        let pawns = |color: Color| u64::from(board.pawns() & board.by_color(color));
        PawnMaterial(
            [pawns(Color::White), pawns(Color::Black)],
            [side(Color::White), side(Color::Black)],
        )
    }
}

/// The verdicts of the pawn and material tests (forced captures, the
/// promoted pieces' captures, pawns crossing), per pawn structure and
/// material: a retraction search meets the same ones after every
/// retraction of a piece move that took nothing.
#[derive(Debug, Default)]
pub struct PawnMaterialVerdicts(FxHashMap<PawnMaterial, bool>);

/// [`has_static_flaw`], with the pawn and material verdicts remembered.
pub fn has_static_flaw_with(setup: &Setup, verdicts: &mut PawnMaterialVerdicts) -> bool {
    let infos = pawn_infos(setup);
    let key = PawnMaterial::of(&setup.board);
    let pawn_material = *verdicts
        .0
        .entry(key)
        .or_insert_with(|| pawn_material_flaw(setup, &infos));
    if pawn_material || checks::check(setup).is_some() {
        return true;
    }
    let facts = Facts::new(setup, &infos);
    if cage::check(setup, &facts).is_some() {
        return true;
    }
    for (own, enemy) in [(&infos[0], &infos[1]), (&infos[1], &infos[0])] {
        if let Some(own) = own {
            let found = origins::check(&facts, own.color, own, enemy.as_ref());
            if found.is_some_and(|r| !cheap_promotions_exceeded(setup, &r)) {
                return true;
            }
        }
    }
    false
}

/// Whether the tests that read only the pawns and the material find a
/// flaw.
fn pawn_material_flaw(setup: &Setup, infos: &[Option<PawnInfo>; 2]) -> bool {
    if infos.iter().flatten().any(|info| captures(info).is_some()) {
        return true;
    }
    for (own, enemy) in [(&infos[0], &infos[1]), (&infos[1], &infos[0])] {
        if let Some(own) = own {
            if promotion_captures(setup, own, enemy.as_ref()).is_some() {
                return true;
            }
        }
    }
    crossing::check(setup, infos).is_some()
}

/// The cheap layer already reports a promotion count that no pawn supply
/// covers; saying it again in other words helps no judge.
fn cheap_promotions_exceeded(setup: &Setup, reason: &Reason) -> bool {
    let Some(color) = reason.color else {
        return false;
    };
    let board = &setup.board;
    let pawns = (board.pawns() & board.by_color(color)).count() as u32;
    reason.flaw == Flaw::TooManyPromotions && super::cheap::min_promoted(board, color) + pawns > 8
}

/// Runs the retro analyses on a diagram with one king per side.
pub fn check(setup: &Setup) -> Outcome {
    let mut out = Outcome {
        reasons: static_flaws(setup),
        checked: vec![
            "retro: captures forced by the pawn structure".into(),
            "retro: units traced to original ones (promotions, cages, forced capture squares)"
                .into(),
        ],
        proof: None,
    };
    if !out.reasons.is_empty() {
        return out;
    }
    let infos = pawn_infos(setup);
    if let [Some(white), Some(black)] = &infos {
        let facts = Facts::new(setup, &infos);
        out.reasons
            .extend(parity::check(setup, &facts, white, black));
        out.checked.push("retro: parity of the move counts".into());
    }
    if out.reasons.is_empty() {
        // A chain of possible positions as deep as the deep search goes
        // holds a possible last move with a possible position before it,
        // so the last-move test (two moves deep) would find nothing either.
        let alive = deep::alive(setup);
        if !alive {
            out.reasons.extend(lastmove::check(setup));
        }
        out.checked.push("retro: existence of a last move".into());
        if out.reasons.is_empty() {
            if !alive {
                out.reasons.extend(deep::check(setup));
            }
            out.checked
                .push("retro: retraction chains (a few moves deep) that all die".into());
        }
    }
    out
}

/// The legality and mate corpus diagrams (by FEN), each with every
/// position one retraction back: pawn structures and material met again
/// and again, as in a retraction search.
#[cfg(test)]
fn corpus_positions() -> Vec<(String, Vec<Setup>)> {
    use crate::testing::{data, read_csv};
    let mut out = Vec::new();
    for file in ["legality.csv", "mate.csv"] {
        for row in read_csv(&data(file)) {
            let Ok(fen) = row["fen"].parse::<shakmaty::fen::Fen>() else {
                continue;
            };
            let diagram = fen.into_setup();
            let mut setups = vec![diagram.clone()];
            setups.extend(
                lastmove::retractions(&diagram)
                    .into_iter()
                    .map(|r| r.before),
            );
            out.push((row["fen"].clone(), setups));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{captures_half, random_games, Lcg};
    use shakmaty::{fen::Fen, Chess, EnPassantMode, File, Move, MoveList, Position, Role};

    /// Soundness: no position reached in a real game may be called illegal.
    #[test]
    fn positions_from_random_games_are_never_illegal() {
        assert_never_illegal(&random_games(7, 20, 60, captures_half));
    }

    /// Soundness of the deductions about pieces taken at home: games where
    /// only knights (and the edge pawns) move, preferring captures, so
    /// queens, bishops and rooks are often taken without having moved.
    #[test]
    fn knight_raids_are_never_illegal() {
        let raid = |_: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let moves: Vec<&Move> = moves
                .iter()
                .filter(|m| {
                    m.role() == Role::Knight
                        || (m.role() == Role::Pawn
                            && matches!(m.from().map(|s| s.file()), Some(File::A | File::H)))
                })
                .collect();
            let captures: Vec<&&Move> = moves.iter().filter(|m| m.is_capture()).collect();
            Some(if !captures.is_empty() && rng.next(4) > 0 {
                **captures[rng.next(captures.len())]
            } else {
                **moves.get(rng.next(moves.len()))?
            })
        };
        assert_never_illegal(&random_games(11, 30, 50, raid));
    }

    /// Soundness of the pocket rules (a piece taken at home as the only
    /// loss of a full pocket, a pawn checking a king that never moved):
    /// games of piece moves, captures half of the time, with a pawn move
    /// one time in twenty, so the pawns stay (nearly) at home.
    #[test]
    fn piece_games_are_never_illegal() {
        let pieces = |_: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let pieces: Vec<&Move> = moves.iter().filter(|m| m.role() != Role::Pawn).collect();
            let captures: Vec<&&Move> = pieces.iter().filter(|m| m.is_capture()).collect();
            Some(if !captures.is_empty() && rng.next(2) == 0 {
                **captures[rng.next(captures.len())]
            } else if pieces.is_empty() || rng.next(20) == 0 {
                moves[rng.next(moves.len())]
            } else {
                *pieces[rng.next(pieces.len())]
            })
        };
        assert_never_illegal(&random_games(0x706f_636b, 100, 60, pieces));
    }

    fn assert_never_illegal(games: &[Vec<Chess>]) {
        for (game, positions) in games.iter().enumerate() {
            for (ply, pos) in positions.iter().enumerate() {
                let out = check(&pos.to_setup(EnPassantMode::Legal));
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                assert!(
                    out.reasons.is_empty(),
                    "game {game} ply {ply}: {fen}: {:?}",
                    out.reasons
                );
            }
        }
    }

    /// The remembered pawn and material verdicts are the tests' own: over
    /// the corpus diagrams and every position one retraction back (pawn
    /// structures and material met again and again), one shared memory
    /// answers as a fresh test of each position does.
    #[test]
    fn remembered_pawn_material_verdicts_are_the_tests() {
        let mut verdicts = PawnMaterialVerdicts::default();
        let (mut judged, mut flawed) = (0, 0);
        for (fen, setups) in corpus_positions() {
            let one_king_each = |s: &&Setup| {
                Color::ALL
                    .iter()
                    .all(|&c| (s.board.kings() & s.board.by_color(c)).count() == 1)
            };
            for s in setups.iter().filter(one_king_each) {
                let fresh = has_static_flaw(s);
                assert_eq!(has_static_flaw_with(s, &mut verdicts), fresh, "{fen}");
                judged += 1;
                flawed += usize::from(fresh);
            }
        }
        assert!(
            judged >= 15_000 && flawed >= 1_500,
            "{judged} judged, {flawed} flawed"
        );
    }

    /// leg061 (a castling vampire image) is illegal; its twins are not.
    #[test]
    fn leg061_and_its_twins() {
        let leg061 = "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w kq - 0 1";
        let setup = |fen: &str| fen.parse::<Fen>().unwrap().into_setup();
        assert!(!check(&setup(leg061)).reasons.is_empty());
        for fen in [
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1BR1 w kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R b kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w - - 0 1",
        ] {
            let out = check(&setup(fen));
            assert!(out.reasons.is_empty(), "{fen}: {:?}", out.reasons);
        }
    }

    /// No panic on odd diagrams: pawns everywhere, many pieces.
    #[test]
    fn odd_diagrams_do_not_panic() {
        for fen in [
            "pppppppp/pppppppp/pppppppp/3k4/4K3/PPPPPPPP/PPPPPPPP/PPPPPPPP w - - 0 1",
            "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/3k4/4K3/qqqqqqqq/qqqqqqqq/qqqqqqqq b - - 0 1",
            "k7/PPPPPPPP/8/8/8/8/pppppppp/7K w - - 0 1",
            "4k3/8/8/8/8/P7/P7/P3K3 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1",
        ] {
            let setup = fen.parse::<Fen>().unwrap().into_setup();
            let _ = check(&setup);
        }
    }
}
