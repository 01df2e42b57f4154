//! The oracle in CI: the production mate solvers in every configuration
//! and the legality stage against `solvers::oracle` on a fixed-seed set of
//! generated problems, and the oracle's own reference solvers against the
//! verified corpus (so the oracle is itself checked by something we did
//! not write). `cargo run --release -p solvers --example oracle -- COUNT
//! SEED` runs any count.

use shakmaty::{fen::Fen, CastlingMode, Chess};
use solvers::oracle::reference::{direct_keys, help_lines, self_keys, Budget};
use solvers::Stipulation;

mod common;
use common::{data, keys_uci, read_csv};

/// Case slots in CI (each one or more mate problems and a planted
/// helpmate): a couple of minutes on two cores.
const SLOTS: u64 = 2_500;

#[test]
fn production_agrees_with_the_oracle_on_a_fixed_seed() {
    let summary = solvers::oracle::run(20_261_124, SLOTS, |_, _| {});
    println!("{}", summary.line());
    assert!(
        summary.disagreements.is_empty(),
        "{}\n{}",
        summary.line(),
        summary.disagreements.join("\n")
    );
    // The set has teeth: most cases judged, many of them with solutions,
    // and the legality stage saw many game positions.
    assert!(summary.cases >= SLOTS * 4, "{}", summary.line());
    assert!(summary.with_solutions >= SLOTS / 4, "{}", summary.line());
    assert!(summary.legality_cases >= SLOTS / 2, "{}", summary.line());
}

/// The reference solvers give the corpus's verified keys and solution
/// lines on every row small enough for them.
#[test]
fn reference_agrees_with_the_corpus() {
    let mut judged = 0;
    for row in read_csv(&data("mate.csv")) {
        let stipulation: Stipulation = row["stipulation"].parse().unwrap();
        let pos: Chess = row["fen"]
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut budget = Budget::new(3_000_000);
        let got = match stipulation {
            Stipulation::Direct { moves, goal } => direct_keys(&pos, moves, goal, &mut budget)
                .map(|keys| keys.into_iter().map(|(m, _)| m).collect::<Vec<_>>()),
            Stipulation::SelfMate { moves, goal } => self_keys(&pos, moves, goal, &mut budget)
                .map(|keys| keys.into_iter().map(|(m, _)| m).collect()),
            Stipulation::Help { plies, goal } => help_lines(&pos, plies, goal, &mut budget),
            _ => continue,
        };
        let Some(mut got) = got else {
            continue;
        };
        got.sort();
        assert_eq!(got, keys_uci(&row), "{} {}", row["id"], row["stipulation"]);
        judged += 1;
    }
    assert!(
        judged >= 20,
        "only {judged} corpus rows within the reference's budget"
    );
}

/// Mate rows that are illegal although their row does not say so: Popeye
/// test-suite positions, made to test solving, not legality. In both the
/// White king on b6 stands in check from the Black pawn on c7, which never
/// moved: no last move can have given that check (a pawn's check is never
/// uncovered), and the king could not have stepped into it.
const ILLEGAL_MATE_ROWS: [&str; 2] = ["dm035", "dm035-minus-wSa4"];

/// No problem of the corpora is called illegal unless its row says so
/// (or it is one of [`ILLEGAL_MATE_ROWS`], which must be called illegal
/// for that reason): the mate rows with their stated rights, the
/// proof-game rows as bare boards with the side to move their length
/// implies.
#[test]
fn no_corpus_problem_outside_the_illegal_rows_is_called_illegal() {
    use solvers::legality::{check, Flaw, Status};
    let mut judged = 0;
    let mut not_illegal = |row: &std::collections::HashMap<String, String>, setup| {
        let report = check(&setup);
        let (id, fen) = (&row["id"], &row["fen"]);
        assert_ne!(
            report.status,
            Status::Illegal,
            "{id} {fen}: {:?}",
            report.reasons
        );
        judged += 1;
    };
    for row in read_csv(&data("mate.csv")) {
        let setup = row["fen"].parse::<Fen>().unwrap().into_setup();
        if ILLEGAL_MATE_ROWS.contains(&row["id"].as_str()) {
            let reasons = check(&setup).reasons;
            let impossible = reasons.iter().any(|r| r.flaw == Flaw::ImpossibleCheck);
            assert!(impossible, "{}: {reasons:?}", row["id"]);
            continue;
        }
        not_illegal(&row, setup);
    }
    for row in read_csv(&data("spg.csv")) {
        if row["verdict"] == "illegal" {
            continue;
        }
        let board = row["fen"].parse::<Fen>().unwrap().into_setup().board;
        let plies: u32 = row["halfmoves"].parse().unwrap();
        let turn = Stipulation::ProofGame { plies }.side_to_move();
        not_illegal(&row, solvers::problem::bare_setup(board, turn));
    }
    assert!(judged >= 300, "{judged}");
}

