//! An oracle for the proof-game solver: random games from the initial
//! array, biased toward what the static bound and the search find hardest
//! (castling, en passant, promotions to every piece, captures, above all of
//! a castled rook on its new square). Each game of L plies ends in a
//! position that some game of L plies reaches, so:
//! - the static bound must let every prefix of the game through with the
//!   plies left ([`proofgame::first_rejected_prefix`]);
//! - the search must find at least one game of exactly L plies to the
//!   final board (with the final castling and en-passant rights when the
//!   case states them), and the game itself when it lists them all.
//!
//! The default run checks a fixed-seed set. Any count, any seed:
//! `SPG_ORACLE_CASES=100000 SPG_ORACLE_SEARCH=0 cargo test --release -p
//! solvers --test proofgame_oracle -- --ignored --nocapture`, which prints
//! `N cases, D disagreements` for each check (`SPG_ORACLE_SEED`,
//! `SPG_ORACLE_PLIES` and `SPG_ORACLE_SEARCH_PLIES` set the seed and the
//! longest games).

use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role, Square};
use solvers::oracle::Rng;
use solvers::proofgame::{self, Judgement, Options, Rights};
use solvers::transposition::Table;
use solvers::verdict::Kind;

/// Squares where a castled rook stands: a capture there is the case the
/// static bound once priced without castling.
const CASTLED_ROOK_SQUARES: [Square; 4] = [Square::D1, Square::F1, Square::D8, Square::F8];

/// How much more likely than a quiet piece move `m` is to be played.
fn weight(pos: &Chess, m: &Move) -> u64 {
    if m.is_castle() {
        return 60;
    }
    if m.is_en_passant() {
        return 60;
    }
    if m.is_promotion() {
        return 40;
    }
    if let Some(captured) = m.capture() {
        let castled_rook = captured == Role::Rook && CASTLED_ROOK_SQUARES.contains(&m.to());
        return if castled_rook { 80 } else { 4 };
    }
    // Knights and bishops leave the back rank to clear the way for
    // castling, pawns advance towards promotions and step twice beside
    // enemy pawns (en passant), while kings and rooks mostly keep their
    // rights until they castle.
    let castling = !pos.castles().is_empty();
    let back_rank = m.from().is_some_and(|f| f.rank() == pos.turn().backrank());
    let beside = shakmaty::attacks::king_attacks(m.to())
        & shakmaty::Bitboard::from_rank(m.to().rank())
        & pos.board().by_piece(Role::Pawn.of(!pos.turn()));
    match m.role() {
        Role::Pawn if m.from().is_some_and(|f| f.distance(m.to()) == 2) && beside.any() => 60,
        Role::Pawn if m.from().is_some_and(|f| f.distance(m.to()) == 2) => 8,
        // Onto the fifth rank, where an enemy double step can be taken.
        Role::Pawn
            if m.to().rank()
                == pos
                    .turn()
                    .fold_wb(shakmaty::Rank::Fifth, shakmaty::Rank::Fourth) =>
        {
            10
        }
        Role::Pawn => 3,
        Role::Knight | Role::Bishop if castling && back_rank => 12,
        Role::King | Role::Rook if castling => 1,
        _ => 2,
    }
}

/// A random game of at most `plies` half-moves (fewer when it ends in
/// mate or stalemate).
fn random_game(rng: &mut Rng, plies: u32) -> Vec<Move> {
    let mut pos = Chess::default();
    let mut game = Vec::new();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        let total: u64 = moves.iter().map(|m| weight(&pos, m)).sum();
        if total == 0 {
            break;
        }
        let mut pick = rng.below(total as usize) as u64;
        let m = *moves
            .iter()
            .find(|m| {
                let w = weight(&pos, m);
                if pick < w {
                    true
                } else {
                    pick -= w;
                    false
                }
            })
            .expect("the weights add up to the total");
        pos.play_unchecked(m);
        game.push(m);
    }
    game
}

/// The position after `game`.
fn play(game: &[Move]) -> Chess {
    let mut pos = Chess::default();
    for m in game {
        pos.play_unchecked(*m);
    }
    pos
}

/// The final position's rights, stated (as a FEN states them) or not.
fn rights_of(pos: &Chess, stated: bool) -> Rights {
    if !stated {
        return Rights::default();
    }
    Rights {
        castling: Some(pos.castles().castling_rights()),
        en_passant: Some(pos.ep_square(EnPassantMode::Legal)),
    }
}

/// What a set of cases found.
#[derive(Debug, Default)]
struct Tally {
    cases: u64,
    disagreements: Vec<String>,
    /// Search cases the time limit cut short (they decide nothing).
    timed_out: u64,
    castled: u64,
    en_passant: u64,
    promoted: u64,
    castled_rook_taken: u64,
}

impl Tally {
    fn note_game(&mut self, game: &[Move]) {
        self.cases += 1;
        self.castled += u64::from(game.iter().any(|m| m.is_castle()));
        self.en_passant += u64::from(game.iter().any(|m| m.is_en_passant()));
        self.promoted += u64::from(game.iter().any(|m| m.is_promotion()));
        self.castled_rook_taken +=
            u64::from(game.iter().any(|m| {
                m.capture() == Some(Role::Rook) && CASTLED_ROOK_SQUARES.contains(&m.to())
            }));
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} cases, {} disagreements ({} with castling, {} en passant, {} promotions, \
             {} captures on a castled rook's square{})",
            self.cases,
            self.disagreements.len(),
            self.castled,
            self.en_passant,
            self.promoted,
            self.castled_rook_taken,
            if self.timed_out > 0 {
                format!("; {} searches timed out", self.timed_out)
            } else {
                String::new()
            }
        )
    }
}

