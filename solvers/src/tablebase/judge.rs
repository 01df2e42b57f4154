//! The tablebase stage: the value of a problem position with few units,
//! and what it says about the problem's claim (studies: the result and the
//! main line; direct mates: the length).

use serde::Serialize;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

use super::dtm::Dtm;
use super::syzygy::SyzygyTables;
use super::tables::DtmTables;
use super::{Material, Wdl, WdlOracle};
use crate::Stipulation;

/// Where values come from.
#[derive(Debug)]
pub struct Sources<'a> {
    pub dtm: &'a DtmTables,
    pub syzygy: Option<&'a SyzygyTables>,
    /// Missing DTM tables with at most this many units are generated on
    /// demand (seconds); larger ones only by `cookd tb generate`.
    pub generate_up_to: u32,
}

/// `tablebase` in the verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub material: String,
    /// For the side to move in the diagram.
    pub wdl: Wdl,
    /// Plies to mate; absent for a draw or when only WDL is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<u16>,
    pub source: &'static str,
    /// Alternatives to the claimed line's White moves, one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

/// What the stage concluded about the problem, when it could.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Sound,
    /// A second solution: another White move keeps the result as fast, or
    /// a direct mate is shorter than stipulated.
    Cooked,
    /// The claim is wrong: the result does not hold, or the mate is longer.
    Unsound,
}

#[derive(Debug, Default)]
pub struct Judgement {
    pub report: Option<Report>,
    pub outcome: Option<Outcome>,
    pub notes: Vec<String>,
}

/// Values `pos` from the sources and checks the stipulation against it.
pub fn judge(
    pos: &Chess,
    stipulation: Stipulation,
    solution: Option<&str>,
    max_pieces: u32,
    sources: &Sources<'_>,
) -> Judgement {
    let mut out = Judgement::default();
    let material = Material::of(pos.board());
    if material.count() > max_pieces {
        return out;
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
        material: material.to_string(),
        wdl,
        dtm: dtm.and_then(Dtm::plies),
        source,
        findings: Vec::new(),
    };
    out.outcome = match stipulation {
        Stipulation::Win | Stipulation::Draw => check_study(
            pos,
            stipulation,
            wdl,
            solution,
            sources,
            &mut report,
            &mut out.notes,
        ),
        Stipulation::Direct { moves } if pos.turn() == Color::White => {
            check_direct(moves, wdl, dtm, &mut out.notes)
        }
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
) -> Option<Outcome> {
    let wanted = 2 * moves - 1;
    match dtm {
        Some(Dtm::Win(n)) if u32::from(n) == wanted => Some(Outcome::Sound),
        Some(Dtm::Win(n)) if u32::from(n) < wanted => {
            notes.push(format!(
                "tablebase: mate in {} already, shorter than stipulated",
                n.div_ceil(2)
            ));
            Some(Outcome::Cooked)
        }
        Some(Dtm::Win(n)) => {
            notes.push(format!(
                "tablebase: the fastest mate takes {} moves",
                n.div_ceil(2)
            ));
            Some(Outcome::Unsound)
        }
        Some(other) => {
            notes.push(format!("tablebase: no mate at all ({other} for White)"));
            Some(Outcome::Unsound)
        }
        None if wdl != Wdl::Win => {
            notes.push(format!("tablebase: no mate at all ({wdl} for White)"));
            Some(Outcome::Unsound)
        }
        None => None,
    }
}

fn check_study(
    pos: &Chess,
    stipulation: Stipulation,
    wdl: Wdl,
    solution: Option<&str>,
    sources: &Sources<'_>,
    report: &mut Report,
    notes: &mut Vec<String>,
) -> Option<Outcome> {
    let claimed = if stipulation == Stipulation::Win {
        Wdl::Win
    } else {
        Wdl::Draw
    };
    let white_value = if pos.turn() == Color::White {
        wdl
    } else {
        wdl.flip()
    };
    if white_value != claimed {
        notes.push(format!(
            "tablebase: the position is a {white_value} for White, not a {claimed}"
        ));
        return Some(Outcome::Unsound);
    }
    let Some(solution) = solution else {
        return Some(Outcome::Sound);
    };
    if report.source != "cookd DTM" {
        notes.push("tablebase: the main line is checked only with DTM tables".into());
        return Some(Outcome::Sound);
    }
    let mut outcome = Outcome::Sound;
    let mut pos = pos.clone();
    for (ply, token) in san_tokens(solution).into_iter().enumerate() {
        let Some(m) = token
            .parse::<San>()
            .ok()
            .and_then(|san| san.to_move(&pos).ok())
        else {
            notes.push(format!(
                "tablebase: main line stops at {token:?}, not a legal move"
            ));
            break;
        };
        if pos.turn() == Color::White {
            let values = match sources.dtm.move_values(&pos) {
                Ok(v) => v,
                Err(e) => {
                    notes.push(format!(
                        "tablebase: main line not checked past ply {ply}: {e}"
                    ));
                    break;
                }
            };
            let played = values
                .iter()
                .find(|(mv, _)| *mv == m)
                .map(|(_, v)| *v)
                .expect("legal");
            let label = |mv| San::from_move(&pos, mv).to_string();
            let number = ply / 2 + 1;
            if played.wdl() != claimed {
                report.findings.push(format!(
                    "{number}.{} does not keep the {claimed} ({played})",
                    label(m)
                ));
                return Some(Outcome::Unsound);
            }
            for &(alt, value) in &values {
                if alt == m || value.wdl() != claimed {
                    continue;
                }
                // In a win, a slower alternative is a dual; as fast or
                // faster, a second solution. Every drawing alternative in
                // a draw study is a second solution.
                let cook = claimed == Wdl::Draw || value >= played;
                report.findings.push(format!(
                    "{} at move {number}: {} instead of {} also keeps the {claimed} ({value} vs {played})",
                    if cook { "cook" } else { "dual" },
                    label(alt),
                    label(m)
                ));
                if cook {
                    outcome = Outcome::Cooked;
                }
            }
        }
        pos.play_unchecked(m);
    }
    Some(outcome)
}

/// The moves of a solution text, without move numbers, annotations,
/// comments, variations and results.
fn san_tokens(text: &str) -> Vec<String> {
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
