//! Study conventions: each alternative to a White move of a study's main
//! line that keeps the result is classed the way study judges class it
//! (README, "Studies"): a transposition or a waste of time when best play
//! after it comes back to the main line, a dual when the result is already
//! clear, and a cook only when it is a genuinely different solution.
//!
//! The classification itself is [`classify`], a pure function of where the
//! move stands in the line and what the search after the alternative found.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use shakmaty::san::San;
use shakmaty::{Board, Chess, Color, Move, Position};

use super::{Dtm, Material, ProbeError, Wdl};

/// What an alternative to a main-line move is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// A second solution: makes a study `cooked`.
    Cook,
    /// Keeps the result another way where the result is already clear (a
    /// known ending, or after the author's last unique move).
    Dual,
    /// Best play after it reaches a later position of the main line.
    Transposition,
    /// Best play after it comes back to an earlier position of the main
    /// line (a check repeated, a king step back and forth).
    WasteOfTime,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Cook => "cook",
            Class::Dual => "dual",
            Class::Transposition => "transposition",
            Class::WasteOfTime => "waste of time",
        }
    }
}

/// One alternative to a main-line White move that keeps the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub class: Class,
    /// The move number in the solution (1 for the first White move).
    pub move_number: u32,
    /// The author's move, SAN.
    pub played: String,
    /// The other move, SAN.
    pub alternative: String,
    /// Its value for White (`win in 39 plies`, `draw`).
    pub value: String,
    /// Why it has this class.
    pub why: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at move {}: {} instead of {} ({}; {})",
            self.class.as_str(),
            self.move_number,
            self.alternative,
            self.played,
            self.value,
            self.why
        )
    }
}

/// Where play after an alternative came back to the main line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The ply index (in the main line's positions) of the position met.
    Ply(usize),
    Nowhere,
}

/// The class of an alternative at main-line ply `ply` (a White move).
/// `last_point` is the ply of the author's last White move that is the
/// only one keeping the result; `first_ply` the first White move's ply
/// when the line starts at the diagram.
pub fn classify(
    ply: usize,
    first_ply: Option<usize>,
    last_point: Option<usize>,
    reached: Reached,
    known_ending: bool,
) -> Class {
    match reached {
        // The position after the alternative is not the one after the
        // author's move, so meeting ply <= `ply` is a return.
        Reached::Ply(j) if j > ply => Class::Transposition,
        Reached::Ply(_) => Class::WasteOfTime,
        Reached::Nowhere if known_ending => Class::Dual,
        // A second way from the diagram is a second solution: the
        // solution must be unique from the start.
        Reached::Nowhere if first_ply == Some(ply) => Class::Cook,
        // Up to the author's last forced move the line is the point;
        // after it, the study is over and any way of winning will do.
        Reached::Nowhere if last_point.is_some_and(|p| ply < p) => Class::Cook,
        Reached::Nowhere => Class::Dual,
    }
}

/// Whether the result on this material is technically clear: a lone king
/// against a queen, a rook, two bishops or bishop and knight (a win), or
/// material with which nobody can mate (a dead draw).
pub fn known_ending(material: &Material, claimed: Wdl) -> bool {
    let (w, b) = (&material.white, &material.black);
    let lone = |s: &shakmaty::ByRole<u8>| s.queen + s.rook + s.bishop + s.knight + s.pawn == 0;
    match claimed {
        Wdl::Win => {
            lone(b) && (w.queen + w.rook > 0 || w.bishop >= 2 || (w.bishop >= 1 && w.knight >= 1))
        }
        Wdl::Draw => {
            let heavy = w.queen + w.rook + w.pawn + b.queen + b.rook + b.pawn;
            let minors = w.bishop + w.knight + b.bishop + b.knight;
            heavy == 0 && minors <= 1
        }
        Wdl::Loss => false,
    }
}

/// The main line: `positions[i]` is the position before `moves[i]`; one
/// more position than moves.
#[derive(Debug, Clone)]
pub struct MainLine {
    pub positions: Vec<Chess>,
    pub moves: Vec<Move>,
    /// Plies of the author's line before `positions[0]` (a tail of the
    /// line, where it enters the tables), plus one when the diagram has
    /// Black to move: what move numbers count from.
    pub number_base: usize,
    /// Whether `positions[0]` is the diagram.
    pub from_diagram: bool,
}

