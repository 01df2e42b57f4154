//! The immobility test's tests: admissibility on real helpstalemates and
//! random games (checked by plain search), and its parts one by one.

use super::*;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::EnPassantMode;

use crate::testing::{position, stalemate_cases, stalemate_in};

/// The whole test, the king's part included.
fn full(pos: &Chess, left: u8) -> Immobility {
    immobility(pos, left, &mut KingTally::default())
}

/// Stalemates where White takes Black's promoted units one by one.
const EXCELSIORS: [(&str, &str); 6] = [
    // hpint 74 (Wermelinger).
    (
        "5n2/K7/8/8/8/8/p2pP1p1/7k b - - 0 1",
        "a2a1b e2e4 a1f6 e4e5 g2g1r e5f6 g1g7 f6g7 d2d1n g7f8q d1f2 f8f2",
    ),
    // hpint 64 (Alaikow).
    (
        "8/8/6K1/8/1P3p2/8/1p1p2p1/7k b - - 0 1",
        "g2g1b b4b5 g1a7 b5b6 b2b1r b6a7 b1b8 a7b8q d2d1n b8f4 d1f2 f4f2",
    ),
    // hpint 54 (Szentai).
    (
        "8/8/8/8/8/p7/P2p1pp1/1K5k b - - 0 1",
        "d2d1b b1a1 d1b3 a2b3 f2f1b b3b4 f1a6 b4b5 g2g1b b5a6 g1h2 a6a7 h2b8 a7b8q a3a2 b8g3",
    ),
    // hpint 33 (Steudel): four promotions.
    (
        "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
        "c2c1r h6h7 c1h1 h7h8q g2g1b h8h3 b2b1n h3f1",
    ),
    // hpint 31 (Steudel).
    (
        "8/p7/B7/7p/P3K1pr/7b/1p2p2p/6k1 b - - 0 1",
        "b2b1r a4a5 b1b6 a5b6 e2e1n b6b7 e1g2 b7b8q h2h1b b8g3",
    ),
    // hpint 25 (Kardos): the king hemmed in by its own pawns until
    // the last two promote and are taken.
    (
        "7K/6p1/1p6/8/8/p7/P1p3p1/7k b - - 0 1",
        "c2c1n h8g7 c1b3 a2b3 g2g1b b3b4 g1c5 b4c5 a3a2 c5b6 a2a1r b6b7 a1a3 b7b8q a3g3 b8g3",
    ),
];

/// Every position on the way to a real helpstalemate passes with the
/// plies it still has, and where White must take, its move takes.
#[test]
fn stalemate_lines_pass_all_along() {
    for (fen, line) in EXCELSIORS {
        let mut pos = position(fen);
        let moves: Vec<&str> = line.split(' ').collect();
        for (i, uci) in moves.iter().enumerate() {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            match full(&pos, (moves.len() - i) as u8) {
                Immobility::Hopeless => panic!("{fen} before {uci}"),
                Immobility::MustTake(units) => {
                    assert!(takes(&m).is_some_and(|sq| units.contains(sq)), "{uci}");
                }
                Immobility::Open => {}
            }
            pos.play_unchecked(m);
        }
        assert!(pos.is_stalemate(), "{fen}");
    }
}

/// A queen in the open must be taken; one in a corner behind its own
/// units need not be.
#[test]
fn a_free_queen_must_be_taken() {
    // Two Black queens and a knight, two White moves: one unit too
    // many for White to take.
    let pos = position("7k/8/8/3q4/8/2n1q3/8/K7 b - - 0 1");
    assert_eq!(full(&pos, 4), Immobility::Hopeless);
    // A bishop in the corner behind its own pawn stops without a move;
    // the queen and the knight each reach the White king in a move.
    // (Counted without the king, which has no stalemate here: see
    // `flights_need_blockers_that_stop`.)
    let pos = position("7k/8/8/3q4/6K1/2n5/1p6/b7 b - - 0 1");
    assert_eq!(immobility_of(&pos, 4, None), Immobility::Open);
}

/// The king's part is dropped at a depth once its trial there decided
/// too few nodes for the subtrees it saves, and kept where it decides
/// enough: one node in 4 two plies from the end, one in 16 at three.
#[test]
fn the_kings_part_is_kept_where_it_pays() {
    let mut tally = KingTally::default();
    for n in 0..KING_TRIAL {
        tally.count(2, n % 4 == 0);
        tally.count(3, n % 20 == 0);
        tally.count(4, n % 20 == 0);
    }
    assert!(tally.pays(2));
    assert!(!tally.pays(3));
    assert!(tally.pays(4));
    assert!(tally.pays(5), "no trial yet");
}

