//! The quality score on a hand-checked `#2`, and cook repair against
//! known parents: the corpus' derived rows are sound problems with one
//! unit removed, so putting it back is a repair the search must find.
//! Every repair returned is checked again by the plain solver (one key,
//! the intended one, of the stipulated length) and the legality check.

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, FromSetup};
use solvers::legality;
use solvers::mate::quality::{self, Quality};
use solvers::mate::repair::{repair, Aim, Outcome, Request};
use solvers::mate::tree::{self, Limits};
use solvers::mate::{Found, Solver};
use solvers::testing::{position, setup};
use solvers::Stipulation;

fn points(q: &Quality, name: &str) -> f64 {
    q.features
        .iter()
        .find(|f| f.name == name)
        .map_or(0.0, |f| f.points)
}

/// Schöpfer (dm001, #2): 8/Q7/8/8/8/8/8/2k1K2R w K, 1.Qf2! threatening
/// 2.O-O#, 1...Kb1 2.O-O#. By hand: Black has the king alone (lonely
/// king 2); before the key the king has b1, b2 and c2 (d1, d2 touch Ke1),
/// after it only b1 (the queen holds the second rank): two flights taken,
/// −30; one variation with one distinct mate (mates' value 10·1²/1 = 10,
/// cluster score 10·1·1²/1 = 10); 4 units (miniature 10, units
/// 3·(18−4) = 42); the key a7–f2 is five diagonal steps (15) and goes from
/// Manhattan distance 8 of c1 to 4 (−4); the king on the first rank
/// (edge, −10); White 14 in Shannon's values against 0 (−28). Castling
/// mates with the rook: no battery, no mate by the king. Sum: 17.
#[test]
fn schoepfer_twomover_scored_feature_by_feature() {
    let pos = position("8/Q7/8/8/8/8/8/2k1K2R w K - 0 1");
    let mut solver = Solver::new(None);
    let limits = Limits {
        tries: false,
        ..Limits::default()
    };
    let t = tree::build(&mut solver, &pos, "#2".parse().unwrap(), "a7f2", limits).unwrap();
    let q = quality::score(&pos, &t, None);
    let expected = [
        ("lonely_king", 2.0),
        ("mates_value", 10.0),
        ("miniature", 10.0),
        ("units", 42.0),
        ("key_distance", 15.0),
        ("key_away_from_king", -4.0),
        ("king_on_edge", -10.0),
        ("key_takes_flights", -30.0),
        ("white_material_excess", -28.0),
        ("cluster_score", 10.0),
    ];
    for (name, want) in expected {
        assert_eq!(points(&q, name), want, "{name}: {q:?}");
    }
    assert_eq!(q.features.len(), expected.len(), "{q:?}");
    assert_eq!(q.score, 17.0, "{q:?}");
    for absent in ["direct_battery", "mate_by_king", "tempo", "king_flights"] {
        assert_eq!(points(&q, absent), 0.0, "{absent}: {q:?}");
    }
}

/// dm035's zugzwang (1.Ka6, both pawn moves answered by 2.Nb6#): the key
/// threatens nothing (tempo, 10), and is by the king (15); the two
/// defences share one answer, so the cluster has one unique variant of two
/// (10·1·1²/2 = 5).
#[test]
fn a_waiting_key_by_the_king_scores_tempo_and_king_key() {
    let pos = position("k7/P1p5/1K6/8/N7/8/8/8 w - - 0 1");
    let mut solver = Solver::new(None);
    let t = tree::build(
        &mut solver,
        &pos,
        "#2".parse().unwrap(),
        "b6a6",
        Limits::default(),
    )
    .unwrap();
    let q = quality::score(&pos, &t, None);
    assert_eq!(points(&q, "tempo"), 10.0, "{q:?}");
    assert_eq!(points(&q, "key_by_king"), 15.0, "{q:?}");
    assert_eq!(points(&q, "cluster_score"), 5.0, "{q:?}");
    // One distinct mate over two variations: 10·1²/2.
    assert_eq!(points(&q, "mates_value"), 5.0, "{q:?}");
}

fn run(fen: &str, n: u32, key: &str, max_changes: u32) -> Outcome {
    repair(&Request {
        setup: &setup(fen),
        moves: n,
        key: Some(key),
        deadline: Instant::now() + Duration::from_secs(600),
        max_changes,
        limit: 3,
        aim: Aim::Repair,
    })
}

/// Every repair: sound by the plain solver with `key` of length `n`, and
/// no flaw found by the legality check.
fn assert_all_sound(outcome: &Outcome, n: u32, key: &str) {
    assert!(!outcome.repairs.is_empty(), "{outcome:?}");
    for r in &outcome.repairs {
        let s = r.fen.parse::<Fen>().unwrap().into_setup();
        let pos = Chess::from_setup(s.clone(), CastlingMode::Standard).unwrap();
        let stipulation: Stipulation = format!("#{n}").parse().unwrap();
        let found = Solver::new(None).solve(&pos, stipulation).unwrap().unwrap();
        let Found::Keys(keys) = found else {
            panic!("keys expected")
        };
        assert_eq!(keys.len(), 1, "{r:?}: {keys:?}");
        assert_eq!((keys[0].uci.as_str(), keys[0].length), (key, n), "{r:?}");
        assert_ne!(
            legality::check(&s).status,
            legality::Status::Illegal,
            "{r:?}"
        );
    }
}

fn board(fen: &str) -> &str {
    fen.split(' ').next().unwrap()
}

/// dm012 without its black pawn g7 is cooked three ways (1.Rf1, 1.Rg1,
/// 1.Rxh6); the pawn put back is the published problem (dm012, sound,
/// key 1.Rf1), one change away.
#[test]
fn a_cooked_twomover_gets_its_parent_back() {
    let outcome = run("nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1", 2, "h1f1", 1);
    assert_all_sound(&outcome, 2, "h1f1");
    assert!(outcome.complete);
    assert!(
        outcome
            .repairs
            .iter()
            .any(|r| board(&r.fen) == "nk6/brpp2p1/brp4p/1p6/8/8/8/4K2R" && r.changes == ["+bPg7"]),
        "{outcome:?}"
    );
    assert!(outcome
        .repairs
        .iter()
        .all(|r| r.changes.len() == 1 && r.key == "Rf1"));
}

/// dm001 without its queen has no solution (and no key to play): adding
/// the queen on a7 again makes 1.Qf2 the key.
#[test]
fn an_unsolvable_twomover_gets_its_missing_key_piece() {
    let outcome = run("8/8/8/8/8/8/8/2k1K2R w K - 0 1", 2, "a7f2", 1);
    assert_all_sound(&outcome, 2, "a7f2");
    assert!(
        outcome.repairs.iter().any(|r| r.changes == ["+wQa7"]),
        "{outcome:?}"
    );
}

/// dm002 (#3) without its black pawn e6 is cooked nine ways, with a short
/// mate 1.Qe7#; the pawn put back makes 1.Qe7 the one key again, of the
/// full length. Repairs come fewest changes first.
#[test]
fn a_cooked_threemover_with_a_short_mate_is_repaired() {
    let outcome = run("5Q2/8/2P2P2/4k3/4P3/8/4N3/R3K2R w KQ - 0 1", 3, "f8e7", 1);
    assert_all_sound(&outcome, 3, "f8e7");
    assert!(
        outcome.repairs.iter().any(|r| r.changes == ["+bPe6"]),
        "{outcome:?}"
    );
    let counts: Vec<usize> = outcome.repairs.iter().map(|r| r.changes.len()).collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
}
