//! The mate solver's unit tests.

use super::*;

use crate::testing::position;

/// The in-place ordering agrees with a stable sort on (not check, not
/// capture), on positions with checks, captures and promotions.
#[test]
fn replies_ordered_checks_then_captures() {
    let mut checks = 0;
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "4k3/1pp2pp1/8/b1B1pB2/rp6/p5N1/3R4/R2bK3 b - - 0 1",
        "rnbqkbnr/pP3ppp/8/2pPp3/8/8/P1P1PPPP/RNBQKBNR b KQkq - 0 1",
        "4k3/8/8/8/2q5/8/5n2/R3K2R b KQ - 0 1",
    ] {
        let pos = position(fen);
        let info = CheckInfo::new(&pos).unwrap();
        let mut got = pos.legal_moves();
        order_replies(&pos, &info, &mut got);
        let mut want = pos.legal_moves();
        want.sort_by_key(|b| (!gives_check(&pos, &info, b), !b.is_capture()));
        assert_eq!(got, want, "{fen}");
        checks += got.iter().filter(|b| gives_check(&pos, &info, b)).count();
    }
    assert!(checks >= 3, "{checks}");
}

fn solve(fen: &str, stipulation: &str) -> Found {
    Solver::new(None)
        .solve(&position(fen), stipulation.parse().unwrap())
        .unwrap()
        .unwrap()
}

fn key_ucis(found: &Found) -> Vec<(&str, u32)> {
    let Found::Keys(keys) = found else {
        panic!("keys expected: {found:?}")
    };
    keys.iter().map(|k| (k.uci.as_str(), k.length)).collect()
}

/// Stalemate goals, checked by hand. =1: only Qb6 takes a7, b7 and b8
/// from the king on a8 without giving check (Qb7+, Qb8+, Qh8+ and Qa2+
/// check; Qb5, Qd4, Qe5 and Qg7 each leave a square; the king's steps
/// leave it all three). #1 in the same position has no key: every check
/// leaves a flight or is a capture away.
#[test]
fn stalemate_goals() {
    let fen = "k7/8/8/8/8/8/1Q6/K7 w - - 0 1";
    assert_eq!(key_ucis(&solve(fen, "=1")), [("b2b6", 1)]);
    assert_eq!(key_ucis(&solve(fen, "#1")), []);
    // With a move more, 1.Qb6 is a key of length one (a short one).
    let two = solve(fen, "=2");
    assert!(key_ucis(&two).contains(&("b2b6", 1)), "{two:?}");
}

/// Regression: king and knight against a lone king were searched to the
/// full depth although they can never mate.
#[test]
fn insufficient_material_is_recognised() {
    let pos = position("8/8/8/8/8/2k5/8/K1N5 w - - 0 1");
    let mut solver = Solver::new(None);
    let found = solver.solve(&pos, "#6".parse().unwrap()).unwrap();
    assert_eq!(found, Ok(Found::Keys(Vec::new())));
    assert!(solver.stats().nodes < 5_000, "{:?}", solver.stats());
}

/// Regression (oracle, seed 99): the rook on h8 stands on the mated
/// king's square, and a rule tried for the distinct-blocker test had it
/// leave by a move of its own; castling takes it out of the way with the
/// king's move: 1.Kg4 0-0 2.e7 Kh8 3.exf8=Q# (and 1.Kg5).
#[test]
fn a_rook_that_may_castle_leaves_with_the_king() {
    let Found::Lines(lines) = solve("4k2r/8/4P1P1/7K/8/8/8/8 w k - 0 1", "h#2.5") else {
        panic!("lines expected")
    };
    let mut firsts: Vec<&str> = lines.iter().map(|l| l.uci[0].as_str()).collect();
    firsts.sort_unstable();
    assert_eq!(firsts, ["h5g4", "h5g5"], "{lines:?}");
}
