//! The tablebase stage: the value of a problem position with few units,
//! and what it says about the problem's claim (studies: the result and the
//! main line; direct mates: the length).

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position};

use super::dtm::Dtm;
use super::study::{self, Class, Finding, MainLine, ReturnSearch};
use super::syzygy::SyzygyTables;
use super::tables::DtmTables;
use super::{Material, Wdl, WdlOracle};
use crate::{Goal, Stipulation};

/// Where values come from.
#[derive(Debug)]
pub struct Sources<'a> {
    pub dtm: &'a DtmTables,
    pub syzygy: Option<&'a SyzygyTables>,
    /// Missing DTM tables with at most this many units are generated on
    /// demand (seconds); larger ones only by `cookd tb generate`.
    pub generate_up_to: u32,
}

impl Sources<'_> {
    /// Whether the tables hold positions of `material`: within
    /// `max_pieces`, and a DTM table at hand, one small enough to make on
    /// demand, or a Syzygy table. A study's main line is judged by the
    /// tables from the first position they hold; the engine looks at the
    /// positions before (a five-unit study with no five-unit tables made
    /// is beyond the tables, not unjudged).
    pub fn hold(&self, material: &Material, max_pieces: u32) -> bool {
        let units = material.count();
        units <= max_pieces
            && (units <= self.generate_up_to
                || self.dtm.has(material)
                || self
                    .syzygy
                    .is_some_and(|s| units as usize <= s.max_pieces()))
    }
}

/// `tablebase` in the verdict: about the diagram or, for a study with more
/// units than the tables, the first position of its main line they hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The main-line ply of the position reported on: 0 for the diagram,
    /// later where a study's line enters the tables (then the moves
    /// before are the engine's, and the tables never call it sound).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub from_ply: usize,
    pub material: String,
    /// For the side to move in that position.
    pub wdl: Wdl,
    /// Plies to mate; absent for a draw or when only WDL is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<u16>,
    pub source: String,
    /// The tables the main line was checked with (materials, in the
    /// order the line meets them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<String>,
    /// Alternatives to the claimed line's White moves that keep the
    /// result, each with its class; only cooks make a study cooked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What the stage concluded about the problem, when it could.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Sound,
    /// A second solution: a cook by the study conventions (see
    /// [`super::study`]), or a direct mate shorter than stipulated.
    Cooked,
    /// The claim is wrong: the result does not hold, or the mate is longer.
    Unsound,
}

/// The result of [`judge`] (named as [`crate::proofgame::Outcome`] is:
/// the word is the judgement, the whole is the outcome).
#[derive(Debug, Default)]
pub struct Outcome {
    pub report: Option<Report>,
    pub judgement: Option<Judgement>,
    pub notes: Vec<String>,
}

/// Values `pos` from the sources and checks the stipulation against it.
pub fn judge(
    pos: &Chess,
    stipulation: Stipulation,
    solution: Option<&str>,
    max_pieces: u32,
    sources: &Sources<'_>,
) -> Outcome {
    let mut out = Outcome::default();
    let study = matches!(stipulation, Stipulation::Win | Stipulation::Draw);
    let (line, stop) = match solution {
        Some(text) if study => MainLine::play(pos, &san_tokens(text)),
        _ => MainLine::play(pos, &[]),
    };
    if let Some(token) = stop {
        out.notes.push(format!(
            "tablebase: main line stops at {token:?}, not a legal move"
        ));
    }
    // A position within max_pieces whose table is neither at hand nor
    // made on demand: say how to get it (until then a study is judged from
    // where its line enters the tables at hand).
    if let Some(pos) = line
        .positions
        .iter()
        .find(|p| Material::of(p.board()).count() <= max_pieces)
    {
        let material = Material::of(pos.board());
        if !sources.hold(&material, max_pieces) {
            out.notes.push(format!(
                "tablebase: no {material} table at hand, and {} units are more than generate_up_to ({}) makes on demand; generate it with `cookd tb generate --dir {} {}`",
                material.count(),
                sources.generate_up_to,
                sources.dtm.dir().display(),
                material.normalized().0
            ));
        }
    }
    // A study beyond the tables is judged by them from where its main
    // line enters them (the engine looks at the part before).
    let Some(entry) = (0..line.positions.len())
        .find(|&ply| sources.hold(&Material::of(line.positions[ply].board()), max_pieces))
    else {
        return out;
    };
    let line = line.tail(entry);
    let pos = &line.positions[0];
    let material = Material::of(pos.board());
    if entry > 0 {
        out.notes.push(format!(
            "tablebase: the main line enters the tables ({material}) at ply {entry}; they judge it from there"
        ));
    }
    if !sources.dtm.has(&material) && material.count() <= sources.generate_up_to {
        match sources.dtm.ensure(&material, &|_| {}) {
            Ok(done) if !done.is_empty() => out.notes.push(format!(
                "generated {} missing table(s) for {material} in {}",
                done.len(),
                sources.dtm.dir().display()
            )),
            Ok(_) => {}
            Err(e) => out
                .notes
                .push(format!("could not generate {material}: {e}")),
        }
    }
    let (wdl, dtm, source) = match sources.dtm.try_probe(pos) {
        Ok(dtm) => (dtm.wdl(), Some(dtm), "cookd DTM"),
        Err(dtm_error) => match sources.syzygy.map(|s| s.wdl(pos)) {
            Some(Ok(wdl)) => (wdl, None, "Syzygy"),
            other => {
                let why = match other {
                    Some(Err(e)) => format!("{dtm_error}; {e}"),
                    _ => dtm_error.to_string(),
                };
                out.notes.push(format!(
                    "tablebase: {why}; generate it with `cookd tb generate --dir {} {}`",
                    sources.dtm.dir().display(),
                    material.normalized().0
                ));
                return out;
            }
        },
    };
    let mut report = Report {
        from_ply: entry,
        material: material.to_string(),
        wdl,
        dtm: dtm.and_then(Dtm::plies),
        source: source.to_owned(),
        tables: Vec::new(),
        findings: Vec::new(),
    };
    out.judgement = match stipulation {
        Stipulation::Win | Stipulation::Draw => check_study(
            &line,
            stipulation,
            wdl,
            solution.is_some(),
            sources,
            &mut report,
            &mut out.notes,
        ),
        // Tables count moves to mate, not to stalemate.
        Stipulation::Direct {
            moves,
            goal: Goal::Mate,
        } if pos.turn() == Color::White => check_direct(moves, wdl, dtm, &mut out.notes),
        _ => None,
    };
    out.report = Some(report);
    out
}