impl MainLine {
    /// Plays the solution's moves from `start`; stops at the first token
    /// that is not a legal move and returns it.
    pub fn play(start: &Chess, tokens: &[String]) -> (MainLine, Option<String>) {
        let mut line = MainLine {
            positions: vec![start.clone()],
            moves: Vec::new(),
            number_base: usize::from(start.turn() == Color::Black),
            from_diagram: true,
        };
        for token in tokens {
            let pos = line.positions.last().expect("a start").clone();
            let Some(m) = token
                .parse::<San>()
                .ok()
                .and_then(|san| san.to_move(&pos).ok())
            else {
                return (line, Some(token.clone()));
            };
            line.positions.push(pos.play(m).expect("legal"));
            line.moves.push(m);
        }
        (line, None)
    }

    /// Each position's first ply in the line.
    pub fn index(&self) -> HashMap<(Board, Color), usize> {
        let mut index = HashMap::new();
        for (ply, pos) in self.positions.iter().enumerate() {
            index.entry(key(pos)).or_insert(ply);
        }
        index
    }

    /// The solution's move number of ply `ply`.
    pub fn move_number(&self, ply: usize) -> u32 {
        ((ply + self.number_base) / 2 + 1) as u32
    }

    /// The line from ply `from` on (where it enters the tables), with the
    /// author's move numbers.
    pub fn tail(&self, from: usize) -> MainLine {
        MainLine {
            positions: self.positions[from..].to_vec(),
            moves: self.moves[from..].to_vec(),
            number_base: self.number_base + from,
            from_diagram: self.from_diagram && from == 0,
        }
    }
}

/// What identifies a position for repetition: the board and the side to
/// move (no castling in table positions; en passant is too rare to split).
pub fn key(pos: &Chess) -> (Board, Color) {
    (pos.board().clone(), pos.turn())
}

/// Anything that gives every legal move's value, best first.
pub trait MoveValues {
    fn move_values(&self, pos: &Chess) -> Result<Vec<(Move, Dtm)>, ProbeError>;
}

impl MoveValues for super::DtmTables {
    fn move_values(&self, pos: &Chess) -> Result<Vec<(Move, Dtm)>, ProbeError> {
        super::DtmTables::move_values(self, pos)
    }
}

/// How far (plies) and how wide (positions valued) the search for a
/// return to the main line looks after an alternative.
#[derive(Debug, Clone, Copy)]
pub struct ReturnSearch {
    pub plies: u32,
    pub nodes: u32,
}

impl Default for ReturnSearch {
    /// Saavedra's 4.Kc3 Rd1 5.Kc2 Rd4 comes back in three plies; five
    /// cover a check repeated twice.
    fn default() -> Self {
        ReturnSearch {
            plies: 5,
            nodes: 4000,
        }
    }
}

/// After an alternative (`pos`, Black to move): does play, White keeping
/// the result, meet a position of the main line within the search's
/// plies? Black plays a move of the author's line where one leads into
/// it; else, in a win, one of its best defences (the longest loss: best
/// play); in a draw, any drawing move (all equally good, so White must
/// force the return against each). The ply of the position met, if so.
pub fn reaches_line(
    values: &dyn MoveValues,
    pos: &Chess,
    index: &HashMap<(Board, Color), usize>,
    claimed: Wdl,
    limits: ReturnSearch,
) -> Reached {
    let mut nodes = limits.nodes;
    match reach(values, pos, index, claimed, limits.plies, &mut nodes) {
        Some(ply) => Reached::Ply(ply),
        None => Reached::Nowhere,
    }
}