/// Helpmates long enough for the mate pictures (five and six plies) from
/// generated positions with castling rights, against the reference: the
/// pictures count a castling king's and rook's moves by their ways after
/// castling (`mate::picture::castling`), so a bound there that is one move
/// too tight loses exactly these solutions.
#[test]
fn helpmates_with_castling_rights_agree_with_the_reference() {
    use shakmaty::Position;
    use solvers::oracle::generate::sparse_position;
    use solvers::oracle::Rng;
    let mut rng = Rng::new(20_261_127);
    let (mut judged, mut solved, mut castled) = (0, 0, 0);
    while judged < 150 {
        let plies = 5 + rng.below(2) as u32;
        let turn = help_turn(plies);
        let units = 4 + rng.below(3);
        let pos = sparse_position(&mut rng, units, turn);
        if pos.castles().castling_rights().is_empty() {
            continue;
        }
        let Some(want) = helpmate_agrees(&pos, plies, 2_000_000) else {
            continue;
        };
        judged += 1;
        solved += usize::from(!want.is_empty());
        // A castling move in a solution (the king's two-square step).
        castled += usize::from(want.iter().any(|l| {
            l.split(' ')
                .any(|m| matches!(m, "e1g1" | "e1c1" | "e8g8" | "e8c8"))
        }));
    }
    println!("{judged} judged, {solved} with solutions, {castled} castling in one");
    assert!(
        solved >= 15 && castled >= 3,
        "{solved} solved, {castled} castling"
    );
}

/// Helpmates where White has its king and one pawn and a Black pawn
/// blocks the pawn's file, against the reference: the pictures charge such
/// a pawn the king's detour to take the Black pawn, or its way round by
/// two captures (`mate::picture::blocked`), so a charge one move too high
/// loses exactly these solutions. The set has teeth: some solutions have
/// the White pawn end on its file past the Black pawn's square.
#[test]
fn helpmates_with_a_blocked_pawn_agree_with_the_reference() {
    use shakmaty::{Color, Position, Role};
    use solvers::oracle::generate::blocked_pawn_help;
    use solvers::oracle::Rng;
    let mut rng = Rng::new(20_261_130);
    let (mut judged, mut solved, mut past) = (0, 0, 0);
    while judged < 300 {
        let plies = 5 + rng.below(3) as u32;
        let turn = help_turn(plies);
        let Some(pos) = blocked_pawn_help(&mut rng, turn) else {
            continue;
        };
        let Some(want) = helpmate_agrees(&pos, plies, 3_000_000) else {
            continue;
        };
        judged += 1;
        solved += usize::from(!want.is_empty());
        // Whether a solution ends with the White pawn on its file at or
        // past the Black pawn's square: the way the pictures charge.
        let board = pos.board();
        let pawns = |b: &shakmaty::Board, c: Color| b.by_color(c) & b.by_role(Role::Pawn);
        let white_pawn = pawns(board, Color::White).first();
        let black_pawn = white_pawn.and_then(|w| {
            (pawns(board, Color::Black) & shakmaty::Bitboard::from_file(w.file()))
                .into_iter()
                .find(|b| b.rank() > w.rank())
        });
        if let (Some(w), Some(b)) = (white_pawn, black_pawn) {
            let past_block = |line: &String| {
                let mut end = pos.clone();
                for uci in line.split(' ') {
                    let m = uci.parse::<shakmaty::uci::UciMove>().unwrap();
                    end.play_unchecked(m.to_move(&end).unwrap());
                }
                (pawns(end.board(), Color::White) & shakmaty::Bitboard::from_file(w.file()))
                    .into_iter()
                    .any(|sq| sq.rank() >= b.rank())
            };
            past += usize::from(want.iter().any(past_block));
        }
    }
    println!("{judged} judged, {solved} with solutions, {past} with the pawn past the block");
    assert!(solved >= 10 && past >= 2, "{solved} solved, {past} past");
}

/// A blocked pawn whose Black pawn steps down into the White king's way:
/// 1...e3 2.Kxe3 and the king goes on to d3 for 3.e4#, where the king
/// could not take the pawn on e4 and be on d3 in time. Black's knight
/// needs two of its three moves for c6, so Black has the one step to
/// spare exactly: the pictures' charge for the step
/// (`mate::picture::blocked`) one move too dear loses the solution.
#[test]
fn a_black_pawn_stepping_down_into_the_kings_way_keeps_the_helpmate() {
    let pos = solvers::testing::position("6n1/8/3bn3/2pkp3/4p3/8/4PK2/8 b - - 0 1");
    let want = helpmate_agrees(&pos, 6, 10_000_000).unwrap();
    assert!(
        want.iter()
            .any(|l| l.starts_with("e4e3") && l.ends_with("e2e4")),
        "{want:?}"
    );
}

/// The side that starts a helpmate of `plies`.
fn help_turn(plies: u32) -> shakmaty::Color {
    let goal = solvers::Goal::Mate;
    Stipulation::Help { plies, goal }.side_to_move()
}

/// The reference's helpmate lines of `plies` from `pos` (sorted), after
/// asserting that the production solver lists exactly those; `None` where
/// the reference needs more than `nodes`.
fn helpmate_agrees(pos: &Chess, plies: u32, nodes: u64) -> Option<Vec<String>> {
    use solvers::mate::{Found, Solver};
    use solvers::oracle::generate::fen;
    use solvers::Goal;
    let mut want = help_lines(pos, plies, Goal::Mate, &mut Budget::new(nodes))?;
    want.sort();
    let stipulation = Stipulation::Help {
        plies,
        goal: Goal::Mate,
    };
    let Found::Lines(lines) = Solver::new(None).solve(pos, stipulation).unwrap().unwrap() else {
        panic!("a helpmate gives lines");
    };
    let mut got: Vec<String> = lines.into_iter().map(|l| l.uci.join(" ")).collect();
    got.sort();
    let missing: Vec<_> = want.iter().filter(|l| !got.contains(l)).collect();
    let extra: Vec<_> = got.iter().filter(|l| !want.contains(l)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} ; {stipulation}: missing {missing:?}, extra {extra:?}",
        fen(pos)
    );
    Some(want)
}