fn uci(game: &[Move]) -> String {
    game.iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The static bound on `cases` random games of up to `max_plies`.
fn static_cases(seed: u64, cases: u64, max_plies: u32) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for case in 0..cases {
        let plies = 1 + rng.below(max_plies as usize) as u32;
        let game = random_game(&mut rng, plies);
        let stated = rng.below(2) == 0;
        tally.note_game(&game);
        let last = play(&game);
        let rights = rights_of(&last, stated);
        if let Some(i) = proofgame::first_rejected_prefix(last.board(), rights, &game) {
            tally.disagreements.push(format!(
                "case {case} (seed {seed}): the bound rejects the game after {i} of {} plies \
                 (rights {rights:?}): {}",
                game.len(),
                uci(&game)
            ));
        }
    }
    tally
}

/// The search on `cases` random games of up to `max_plies`, each given
/// `budget`.
fn search_cases(seed: u64, cases: u64, max_plies: u32, budget: Duration) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    let table = Table::sized(64, 20);
    for case in 0..cases {
        // The longer half of the lengths: castling and en passant need
        // a few moves first.
        let plies = max_plies / 2 + rng.below((max_plies - max_plies / 2) as usize) as u32 + 1;
        let game = random_game(&mut rng, plies);
        let stated = rng.below(2) == 0;
        tally.note_game(&game);
        let last = play(&game);
        let rights = rights_of(&last, stated);
        let options = Options {
            deadline: Some(Instant::now() + budget),
            table: Some(&table),
            shorter: false,
            rights,
            ..Options::default()
        };
        let length = game.len() as u32;
        let outcome = match proofgame::solve(last.board(), length, &options) {
            Ok(outcome) => outcome,
            Err(e) => {
                tally
                    .disagreements
                    .push(format!("case {case}: {e}: {}", uci(&game)));
                continue;
            }
        };
        if outcome.judgement == Judgement::Unsolved && outcome.exact.count == 0 {
            tally.timed_out += 1;
            continue;
        }
        let played = uci(&game);
        let listed = outcome
            .exact
            .lines
            .iter()
            .any(|l| l.uci.join(" ") == played);
        let all_listed =
            outcome.exact.complete && outcome.exact.count as usize == outcome.exact.lines.len();
        if outcome.exact.count == 0 || (all_listed && !listed) {
            tally.disagreements.push(format!(
                "case {case} (seed {seed}): {} ({} games of {length} plies, listed: {listed}, \
                 rights {rights:?}; {:?}): {played}",
                Kind::from(outcome.judgement),
                outcome.exact.count,
                outcome.notes
            ));
        }
    }
    tally
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn assert_agrees(tally: &Tally, what: &str) {
    println!("{}", tally.line(what));
    assert!(
        tally.disagreements.is_empty(),
        "{}\n{}",
        tally.line(what),
        tally.disagreements.join("\n")
    );
}

#[test]
fn the_static_bound_lets_random_games_through() {
    let tally = static_cases(0x5EED_0001, 6000, 48);
    // The set must exercise what it is biased toward.
    assert!(tally.castled > 2500, "{}", tally.line("static"));
    assert!(tally.en_passant > 300, "{}", tally.line("static"));
    assert!(tally.promoted > 80, "{}", tally.line("static"));
    assert!(tally.castled_rook_taken > 200, "{}", tally.line("static"));
    assert_agrees(&tally, "static bound");
}

#[test]
fn the_search_finds_random_games() {
    let tally = search_cases(0x5EED_0002, 300, 14, Duration::from_secs(20));
    assert!(tally.castled > 20, "{}", tally.line("search"));
    assert!(tally.en_passant > 10, "{}", tally.line("search"));
    assert_eq!(tally.timed_out, 0, "{}", tally.line("search"));
    assert_agrees(&tally, "search");
}

/// Any number of cases: `SPG_ORACLE_CASES` static ones (default 100000)
/// and `SPG_ORACLE_SEARCH` searches (default 1000).
#[test]
#[ignore = "long: run with --release and the counts wanted"]
fn oracle_any_count() {
    let seed = env("SPG_ORACLE_SEED", 0x0DD5_EED5_u64);
    let cases = env("SPG_ORACLE_CASES", 100_000_u64);
    let plies = env("SPG_ORACLE_PLIES", 40_u32);
    let tally = static_cases(seed, cases, plies);
    println!("{}", tally.line("static bound"));
    for d in tally.disagreements.iter().take(20) {
        println!("  {d}");
    }
    let searches = env("SPG_ORACLE_SEARCH", 1000_u64);
    let search_plies = env("SPG_ORACLE_SEARCH_PLIES", 12_u32);
    let found = search_cases(seed ^ 1, searches, search_plies, Duration::from_secs(30));
    println!("{}", found.line("search"));
    for d in found.disagreements.iter().take(20) {
        println!("  {d}");
    }
    assert!(tally.disagreements.is_empty() && found.disagreements.is_empty());
}

/// The generator itself: games are legal and the seed fixes them.
#[test]
fn random_games_are_reproducible() {
    let a = random_game(&mut Rng::new(7), 30);
    let b = random_game(&mut Rng::new(7), 30);
    assert_eq!(a, b);
    let mut pos = Chess::default();
    for m in &a {
        assert!(pos.is_legal(*m), "{m:?}");
        pos.play_unchecked(*m);
    }
    assert_ne!(a, random_game(&mut Rng::new(8), 30));
}