fn reach(
    values: &dyn MoveValues,
    pos: &Chess,
    index: &HashMap<(Board, Color), usize>,
    claimed: Wdl,
    plies: u32,
    nodes: &mut u32,
) -> Option<usize> {
    if let Some(&ply) = index.get(&key(pos)) {
        return Some(ply);
    }
    if plies == 0 || *nodes == 0 {
        return None;
    }
    *nodes -= 1;
    let moves = values.move_values(pos).ok()?;
    let child = |m: &Move| pos.clone().play(*m).expect("legal");
    if pos.turn() == Color::White {
        // Moves straight into the line first: the common case is a return
        // one move away.
        let keeping: Vec<Chess> = moves
            .iter()
            .filter(|(_, v)| v.wdl() == claimed)
            .map(|(m, _)| child(m))
            .collect();
        if let Some(ply) = keeping.iter().find_map(|c| index.get(&key(c)).copied()) {
            return Some(ply);
        }
        keeping
            .iter()
            .find_map(|c| reach(values, c, index, claimed, plies - 1, nodes))
    } else {
        // Black's play is the author's where it can be: a move into a
        // position of the line is the line's own defence (Saavedra's
        // 4.Kc3 Rd1 5.Kc2 Rd4, though 5...Rf1 holds out longer). Else
        // Black has several best defences as often as not; one of them
        // that leads back is best play that leads back, as judges read a
        // transposition.
        let children: Vec<Chess> = moves.iter().map(|(m, _)| child(m)).collect();
        if let Some(ply) = children.iter().find_map(|c| index.get(&key(c)).copied()) {
            return Some(ply);
        }
        let best = moves.first()?.1;
        let mut defences = moves
            .iter()
            .zip(&children)
            .take_while(|((_, v), _)| *v == best)
            .map(|(_, c)| c);
        if claimed == Wdl::Win {
            defences.find_map(|c| reach(values, c, index, claimed, plies - 1, nodes))
        } else {
            // In a draw every drawing defence is as good as another, so
            // none of them is "best play": White must force the return
            // against all of them.
            let mut earliest: Option<usize> = None;
            for c in defences {
                let ply = reach(values, c, index, claimed, plies - 1, nodes)?;
                earliest = Some(earliest.map_or(ply, |e| e.min(ply)));
            }
            earliest
        }
    }
}

/// A value for White, in words.
pub fn describe(value: Dtm) -> String {
    match value {
        Dtm::Win(n) => format!("win in {n} plies"),
        Dtm::Draw => "draw".into(),
        Dtm::Loss(n) => format!("loss in {n} plies"),
    }
}

/// What the main line's White moves showed.
#[derive(Debug, Default)]
pub struct LineCheck {
    pub findings: Vec<Finding>,
    /// A White move of the line that gives the result away, in words.
    pub fails: Option<String>,
    /// Why the check stopped early, if it did.
    pub stopped: Option<String>,
}

/// Checks each White move of `line` against the tables: the author's move
/// must keep `claimed`, and every other move that keeps it is classed.
pub fn check_line(
    values: &dyn MoveValues,
    line: &MainLine,
    claimed: Wdl,
    limits: ReturnSearch,
) -> LineCheck {
    let mut out = LineCheck::default();
    let index = line.index();
    // The values of every White ply first: the last unique move must be
    // known before any alternative is classed.
    let mut white = Vec::new();
    for (ply, m) in line.moves.iter().enumerate() {
        let pos = &line.positions[ply];
        if pos.turn() != Color::White {
            continue;
        }
        match values.move_values(pos) {
            Ok(v) => white.push((ply, *m, v)),
            Err(e) => {
                out.stopped = Some(format!("main line not checked past ply {ply}: {e}"));
                break;
            }
        }
    }
    let keeps = |v: &Dtm| v.wdl() == claimed;
    let Some(first_ply) = white.first().map(|(ply, _, _)| *ply) else {
        return out;
    };
    let diagram_ply = line.from_diagram.then_some(first_ply);
    let last_point = white
        .iter()
        .filter(|(_, _, v)| v.iter().filter(|(_, d)| keeps(d)).count() == 1)
        .map(|(ply, _, _)| *ply)
        .next_back();
    for (ply, m, moves) in &white {
        let pos = &line.positions[*ply];
        let san = |mv: &Move| San::from_move(pos, *mv).to_string();
        let number = line.move_number(*ply);
        let played = moves
            .iter()
            .find(|(mv, _)| mv == m)
            .map(|(_, v)| *v)
            .expect("a legal move has a value");
        if !keeps(&played) {
            out.fails = Some(format!(
                "{number}.{} does not keep the {claimed} ({})",
                san(m),
                describe(played)
            ));
            return out;
        }
        for (alt, value) in moves.iter().filter(|(mv, v)| mv != m && keeps(v)) {
            let after = pos.clone().play(*alt).expect("legal");
            let reached = reaches_line(values, &after, &index, claimed, limits);
            let known = known_ending(&Material::of(after.board()), claimed);
            let class = classify(*ply, diagram_ply, last_point, reached, known);
            let why = match (class, reached) {
                (Class::Transposition | Class::WasteOfTime, Reached::Ply(j)) => format!(
                    "best play comes back to the position after {}",
                    ply_label(line, j)
                ),
                (Class::Dual, _) if known => {
                    format!("{} is a known ending", Material::of(after.board()))
                }
                (Class::Dual, _) => "after the author's last unique move".into(),
                (_, _) if diagram_ply == Some(*ply) => "a second solution from the diagram".into(),
                _ => "a second solution where the author's line is forced later".into(),
            };
            out.findings.push(Finding {
                class,
                move_number: number,
                played: san(m),
                alternative: san(alt),
                value: describe(*value),
                why,
            });
        }
    }
    out
}

