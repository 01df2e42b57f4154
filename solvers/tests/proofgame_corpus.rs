//! The proof-game solver judged on the corpus (tests/data/spg.csv): every
//! row's verdict and number of games must match, and the games the corpus
//! lists must be among those found.
//!
//! The default run takes the rows up to `QUICK_PLIES` half-moves that the
//! reference solver did not find slow either; the rest
//! are checked by `cargo test -p solvers --test proofgame_corpus -- --ignored` and
//! by the benchmark (`cargo bench -p solvers --bench proofgame`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use solvers::proofgame::{self, Judgement, Options};
use solvers::transposition::Table;

mod common;
use common::{data, read_csv};
use solvers::testing::corpus_verdict;
use solvers::verdict::Kind;

/// Rows up to this length run in the default (dev-profile) test...
const QUICK_PLIES: u32 = 16;
/// ...unless the reference solver needed more than this (spg130: 29 s for
/// Popeye, 30 s of CPU for cookd in a release build).
const REFERENCE_QUICK_S: f64 = 10.0;

/// Per-row limit: far above what a row in scope needs.
const ROW_BUDGET: Duration = Duration::from_secs(120);

/// Checks one row; `Err` says what is wrong.
fn check_row(row: &HashMap<String, String>, table: &Table) -> Result<(), String> {
    let id = &row["id"];
    let board = row["fen"]
        .parse::<Fen>()
        .map_err(|e| format!("{id}: {e}"))?
        .into_setup()
        .board;
    let plies: u32 = row["halfmoves"].parse().unwrap();
    let options = Options {
        deadline: Some(Instant::now() + ROW_BUDGET),
        // The corpus verdicts count games of the stipulated length only
        // (Popeye's `exact`); see `shorter_games_cook` for Stelvio's rule.
        shorter: false,
        table: Some(table),
        ..Options::default()
    };
    let outcome = proofgame::solve(&board, plies, &options).map_err(|e| format!("{id}: {e}"))?;
    let got = Kind::from(outcome.judgement);
    if Some(got) != corpus_verdict(&row["verdict"]) {
        return Err(format!(
            "{id}: verdict {got}, want {} ({:?})",
            row["verdict"], outcome.notes
        ));
    }
    let want = &row["n_solutions"];
    let count = outcome.exact.count + outcome.short.iter().map(|g| g.count).sum::<u64>();
    // A count cut short by the budget is only a lower bound.
    let count_ok = match want.strip_prefix(">=") {
        Some(min) => count >= min.parse::<u64>().unwrap(),
        None => outcome.exact.complete && count == want.parse::<u64>().unwrap(),
    };
    if !count_ok {
        return Err(format!("{id}: {count} games, want {want}"));
    }
    let found: Vec<&str> = outcome
        .exact
        .lines
        .iter()
        .chain(outcome.short.iter().flat_map(|g| &g.lines))
        .map(|l| l.san.as_str())
        .collect();
    let capped = !outcome.exact.complete || outcome.exact.lines.len() as u64 != outcome.exact.count;
    for listed in row["solution_text"]
        .split("||")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "...")
    {
        if !capped && !found.contains(&listed) {
            return Err(format!(
                "{id}: listed game {listed:?} not found in {found:?}"
            ));
        }
    }
    Ok(())
}

/// Wall seconds the reference solver needed, when the row says
/// (`"popeye-4.104 run here (exact-dia7.5, 29.01 s wall)"`).
fn reference_seconds(row: &HashMap<String, String>) -> Option<f64> {
    let source = &row["verdict_source"];
    let end = source.find(" s wall")?;
    let start = source[..end].rfind(' ')? + 1;
    source[start..end].parse().ok()
}

/// The default run's rows: short, and not slow for the reference either.
fn quick(row: &HashMap<String, String>) -> bool {
    let plies: u32 = row["halfmoves"].parse().unwrap();
    plies <= QUICK_PLIES && reference_seconds(row).is_none_or(|s| s <= REFERENCE_QUICK_S)
}

