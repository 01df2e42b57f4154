//! Test scaffolding shared by the library's tests, its benchmarks and the
//! end-to-end suite in the top-level `tests/` (feature `testing`; the
//! library's own unit tests have it always): positions from FEN, the
//! corpus files under `solvers/tests/data/`, random games.
//!
//! Helpers here panic on bad input: a test's own FEN or CSV that does not
//! read is a bug in the test.

use std::collections::HashMap;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, MoveList, Position, Setup};

use crate::verdict::Kind;

/// The position `fen` describes; panics when it is not a legal one.
pub fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays `line` (UCI moves) from `fen`, asserting `test` passes before
/// each move with the plies still to come; returns the final position.
pub fn passes_all_along(fen: &str, line: &str, test: fn(&Chess, u8) -> bool) -> Chess {
    let mut pos = position(fen);
    let moves: Vec<&str> = line.split(' ').collect();
    for (i, uci) in moves.iter().enumerate() {
        let left = (moves.len() - i) as u8;
        assert!(test(&pos, left), "{fen} before {uci}");
        let m = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
    }
    pos
}

/// Does some line of exactly `left` plies from `pos` stalemate Black?
pub fn stalemate_in(pos: &Chess, left: u8) -> bool {
    if left == 0 {
        return pos.turn().is_black() && pos.is_stalemate();
    }
    pos.legal_moves().into_iter().any(|m| {
        let mut next = pos.clone();
        next.play_unchecked(m);
        stalemate_in(&next, left - 1)
    })
}

/// Positions along random games from each of `fens`, each with 2 or 3
/// plies left so that a helpstalemate's last move is White's.
pub fn stalemate_cases(fens: &[&str]) -> Vec<(Chess, u8)> {
    let mut cases = Vec::new();
    for fen in fens {
        for game in random_games_from(&position(fen), 5, 40, 30, any_move) {
            for pos in game {
                let left = if pos.turn().is_white() { 3 } else { 2 };
                cases.push((pos, left));
            }
        }
    }
    cases
}

/// The setup `fen` describes, legal or not; panics when it does not parse.
pub fn setup(fen: &str) -> Setup {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_setup()
}

/// A tiny deterministic generator, enough to pick moves (the one the
/// legality stage's random-game tests use, so their games stay the same).
#[derive(Debug, Clone)]
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n` (0 when `n` is 0).
    pub fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// `count` games of up to `plies` half-moves from the initial array, drawn
/// from `seed`: at each position `pick` chooses one of the legal moves, or
/// ends the game with `None` (a game also ends where there is no move). Each game comes as every position
/// along the way, the initial one first.
pub fn random_games(
    seed: u64,
    count: usize,
    plies: usize,
    pick: impl FnMut(&Chess, &MoveList, &mut Lcg) -> Option<Move>,
) -> Vec<Vec<Chess>> {
    random_games_from(&Chess::default(), seed, count, plies, pick)
}

/// [`random_games`] from `start` instead of the initial array.
pub fn random_games_from(
    start: &Chess,
    seed: u64,
    count: usize,
    plies: usize,
    mut pick: impl FnMut(&Chess, &MoveList, &mut Lcg) -> Option<Move>,
) -> Vec<Vec<Chess>> {
    let mut rng = Lcg(seed);
    (0..count)
        .map(|_| {
            let mut positions = vec![start.clone()];
            for _ in 0..plies {
                let pos = positions.last().expect("never empty");
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let Some(m) = pick(pos, &moves, &mut rng) else {
                    break;
                };
                let mut next = pos.clone();
                next.play_unchecked(m);
                positions.push(next);
            }
            positions
        })
        .collect()
}

/// A move for [`random_games`]: any legal move, uniformly.
pub fn any_move(_: &Chess, moves: &MoveList, rng: &mut Lcg) -> Option<Move> {
    Some(moves[rng.next(moves.len())])
}

/// A move for [`random_games`]: a capture half of the time when there is
/// one (odd structures come sooner), else any move.
pub fn captures_half(_: &Chess, moves: &MoveList, rng: &mut Lcg) -> Option<Move> {
    let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
    Some(if !captures.is_empty() && rng.next(2) == 0 {
        *captures[rng.next(captures.len())]
    } else {
        moves[rng.next(moves.len())]
    })
}

/// The path of the corpus file `name` in `solvers/tests/data/`.
pub fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The verdict word a corpus row names: the proof-game corpus says
/// `unique` where cookd says `sound`; the other words are cookd's.
pub fn corpus_verdict(word: &str) -> Option<Kind> {
    [
        Kind::Sound,
        Kind::Cooked,
        Kind::NoSolution,
        Kind::Incomplete,
        Kind::Illegal,
        Kind::Unsolved,
        Kind::Error,
    ]
    .into_iter()
    .find(|kind| kind.as_str() == word)
    .or((word == "unique").then_some(Kind::Sound))
}

/// Splits one CSV line; fields may be quoted ("a, b" and "" for a quote).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// A CSV file's rows as maps from header name to field.
pub fn read_csv(path: &str) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().expect("header"));
    lines
        .map(|line| header.iter().cloned().zip(split_csv(line)).collect())
        .collect()
}

/// A mate corpus row's keys (or solution lines) as UCI, sorted: its
/// `keys_uci` column, `;`-separated.
pub fn keys_uci(row: &HashMap<String, String>) -> Vec<String> {
    let mut keys: Vec<String> = row["keys_uci"]
        .split(';')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    keys.sort();
    keys
}

/// The environment variable `name` parsed, or `default` (benchmarks' and
/// long tests' knobs).
pub fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// User + system CPU seconds of this process so far (Linux `/proc`).
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // Fields 14 and 15 of stat (utime, stime), counted after the ')'.
    (ticks(11) + ticks(12)) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::EnPassantMode;

    #[test]
    fn csv_splitter_handles_quotes() {
        assert_eq!(split_csv(r#"a,"b, c",d"#), vec!["a", "b, c", "d"]);
        assert_eq!(split_csv(r#""say ""hi""",x"#), vec![r#"say "hi""#, "x"]);
    }

    #[test]
    fn corpus_words_are_verdict_words() {
        assert_eq!(corpus_verdict("unique"), Some(Kind::Sound));
        assert_eq!(corpus_verdict("no_solution"), Some(Kind::NoSolution));
        assert_eq!(corpus_verdict("sund"), None);
    }

    #[test]
    fn random_games_are_reproducible_and_legal() {
        let fen = |p: &Chess| Fen::from_position(p, EnPassantMode::Legal).to_string();
        let fens = |games: Vec<Vec<Chess>>| -> Vec<Vec<String>> {
            games.iter().map(|g| g.iter().map(fen).collect()).collect()
        };
        let games = random_games(7, 3, 40, captures_half);
        assert_eq!(
            fens(games.clone()),
            fens(random_games(7, 3, 40, captures_half))
        );
        assert_eq!(games.len(), 3);
        for game in &games {
            assert_eq!(fen(&game[0]), fen(&Chess::default()));
            for pair in game.windows(2) {
                let next: Vec<String> = pair[0]
                    .legal_moves()
                    .iter()
                    .map(|m| fen(&pair[0].clone().play(*m).unwrap()))
                    .collect();
                assert!(next.contains(&fen(&pair[1])));
            }
        }
    }
}