fn check_direct(
    moves: u32,
    wdl: Wdl,
    dtm: Option<Dtm>,
    notes: &mut Vec<String>,
) -> Option<Judgement> {
    let wanted = 2 * moves - 1;
    match dtm {
        Some(Dtm::Win(n)) if u32::from(n) == wanted => Some(Judgement::Sound),
        Some(Dtm::Win(n)) if u32::from(n) < wanted => {
            notes.push(format!(
                "tablebase: mate in {} already, shorter than stipulated",
                n.div_ceil(2)
            ));
            Some(Judgement::Cooked)
        }
        Some(Dtm::Win(n)) => {
            notes.push(format!(
                "tablebase: the fastest mate takes {} moves",
                n.div_ceil(2)
            ));
            Some(Judgement::Unsound)
        }
        Some(other) => {
            notes.push(format!("tablebase: no mate at all ({other} for White)"));
            Some(Judgement::Unsound)
        }
        None if wdl != Wdl::Win => {
            notes.push(format!("tablebase: no mate at all ({wdl} for White)"));
            Some(Judgement::Unsound)
        }
        None => None,
    }
}

/// The result a study claims: a win for `+`, a draw for `=`.
pub fn claimed_result(stipulation: Stipulation) -> Wdl {
    if stipulation == Stipulation::Win {
        Wdl::Win
    } else {
        Wdl::Draw
    }
}

/// The main-line plies whose positions the tables do not hold (see
/// [`Sources::hold`]): the engine's part of the line.
pub fn beyond_tables(line: &MainLine, sources: &Sources<'_>, max_pieces: u32) -> Vec<usize> {
    (0..line.moves.len())
        .filter(|&ply| !sources.hold(&Material::of(line.positions[ply].board()), max_pieces))
        .collect()
}

fn check_study(
    line: &MainLine,
    stipulation: Stipulation,
    wdl: Wdl,
    has_solution: bool,
    sources: &Sources<'_>,
    report: &mut Report,
    notes: &mut Vec<String>,
) -> Option<Judgement> {
    let claimed = claimed_result(stipulation);
    let pos = &line.positions[0];
    let white_value = if pos.turn() == Color::White {
        wdl
    } else {
        wdl.flip()
    };
    if white_value != claimed {
        notes.push(format!(
            "tablebase: the position{} is a {white_value} for White, not a {claimed}",
            if line.from_diagram {
                ""
            } else {
                " where the main line enters the tables"
            }
        ));
        return Some(Judgement::Unsound);
    }
    // Only a check from the diagram can call a study sound; from where
    // the line enters the tables it can find a cook or a failure.
    let sound = line.from_diagram.then_some(Judgement::Sound);
    if !has_solution {
        return sound;
    }
    if report.source != "cookd DTM" {
        notes.push("tablebase: the main line is checked only with DTM tables".into());
        return sound;
    }
    report.tables = line_materials(line);
    let check = study::check_line(sources.dtm, line, claimed, ReturnSearch::default());
    if let Some(why) = check.stopped {
        notes.push(format!("tablebase: {why}"));
    }
    let cooked = check.findings.iter().any(|f| f.class == Class::Cook);
    report.findings = check.findings;
    if let Some(fails) = check.fails {
        notes.push(format!("tablebase: {fails}"));
        return Some(Judgement::Unsound);
    }
    if cooked {
        Some(Judgement::Cooked)
    } else {
        sound
    }
}

/// The materials the main line passes through, in order: the tables that
/// decided it.
fn line_materials(line: &MainLine) -> Vec<String> {
    let mut seen = Vec::new();
    for pos in &line.positions {
        let m = Material::of(pos.board()).to_string();
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    seen
}

/// The moves of a solution text, without move numbers, annotations,
/// comments, variations and results.
pub fn san_tokens(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split_whitespace()
        .filter(|t| !matches!(*t, "1-0" | "0-1" | "1/2-1/2" | "+-" | "-+" | "=" | "-"))
        .map(|t| {
            t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .trim_end_matches(['!', '?', '+', '#'])
                .to_owned()
        })
        .filter(|t| {
            !t.is_empty() && !matches!(t.as_str(), "1-0" | "0-1" | "=" | "-" | "+-" | "1/2-1/2")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solution_text_to_moves() {
        assert_eq!(
            san_tokens("1.Kb2! Kd3 (1...Kd4 2.Rd1+) 2.Rc8+ Kd2 3.Rd8+! 1-0"),
            ["Kb2", "Kd3", "Rc8", "Kd2", "Rd8"]
        );
        assert_eq!(san_tokens("1...Kh7 2. Qg7#"), ["Kh7", "Qg7"]);
    }
}
