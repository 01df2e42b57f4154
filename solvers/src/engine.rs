//! A UCI engine (Stockfish) for studies beyond the tables: a minimal client
//! (`uci`, `isready`, `position fen`, `go depth … movetime …` with MultiPV
//! so one search scores every move) and the study check built on it.
//!
//! Engine findings are *suspected*: a search to a fixed depth can miss a
//! win or see one that is not there, so they never decide a verdict.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use crate::recognizer::Registry;
use crate::tablebase::study::{key, ply_label, MainLine};
use crate::tablebase::{Material, Wdl};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start the engine {path}: {source}")]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("talking to the engine: {0}")]
    Io(#[from] std::io::Error),
    #[error("the engine closed its output before {0}")]
    Closed(&'static str),
}

/// A score from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// The same score for the other side.
    pub fn flip(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(m) => Score::Mate(-m),
        }
    }

    /// The result the score stands for: a win beyond `WIN_CP`, a loss below
    /// its negative, a draw between.
    pub fn wdl(self) -> Wdl {
        match self {
            Score::Mate(m) if m > 0 => Wdl::Win,
            Score::Mate(_) => Wdl::Loss,
            Score::Cp(c) if c >= WIN_CP => Wdl::Win,
            Score::Cp(c) if c <= -WIN_CP => Wdl::Loss,
            Score::Cp(_) => Wdl::Draw,
        }
    }
}

/// Two pawns: Stockfish's evaluation of a position it sees as won; below it
/// a study's win is not "still winning" in the engine's eyes.
pub const WIN_CP: i32 = 200;

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "{:+.2}", f64::from(*c) / 100.0),
            Score::Mate(m) => write!(f, "#{m}"),
        }
    }
}

/// One move's line from an `info` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub multipv: u32,
    pub depth: u32,
    pub score: Score,
    /// UCI moves, the first one the move scored.
    pub pv: Vec<String>,
}

/// Reads an `info` line with a score and a pv; `None` for anything else
/// (`info string`, currmove lines, bounds).
pub fn parse_info(text: &str) -> Option<Line> {
    let mut words = text.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    let (mut multipv, mut depth, mut score, mut pv) = (1, None, None, Vec::new());
    while let Some(word) = words.next() {
        match word {
            "multipv" => multipv = words.next()?.parse().ok()?,
            "depth" => depth = Some(words.next()?.parse().ok()?),
            "score" => {
                score = match (words.next()?, words.next()?.parse().ok()?) {
                    ("cp", v) => Some(Score::Cp(v)),
                    ("mate", v) => Some(Score::Mate(v)),
                    _ => return None,
                }
            }
            // A bound is not a score for the move.
            "lowerbound" | "upperbound" => return None,
            "pv" => {
                pv = words.by_ref().map(str::to_owned).collect();
            }
            _ => {}
        }
    }
    Some(Line {
        multipv,
        depth: depth?,
        score: score?,
        pv: (!pv.is_empty()).then_some(pv)?,
    })
}

/// How long each position is searched: whichever comes first.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub depth: u32,
    pub movetime_ms: u64,
}