/// Judges the rows `select` picks, all with one table (as the daemon does):
/// each row after the first searches among the others' entries.
fn run(select: impl Fn(&HashMap<String, String>) -> bool) -> usize {
    let rows = read_csv(&data("spg.csv"));
    let table = Table::sized(64, 32);
    let mut failures = Vec::new();
    let mut judged = 0;
    for row in &rows {
        if !select(row) {
            continue;
        }
        if let Err(e) = check_row(row, &table) {
            failures.push(e);
        }
        judged += 1;
    }
    println!("{judged} rows judged, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    judged
}

#[test]
fn proofgame_corpus_quick_rows() {
    let judged = run(quick);
    assert!(judged >= 60, "only {judged} rows in scope");
}

/// Longer rows, 17 to 24 plies: at most 0.25 s of CPU each in the
/// benchmark (release build), 1.2 s all together.
const MEDIUM_PLIES: std::ops::RangeInclusive<u32> = 17..=24;

fn medium(row: &HashMap<String, String>) -> bool {
    let plies: u32 = row["halfmoves"].parse().unwrap();
    MEDIUM_PLIES.contains(&plies)
}

#[test]
fn proofgame_corpus_medium_rows() {
    let judged = run(medium);
    assert!(judged >= 30, "only {judged} rows in scope");
}

/// The rows past 24 plies (benchmark, release build, 1 thread, CPU
/// seconds): spg225 (31 plies) 2.3; spg252 (39 plies)
/// about 130-230 by the table's size (its first games after 5, so it is
/// cooked within any budget past that); spg261 (43 plies) about 85.
#[test]
#[ignore = "long proof games: minutes in the dev profile; the benchmark checks them too"]
fn proofgame_corpus_long_rows() {
    run(|row| !quick(row) && !medium(row));
}

/// The same quick rows on two threads (the synchronisation-depth split)
/// give the same verdicts and counts.
#[test]
fn proofgame_corpus_two_threads() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let judged =
        pool.install(|| run(|row| (8..=12).contains(&row["halfmoves"].parse::<u32>().unwrap())));
    assert!(judged >= 20, "only {judged} rows in scope");
}

/// The board of a FEN (the corpus gives boards only).
fn board(fen: &str) -> shakmaty::Board {
    fen.parse::<Fen>().unwrap().into_setup().board
}

/// Replays a game given in SAN from the initial array (independently of the
/// solver) and returns the final board.
fn replay(game: &str) -> shakmaty::Board {
    use shakmaty::{san::San, Chess, Position};
    let mut pos = Chess::default();
    for token in game.split_whitespace() {
        let san = token.rsplit('.').next().unwrap();
        let m = san
            .parse::<San>()
            .unwrap()
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{san} in {game}: {e}"));
        pos.play_unchecked(m);
    }
    pos.board().clone()
}

/// Stelvio's rule: a shorter game of the same parity cooks the problem. The
/// corpus (Popeye `exact`) calls spg076 unique in 10 plies; it has 8-ply
/// games too, such as the one below, checked here by replaying it.
#[test]
fn shorter_games_cook() {
    let diagram = board("rnbqkb1r/ppBppppp/8/3n4/3P4/8/PPP1PPPP/RN1QKBNR");
    let short = "1.d4 Nf6 2.Bf4 Nd5 3.Be5 Nf6 4.Bxc7 Nd5";
    assert_eq!(replay(short), diagram);
    let outcome = proofgame::solve(&diagram, 10, &Options::default()).unwrap();
    assert_eq!(outcome.judgement, Judgement::Cooked);
    assert_eq!(outcome.exact.count, 1);
    assert_eq!(
        outcome.exact.lines[0].san,
        "1.d4 c5 2.Bf4 c4 3.Bc7 c3 4.Nxc3 Nf6 5.Nb1 Nd5"
    );
    let eight = outcome
        .short
        .iter()
        .find(|g| g.plies == 8)
        .expect("8-ply games");
    assert!(eight.lines.iter().any(|l| l.san == short), "{eight:?}");
}

/// spg252 (van Atten, The Problemist 1985) is stated in 39 plies, and the
/// corpus calls it cooked by the games of that length. It has a game of 37
/// too, the black king losing the tempo the knights cannot (f5-g5-g6),
/// checked here by replaying it: the search finds it within the default
/// budget (3 s of CPU in a release build).
#[test]
fn spg252_has_a_shorter_game() {
    let diagram = board("2bqkb1r/p1ppp1pp/n1pRQp2/7n/P2B2P1/N2PPK2/1PP1rP1P/2NR4");
    let short = "1.a4 Nf6 2.Ra3 Nh5 3.Rd3 f6 4.Rd6 Kf7 5.d3 Kg6 6.Be3 Kf5 7.Bd4 Kg5 \
                 8.e3 Kg6 9.Qg4+ Kf7 10.Qe6+ Ke8 11.g4 Na6 12.Bg2 Rb8 13.Bc6 bxc6 \
                 14.Ke2 Rb3 15.Kf3 Ra3 16.Ne2 Ra1 17.Na3 Re1 18.Nc1 Re2 19.Rd1";
    assert_eq!(replay(short), diagram);
    let outcome = proofgame::solve(&diagram, 37, &Options::default()).unwrap();
    assert!(outcome.exact.complete, "{:?}", outcome.notes);
    let found: Vec<&str> = outcome.exact.lines.iter().map(|l| l.san.as_str()).collect();
    assert!(found.contains(&short), "{found:?}");
}