/// A flight blocked by a Black unit that cannot end there without a
/// move is no block: the counts alone let these positions through,
/// the king's test does not, and there is no stalemate.
#[test]
fn flights_need_blockers_that_stop() {
    for (fen, left) in [
        // The White king takes the queen and the knight, and cannot
        // also hold g7, h7 and g8.
        ("7k/8/8/3q4/6K1/2n5/1p6/b7 b - - 0 1", 4),
        // The queens could fill the corner king's flights, but never
        // stop there; the White king alone covers two of them.
        ("6q1/8/4q3/1p6/5K2/p7/P7/7k w - - 0 1", 5),
    ] {
        let pos = position(fen);
        assert_eq!(immobility_of(&pos, left, None), Immobility::Open, "{fen}");
        assert_eq!(full(&pos, left), Immobility::Hopeless, "{fen}");
        assert!(!stalemate_in(&pos, left), "{fen}");
    }
}

/// One bishop pins one knight at most: of three knights on its
/// colour, with one White move, two stay free.
#[test]
fn a_pinner_pins_one_unit() {
    let pos = position("4k3/8/3n1n2/8/3n4/8/8/K1B5 b - - 0 1");
    assert_eq!(full(&pos, 2), Immobility::Hopeless);
    assert!(!stalemate_in(&pos, 2));
}

/// White could take the queen and the knight in its two moves, but
/// Black cannot bring both within the White king's reach in its two:
/// the queen needs a move, the knight two.
#[test]
fn black_moves_add_up() {
    let pos = position("7k/8/8/3q4/7K/2n5/1p6/b7 b - - 0 1");
    assert_eq!(full(&pos, 4), Immobility::Hopeless);
    assert!(!stalemate_in(&pos, 4));
}

/// A position the test rejects has no helpstalemate of that length,
/// checked by playing every line along random games; and the test
/// rejects some, or it would prove nothing.
#[test]
fn rejected_positions_have_no_stalemate() {
    let fens = [
        "5n2/K7/8/8/8/8/p2pP1p1/7k b - - 0 1",
        "8/8/6K1/8/1P3p2/8/1p1p2p1/7k b - - 0 1",
        "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
        "r3k2r/8/8/8/8/8/1pP5/R3K3 b Qkq - 0 1",
        "4k3/3pn3/8/4Pp2/8/2B5/2p5/K7 w - f6 0 1",
        "7k/6p1/5pPb/5P2/8/8/1n6/K2B4 b - - 0 1",
        "8/p7/B7/7p/P3K1pr/7b/1p2p2p/6k1 b - - 0 1",
        "8/8/8/3k4/8/8/2N5/K6R b - - 0 1",
        "7k/8/5K2/8/8/8/8/1B6 w - - 0 1",
        "k7/8/1K6/8/8/8/6p1/7R b - - 0 1",
    ];
    let (mut tested, mut rejected, mut turned_away) = (0, 0, 0);
    for (pos, left) in stalemate_cases(&fens) {
        tested += 1;
        let fen = Fen::from_position(&pos, EnPassantMode::Legal);
        match full(&pos, left) {
            Immobility::Hopeless => {
                rejected += 1;
                assert!(!stalemate_in(&pos, left), "{fen} in {left}");
            }
            Immobility::MustTake(units) => {
                for m in pos.legal_moves() {
                    if takes(&m).is_some_and(|sq| units.contains(sq)) {
                        continue;
                    }
                    turned_away += 1;
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    assert!(!stalemate_in(&next, left - 1), "{fen} {m}");
                }
            }
            Immobility::Open => {}
        }
    }
    println!("{rejected} of {tested} rejected");
    assert!(rejected * 10 > tested, "{rejected} of {tested} rejected");
    println!("{turned_away} White moves turned away");
    assert!(turned_away > 100, "{turned_away} White moves turned away");
}

/// A unit is pinned only on a line through its king: where the king
/// cannot go, no pin stops it. Positions from hpint 65 (h=7, three plies
/// before the end) that only this rejects, none with a stalemate.
#[test]
fn pins_lie_on_the_kings_lines() {
    let fens = [
        "8/3K2q1/5P2/8/k7/8/3p4/7n w - - 0 1",
        "2K5/8/5P2/7r/k7/8/6p1/3n4 w - - 0 1",
        "8/4P1b1/1K6/8/k7/7n/3p3p/8 w - - 0 1",
        "6r1/8/K4P2/8/k7/8/3p4/7n w - - 0 1",
        "8/8/3KPb2/7r/k7/5qp1/8/8 w - - 0 1",
        "3q4/K7/4Pb2/1k6/8/6p1/8/7r w - - 0 1",
        "8/K7/5P2/8/k7/6p1/2q5/3b4 w - - 0 1",
        "1q1K4/8/5P2/1k6/8/6p1/3p4/8 w - - 0 1",
    ];
    for fen in fens {
        let pos = position(fen);
        assert_eq!(full(&pos, 3), Immobility::Hopeless, "{fen}");
        assert!(!stalemate_in(&pos, 3), "{fen}");
    }
    // With the king on a8 and no move for it, a White queen pins on a8's
    // lines only.
    let pins = pin_squares(
        tables(),
        &[(Role::Queen, Square::D1)],
        1,
        king_lines(&position("k7/8/8/8/8/8/8/3Q3K b - - 0 1"), 0),
    );
    assert!(pins.straight.contains(Square::A2) && pins.diagonal.contains(Square::D5));
    assert!(!pins.straight.contains(Square::D4) && !pins.diagonal.contains(Square::D4));
}