/// A running engine process; quits when dropped.
#[derive(Debug)]
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    /// Starts the engine and waits until it is ready; one thread and a
    /// small hash, because the pool runs one engine per position.
    pub fn start(path: &Path) -> Result<Engine, EngineError> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                path: path.to_owned(),
                source,
            })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut engine = Engine {
            child,
            stdin,
            stdout,
        };
        engine.send("uci")?;
        engine.wait_for("uciok")?;
        engine.send("setoption name Threads value 1")?;
        engine.send("setoption name Hash value 16")?;
        engine.send("isready")?;
        engine.wait_for("readyok")?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// Reads lines until one starts with `word`; returns the lines before.
    fn wait_for(&mut self, word: &'static str) -> Result<Vec<String>, EngineError> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(EngineError::Closed(word));
            }
            if line.split_whitespace().next() == Some(word) {
                return Ok(lines);
            }
            lines.push(line);
        }
    }

    /// Every legal move of `pos` with its score and line at the deepest
    /// depth the search completed, best first.
    pub fn score_moves(&mut self, pos: &Chess, limit: Limit) -> Result<Vec<Line>, EngineError> {
        let moves = pos.legal_moves().len();
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        self.send(&format!("setoption name MultiPV value {moves}"))?;
        self.send(&format!("position fen {fen}"))?;
        self.send(&format!(
            "go depth {} movetime {}",
            limit.depth, limit.movetime_ms
        ))?;
        let mut best: Vec<Option<Line>> = vec![None; moves];
        for line in self.wait_for("bestmove")? {
            if let Some(l) = parse_info(&line) {
                let slot = (l.multipv as usize).saturating_sub(1);
                if slot < moves {
                    // Later lines are deeper; a line of a shallower depth
                    // never replaces a deeper one.
                    if best[slot].as_ref().is_none_or(|b| b.depth <= l.depth) {
                        best[slot] = Some(l);
                    }
                }
            }
        }
        Ok(best.into_iter().flatten().collect())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// What an engine finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Suspicion {
    /// Another White move the engine still scores as keeping the result.
    SuspectedCook,
    /// A Black move the engine scores as better than the author's: it
    /// changes the result.
    SuspectedRefutation,
}

/// One engine finding, labelled as such.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineFinding {
    pub kind: Suspicion,
    pub move_number: u32,
    pub side: String,
    pub played: String,
    pub alternative: String,
    /// For the side that moves, as the engine gives it.
    pub score: String,
    pub played_score: String,
    pub depth: u32,
    /// The engine's line, SAN.
    pub line: String,
    /// Where the engine's line meets the main line again: then the
    /// alternative is likely a transposition or a waste of time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comes_back: Option<String>,
    /// The verified endgame recognizer that knows the position after the
    /// alternative, and its value: the finding is then exact, not
    /// suspected (it still does not decide the verdict).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recognizer: Option<String>,
}

impl std::fmt::Display for EngineFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dots = if self.side == "white" { "." } else { "..." };
        write!(
            f,
            "engine: {} at move {}{dots}{} instead of {} ({} vs {}, depth {}): {}",
            match self.kind {
                Suspicion::SuspectedCook => "suspected cook",
                Suspicion::SuspectedRefutation => "suspected refutation",
            },
            self.move_number,
            self.alternative,
            self.played,
            self.score,
            self.played_score,
            self.depth,
            self.line
        )?;
        if let Some(back) = &self.comes_back {
            write!(f, "; the line comes back to {back}")?;
        }
        if let Some(recognizer) = &self.recognizer {
            write!(f, "; exact: the recognizer {recognizer}")?;
        }
        Ok(())
    }
}

/// The engine's part of a study verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineReport {
    pub engine: String,
    pub depth: u32,
    pub movetime_ms: u64,
    /// Main-line plies the engine looked at.
    pub positions: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<EngineFinding>,
}

/// Whether a result for White keeps the study's claim: a win for `+`, at
/// least a draw for `=`.
fn keeps(white_value: Wdl, claimed: Wdl) -> bool {
    match claimed {
        Wdl::Win => white_value == Wdl::Win,
        _ => white_value != Wdl::Loss,
    }
}

/// The mover's result after its move `uci` from `pos`, when a verified
/// endgame recognizer knows it, and the recognizer's name: exact where the
/// engine only scores. Positions with castling rights or an en passant
/// capture are left to the engine (the recognizers were verified without).
fn recognized(pos: &Chess, uci: &str, recognizers: &Registry) -> Option<(Wdl, &'static str)> {
    let m = uci.parse::<UciMove>().ok()?.to_move(pos).ok()?;
    let mut child = pos.clone();
    child.play_unchecked(m);
    if !child.castles().is_empty() || child.ep_square(EnPassantMode::Legal).is_some() {
        return None;
    }
    let name = recognizers
        .by_material(&Material::of(child.board()))?
        .name();
    Some((recognizers.recognize(&child)?.flip(), name))
}