/// With a king in check the solver retracts the last move; without that it
/// must count the same games (quick rows whose diagram king is in check).
#[test]
fn retraction_agrees_with_plain_search() {
    use shakmaty::{CastlingMode, Chess, Color, Position, Setup};
    let rows = read_csv(&data("spg.csv"));
    let mut judged = 0;
    for row in &rows {
        let plies: u32 = row["halfmoves"].parse().unwrap();
        if plies == 0 || plies > 12 {
            continue;
        }
        let board = board(&row["fen"]);
        let mut setup = Setup::empty();
        setup.board = board.clone();
        setup.turn = if plies % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let Ok(pos) = setup.position::<Chess>(CastlingMode::Standard) else {
            continue;
        };
        if !pos.is_check() {
            continue;
        }
        let count = |retraction| {
            let options = Options {
                retraction,
                shorter: false,
                ..Options::default()
            };
            let outcome = proofgame::solve(&board, plies, &options).unwrap();
            let mut games: Vec<String> = outcome.exact.lines.into_iter().map(|l| l.san).collect();
            games.sort();
            (outcome.exact.count, games)
        };
        assert_eq!(count(true), count(false), "{}", row["id"]);
        judged += 1;
    }
    assert!(judged >= 10, "only {judged} rows with a king in check");
}