/// `the diagram`, or the move that led to ply `j` (`2...Rd5`).
pub fn ply_label(line: &MainLine, j: usize) -> String {
    if j == 0 {
        return "the diagram".into();
    }
    let pos = &line.positions[j - 1];
    let san = San::from_move(pos, line.moves[j - 1]);
    let dots = if pos.turn() == Color::White {
        "."
    } else {
        "..."
    };
    format!("{}{dots}{san}", line.move_number(j - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_are_transpositions_or_waste_by_direction() {
        assert_eq!(
            classify(6, Some(0), Some(12), Reached::Ply(9), false),
            Class::Transposition
        );
        assert_eq!(
            classify(6, Some(0), Some(12), Reached::Ply(3), false),
            Class::WasteOfTime
        );
        // Coming back to the very position of the alternative's move.
        assert_eq!(
            classify(6, Some(0), Some(12), Reached::Ply(6), true),
            Class::WasteOfTime
        );
    }

    #[test]
    fn cooks_only_where_the_line_is_the_point() {
        assert_eq!(
            classify(0, Some(0), None, Reached::Nowhere, false),
            Class::Cook
        );
        assert_eq!(
            classify(4, Some(0), Some(8), Reached::Nowhere, false),
            Class::Cook
        );
        // After the last forced move, and in a known ending: duals.
        assert_eq!(
            classify(10, Some(0), Some(8), Reached::Nowhere, false),
            Class::Dual
        );
        assert_eq!(
            classify(4, Some(0), Some(8), Reached::Nowhere, true),
            Class::Dual
        );
        // A known ending wins over the diagram rule: such a "study" has no
        // point to cook.
        assert_eq!(
            classify(0, Some(0), Some(8), Reached::Nowhere, true),
            Class::Dual
        );
    }

    #[test]
    fn a_tail_of_the_line_has_no_diagram() {
        // Where the line enters the tables, its first move is no diagram:
        // only the last unique move makes a point there.
        assert_eq!(
            classify(0, None, None, Reached::Nowhere, false),
            Class::Dual
        );
        assert_eq!(
            classify(0, None, Some(4), Reached::Nowhere, false),
            Class::Cook
        );
    }

    #[test]
    fn known_endings() {
        let m = |k: &str| k.parse::<Material>().unwrap();
        assert!(known_ending(&m("KRvK"), Wdl::Win));
        assert!(known_ending(&m("KBNvK"), Wdl::Win));
        assert!(!known_ending(&m("KRvKR"), Wdl::Win));
        assert!(!known_ending(&m("KPvK"), Wdl::Win));
        assert!(known_ending(&m("KvKN"), Wdl::Draw));
        assert!(!known_ending(&m("KvKP"), Wdl::Draw));
    }
}