/// The engine check of one main-line ply: alternatives to a White move
/// that still keep the claim, or Black moves that break it where the
/// author's does not. Where a verified recognizer knows the position after
/// a move, its value replaces the engine's score: a finding it contradicts
/// is dropped, one it confirms says so.
pub fn judge_ply(
    line: &MainLine,
    ply: usize,
    lines: &[Line],
    claimed: Wdl,
    recognizers: Option<&Registry>,
) -> Vec<EngineFinding> {
    let pos = &line.positions[ply];
    let played_uci = UciMove::from_move(line.moves[ply], CastlingMode::Standard).to_string();
    let Some(played) = lines.iter().find(|l| l.pv[0] == played_uci) else {
        return Vec::new();
    };
    let white = pos.turn() == Color::White;
    let index = line.index();
    // Each move's result for White, and the recognizer that knew it.
    let value = |l: &Line| {
        let (mover, by) = recognizers
            .and_then(|r| recognized(pos, &l.pv[0], r))
            .map_or((l.score.wdl(), None), |(w, name)| (w, Some(name)));
        (if white { mover } else { mover.flip() }, by)
    };
    let (played_value, _) = value(played);
    let mut out = Vec::new();
    for l in lines.iter().filter(|l| l.pv[0] != played_uci) {
        let (alternative_value, recognizer) = value(l);
        let suspicious = if white {
            keeps(alternative_value, claimed)
        } else {
            keeps(played_value, claimed) && !keeps(alternative_value, claimed)
        };
        if !suspicious {
            continue;
        }
        let (san, comes_back) = replay(pos, &l.pv, line, &index, ply);
        out.push(EngineFinding {
            kind: if white {
                Suspicion::SuspectedCook
            } else {
                Suspicion::SuspectedRefutation
            },
            move_number: line.move_number(ply),
            side: if white { "white" } else { "black" }.to_owned(),
            played: san_of(pos, &played_uci),
            alternative: san.first().cloned().unwrap_or_default(),
            score: l.score.to_string(),
            played_score: played.score.to_string(),
            depth: l.depth,
            line: san.join(" "),
            comes_back,
            recognizer: recognizer.map(|name| format!("{name} says {alternative_value} for White")),
        });
    }
    out
}

fn san_of(pos: &Chess, uci: &str) -> String {
    uci.parse::<UciMove>()
        .ok()
        .and_then(|u| u.to_move(pos).ok())
        .map(|m| San::from_move(pos, m).to_string())
        .unwrap_or_else(|| uci.to_owned())
}

/// The pv in SAN, and the first main-line position it meets (other than
/// the one it starts from).
fn replay(
    start: &Chess,
    pv: &[String],
    line: &MainLine,
    index: &std::collections::HashMap<(shakmaty::Board, Color), usize>,
    from_ply: usize,
) -> (Vec<String>, Option<String>) {
    let mut pos = start.clone();
    let mut san = Vec::new();
    let mut back = None;
    for uci in pv {
        let Some(m) = uci
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
        else {
            break;
        };
        san.push(San::from_move(&pos, m).to_string());
        pos.play_unchecked(m);
        if back.is_none() {
            if let Some(&j) = index.get(&key(&pos)) {
                if j != from_ply + 1 {
                    back = Some(format!("the position after {}", ply_label(line, j)));
                }
            }
        }
    }
    (san, back)
}