/// Every position along every game the corpus lists passes the search's
/// static tests (the matching bounds, the frozen units' obstacles, the
/// capture tests): none of them ever prunes a real proof game.
#[test]
fn listed_games_pass_every_static_test() {
    use shakmaty::{san::San, Chess, Position};
    let mut checked = 0;
    for row in read_csv(&data("spg.csv")) {
        let board = board(&row["fen"]);
        let plies: u32 = row["halfmoves"].parse().unwrap();
        let games = row["solution_text"].split("||").map(str::trim);
        for game in games.filter(|g| !g.is_empty() && !g.ends_with("...")) {
            let mut pos = Chess::default();
            for (ply, token) in game.split_whitespace().enumerate() {
                let left = plies - ply as u32;
                let id = &row["id"];
                assert!(
                    proofgame::may_reach(&board, &pos, left),
                    "{id}: pruned with {left} plies to go in {game}"
                );
                checked += 1;
                let san = token.rsplit('.').next().unwrap();
                let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
        }
    }
    assert!(checked > 1_000, "only {checked} positions checked");
}

/// The move filter of the search bounds the mover's need after each move
/// from the matching before it, without playing the move. Along every game
/// the corpus lists, and for every move there (played or not), that bound
/// must never exceed the need the matching gives after the move; and when
/// the opponent's pawns must take some of the mover's units, the same for
/// the matching with those victims, after every move that takes nothing.
#[test]
fn move_bound_never_exceeds_the_need_after_the_move() {
    use proofgame::analysis::{Analysis, Need, Victims};
    use shakmaty::{san::San, Chess, Position};
    let (mut checked, mut with_victims_checked) = (0, 0);
    for row in read_csv(&data("spg.csv")) {
        let board = board(&row["fen"]);
        let plies: i32 = row["halfmoves"].parse().unwrap();
        let analysis = Analysis::new(&board);
        let games = row["solution_text"].split("||").map(str::trim);
        for game in games.filter(|g| !g.is_empty() && !g.ends_with("...")) {
            let mut pos = Chess::default();
            for (ply, token) in game.split_whitespace().enumerate() {
                let (board, castles, turn) = (pos.board(), pos.castles(), pos.turn());
                // The opponent has not moved yet this turn.
                let opponent_moves = (plies - ply as i32) / 2;
                let captures = analysis
                    .need(board, castles, !turn)
                    .map_or(0, |n| n.captures);
                let victims = (captures > 0).then(|| Victims {
                    squares: analysis.capture_squares(
                        analysis.matching(board, castles, !turn).as_ref(),
                        opponent_moves,
                    ),
                    count: captures,
                });
                let bound = |v| {
                    let m = analysis.matching_with(board, castles, turn, v);
                    m.map(|m| analysis.move_bound(board, &m, v))
                };
                let plain = bound(None).expect("the position is on a proof game");
                let with_victims = victims.map(|v| (v, bound(Some(v)).expect("on a proof game")));
                for m in pos.legal_moves() {
                    let (Some(from), false) = (m.from(), m.is_castle()) else {
                        continue;
                    };
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    let (board, castles) = (child.board(), child.castles());
                    let role = m.promotion().unwrap_or(m.role());
                    let check = |bound, need: Option<Need>| {
                        let after = analysis.need_after(bound, from, m.to(), role);
                        if let Some(need) = need {
                            let id = &row["id"];
                            assert!(
                                after <= need.moves,
                                "{id}: {m} needs {need:?}, bound {after}"
                            );
                        }
                        need.is_some()
                    };
                    if check(&plain, analysis.need(board, castles, turn)) {
                        checked += 1;
                    }
                    if let (Some((v, bound)), false) = (&with_victims, m.is_capture()) {
                        if check(bound, analysis.need_with(board, castles, turn, Some(*v))) {
                            with_victims_checked += 1;
                        }
                    }
                }
                let san = token.rsplit('.').next().unwrap();
                let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
        }
    }
    assert!(checked > 10_000, "only {checked} moves checked");
    assert!(
        with_victims_checked > 1_000,
        "only {with_victims_checked} moves checked with victims"
    );
}

/// Natch's test suite: a side castles and its rook is later taken on its
/// castling square. The static tests once priced the rook's ways without
/// castling (where it may be taken, and, with no move to spare, the
/// own-side test took it off before the king could castle with it), so
/// both were `no_solution` in 12 plies (issue 22).
#[test]
fn a_castled_rook_taken_on_its_new_square() {
    for (fen, game) in [
        (
            "rn1qkbnr/p1ppppp1/8/p5Pp/4P3/5N1b/PPPP1P1P/RNBQ2K1",
            "1.e4 h5 2.Ba6 bxa6 3.Nf3 a5 4.O-O Ba6 5.g4 Bxf1 6.g5 Bh3",
        ),
        (
            "r2qkbnr/p1pppppp/2n5/1p5B/4P3/5N2/PPPP1PPP/RNBQ1b1K",
            "1.e4 b5 2.Be2 Bb7 3.Bh5 Bd5 4.Nf3 Nc6 5.O-O Bc4 6.Kh1 Bxf1",
        ),
    ] {
        let diagram = board(fen);
        assert_eq!(replay(game), diagram);
        let outcome = proofgame::solve(&diagram, 12, &Options::default()).unwrap();
        let found: Vec<&str> = outcome.exact.lines.iter().map(|l| l.san.as_str()).collect();
        assert_eq!(found, [game], "{fen}: {:?}", outcome.notes);
        assert_eq!(outcome.judgement, Judgement::Sound, "{fen}");
    }
}

/// The final rights as a full FEN states them: `castling` (rook squares),
/// no en passant.
fn stated(castling: &[shakmaty::Square]) -> proofgame::Rights {
    let bits = castling
        .iter()
        .fold(shakmaty::Bitboard::EMPTY, |b, s| b.with(*s));
    proofgame::Rights {
        castling: Some(bits),
        en_passant: Some(None),
    }
}

/// A problem whose point is a lost castling right (Caillaud, Problemist
/// 1995, SPG 7.5: White's king tours and comes home). With the rights
/// stated (`w kq`), only games that lose White's rights count: sound. As a
/// bare board (Stelvio) a 13-ply game in which White's king never moved
/// cooks it, and the verdict groups the games by the rights they end with,
/// singling out the intended one.
#[test]
fn a_lost_castling_right_decides() {
    use shakmaty::Square;
    let diagram = board("r1b1kbnr/ppp1pppp/8/3p4/7n/5P2/PPPPP1PP/RNBQKBNR");
    let intended = "1.f3 d5 2.Kf2 Qd6 3.Ke3 Qf4+ 4.Kxf4 Nd7 5.Kg4 Ne5+ 6.Kg3 Ng6 7.Kf2 Nh4 8.Ke1";
    let rights = stated(&[Square::A8, Square::H8]);
    let with_rights = Options {
        rights,
        ..Options::default()
    };
    let outcome = proofgame::solve(&diagram, 15, &with_rights).unwrap();
    assert_eq!(outcome.judgement, Judgement::Sound, "{:?}", outcome.notes);
    let found: Vec<&str> = outcome.exact.lines.iter().map(|l| l.san.as_str()).collect();
    assert_eq!(found, [intended]);
    assert!(outcome.short.is_empty());

    let outcome = proofgame::solve(&diagram, 15, &Options::default()).unwrap();
    assert_eq!(outcome.judgement, Judgement::Cooked);
    let short: Vec<&str> = outcome
        .short
        .iter()
        .flat_map(|g| &g.lines)
        .map(|l| l.san.as_str())
        .collect();
    assert_eq!(
        short,
        ["1.Nf3 d5 2.Ne5 Qd7 3.Nxd7 Nc6 4.Ne5 Nd4 5.Nf3 Nf5 6.Ng1 Nh4 7.f3"]
    );
    assert!(outcome.by_rights_complete, "{:?}", outcome.notes);
    let unique: Vec<_> = outcome.by_rights.iter().filter(|g| g.unique()).collect();
    assert_eq!(unique.len(), 1, "{:?}", outcome.by_rights);
    assert_eq!(unique[0].rights, rights);
    assert!(
        outcome.notes.iter().any(|n| n
            == "unique if the diagram states castling kq, no en passant: \
                the other games end with other rights"),
        "{:?}",
        outcome.notes
    );
}

/// Guballa (Schwalbe 2001, SPG 9.5: Black's king comes back to e8), as
/// given in issue 22. Stating Black's lost rights (`b KQ`) leaves out the
/// 562,234 games of 17 plies that keep them, but 13,935 of 17 plies remain
/// in which Black's king goes out and back (such as the one below): so the
/// diagram is cooked under Stelvio's rule even with its rights, and sound
/// only counting games of 19 plies alone (Popeye's `exact`).
#[test]
fn stated_rights_leave_only_the_games_that_lose_them() {
    use shakmaty::Square;
    let diagram = board("rnbqkb1r/pppp1Qpp/4ppn1/2P1N3/8/8/PP1PPPPP/R1B1KBNR");
    let intended = "1.Na3 f6 2.Nc4 Kf7 3.Ne5+ Ke6 4.c4 Kd6 5.Qc2 e6 6.Qg6 Ne7 \
                    7.Qf7 Ng6 8.Qg8 Ke7 9.c5 Ke8 10.Qf7#";
    let rights = stated(&[Square::A1, Square::H1]);
    let exact = Options {
        rights,
        shorter: false,
        ..Options::default()
    };
    let outcome = proofgame::solve(&diagram, 19, &exact).unwrap();
    assert_eq!(outcome.judgement, Judgement::Sound, "{:?}", outcome.notes);
    let found: Vec<&str> = outcome.exact.lines.iter().map(|l| l.san.as_str()).collect();
    assert_eq!(found, [intended]);

    let stelvio = Options {
        rights,
        ..Options::default()
    };
    let outcome = proofgame::solve(&diagram, 19, &stelvio).unwrap();
    assert_eq!(outcome.judgement, Judgement::Cooked);
    assert_eq!(outcome.exact.count, 1);
    let counts: Vec<(u32, u64)> = outcome.short.iter().map(|g| (g.plies, g.count)).collect();
    assert_eq!(counts, [(17, 13_935)]);
    let cook = "1.c3 f6 2.c4 Nh6 3.c5 Ng4 4.Na3 Kf7 5.Qb3+ Ke8 6.Qg8 Ne5 7.Nc4 Ng6 8.Ne5 e6 9.Qf7#";
    assert_eq!(replay(cook), diagram);
    assert!(outcome.short[0].lines.iter().any(|l| l.san == cook));

    let bare = proofgame::solve(&diagram, 19, &Options::default()).unwrap();
    let counts: Vec<(u32, u64)> = bare.short.iter().map(|g| (g.plies, g.count)).collect();
    assert_eq!(counts, [(17, 562_248)]);
    // Too many games to list them all: the groups are of those listed.
    assert!(!bare.by_rights_complete);
    assert!(bare
        .by_rights
        .iter()
        .any(|g| g.rights == rights && g.exact == 1));
}