/// Runs the engine over the main-line plies `plies` (those beyond the
/// tables), one engine process per ply, in parallel on the current rayon
/// pool.
pub fn check_line(
    path: &Path,
    line: &MainLine,
    plies: &[usize],
    claimed: Wdl,
    limit: Limit,
    recognizers: Option<&Registry>,
) -> Result<EngineReport, EngineError> {
    let per_ply: Vec<Result<Vec<EngineFinding>, EngineError>> = plies
        .par_iter()
        .map(|&ply| {
            let mut engine = Engine::start(path)?;
            let lines = engine.score_moves(&line.positions[ply], limit)?;
            Ok(judge_ply(line, ply, &lines, claimed, recognizers))
        })
        .collect();
    let mut findings = Vec::new();
    for found in per_ply {
        findings.extend(found?);
    }
    Ok(EngineReport {
        engine: path.display().to_string(),
        depth: limit.depth,
        movetime_ms: limit.movetime_ms,
        positions: plies.len(),
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let l = parse_info(
            "info depth 12 seldepth 18 multipv 3 score cp -35 nodes 1000 nps 5 pv e2e4 e7e5",
        )
        .unwrap();
        assert_eq!(
            (l.multipv, l.depth, l.score, l.pv.len()),
            (3, 12, Score::Cp(-35), 2)
        );
        let l = parse_info("info depth 20 score mate -4 pv h1h2").unwrap();
        assert_eq!((l.multipv, l.score), (1, Score::Mate(-4)));
        assert!(parse_info("info depth 5 score cp 20 lowerbound pv e2e4").is_none());
        assert!(parse_info("info string NNUE evaluation enabled").is_none());
        assert!(parse_info("bestmove e2e4").is_none());
    }

    /// A KPK position where the engine is told the opposite of what the
    /// KPK recognizer knows: the recognizer wins. A White move the engine
    /// scores as winning but the recognizer knows to draw is no suspected
    /// cook; one the engine scores as a draw but that wins is a cook, and
    /// says which recognizer knew.
    #[test]
    fn recognizers_overrule_the_engine() {
        let registry = Registry::new();
        let pos = crate::testing::position("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1");
        let value = |m: &shakmaty::Move| {
            let uci = UciMove::from_move(*m, CastlingMode::Standard).to_string();
            recognized(&pos, &uci, &registry).map(|(w, _)| (uci, w))
        };
        let known: Vec<(String, Wdl)> = pos.legal_moves().iter().filter_map(value).collect();
        let win = |w: Wdl| known.iter().filter(move |(_, v)| *v == w);
        let played = win(Wdl::Win).next().expect("a winning move").0.clone();
        let drawn: Vec<&String> = win(Wdl::Draw).map(|(u, _)| u).collect();
        let other_wins: Vec<&String> = win(Wdl::Win)
            .map(|(u, _)| u)
            .filter(|u| **u != played)
            .collect();
        assert!(!drawn.is_empty() && !other_wins.is_empty(), "{known:?}");
        let san = San::from_move(
            &pos,
            played.parse::<UciMove>().unwrap().to_move(&pos).unwrap(),
        );
        let (line, _) = MainLine::play(&pos, &[san.to_string()]);
        let engine_line = |uci: &str, score| Line {
            multipv: 1,
            depth: 20,
            score,
            pv: vec![uci.to_owned()],
        };
        let mut lines = vec![engine_line(&played, Score::Mate(9))];
        lines.extend(drawn.iter().map(|u| engine_line(u, Score::Mate(12))));
        lines.extend(other_wins.iter().map(|u| engine_line(u, Score::Cp(0))));
        // Without the recognizers the engine's word stands.
        let by_engine = judge_ply(&line, 0, &lines, Wdl::Win, None);
        assert_eq!(by_engine.len(), drawn.len());
        let findings = judge_ply(&line, 0, &lines, Wdl::Win, Some(&registry));
        assert_eq!(findings.len(), other_wins.len(), "{findings:?}");
        for f in &findings {
            assert_eq!(f.recognizer.as_deref(), Some("kpk says win for White"));
            assert!(f.to_string().contains("exact: the recognizer kpk"), "{f}");
        }
    }

    #[test]
    fn scores_as_results() {
        assert_eq!(Score::Cp(250).wdl(), Wdl::Win);
        assert_eq!(Score::Cp(-30).wdl(), Wdl::Draw);
        assert_eq!(Score::Mate(-3).wdl(), Wdl::Loss);
        assert_eq!(Score::Mate(-3).flip().wdl(), Wdl::Win);
        assert!(keeps(Score::Cp(0).wdl(), Wdl::Draw));
        assert!(!keeps(Score::Cp(0).wdl(), Wdl::Win));
    }
}
