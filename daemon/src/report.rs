//! Rendering verdicts for people (text) and for tools (JSON Lines, YAML).

use std::fmt::Write;

use anyhow::{Context, Result};
use shakmaty::fen::Fen;
use shakmaty::{File, Rank, Square};

use solvers::verdict::{Kind, Verdict};

/// Output formats of `cookd solve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Yaml,
    Json,
}

/// One verdict in the requested format, ending with a newline.
pub fn render(verdict: &Verdict, format: Format) -> Result<String> {
    Ok(match format {
        Format::Json => {
            let mut line = serde_json::to_string(verdict).context("serialising verdict")?;
            line.push('\n');
            line
        }
        Format::Yaml => {
            let doc = yaml_serde::to_string(verdict).context("serialising verdict")?;
            format!("---\n{doc}")
        }
        Format::Text => text(verdict),
    })
}

/// One line per twinned entry among `verdicts` (a file's, in order): the
/// entry is cooked when any twin is, sound when every twin is, and
/// otherwise as its twins say, e.g.
/// `Entry x.0: cooked (a sound, b cooked, c sound)`.
pub fn entries(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    let mut rest = verdicts;
    while let Some(first) = rest.first() {
        let Some(label) = first.twin.as_ref().map(|t| t.label.as_str()) else {
            rest = &rest[1..];
            continue;
        };
        let entry = first.id.strip_suffix(label).unwrap_or(&first.id);
        let same_entry = |v: &Verdict| {
            v.twin
                .as_ref()
                .is_some_and(|t| v.id.strip_suffix(t.label.as_str()) == Some(entry))
        };
        let n = rest.iter().take_while(|v| same_entry(v)).count().max(1);
        let (twins, after) = rest.split_at(n);
        let kinds: Vec<Kind> = twins.iter().map(|v| v.verdict).collect();
        let whole = if kinds.contains(&Kind::Cooked) {
            "cooked".to_string()
        } else if kinds.iter().all(|k| *k == Kind::Sound) {
            "sound".to_string()
        } else {
            "not sound in every twin".to_string()
        };
        let each: Vec<String> = twins
            .iter()
            .map(|v| {
                let label = v.twin.as_ref().map_or("", |t| t.label.as_str());
                format!("{label} {}", v.verdict)
            })
            .collect();
        let _ = writeln!(out, "Entry {entry}: {whole} ({})", each.join(", "));
        rest = after;
    }
    out
}

/// A text board with White at the bottom, as solvers print it.
pub fn diagram(fen: &str) -> Option<String> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    let mut out = String::from("   +-----------------+\n");
    for rank in Rank::ALL.into_iter().rev() {
        let _ = write!(out, " {} |", rank.char());
        for file in File::ALL {
            let c = board
                .piece_at(Square::from_coords(file, rank))
                .map_or('.', |p| p.char());
            let _ = write!(out, " {c}");
        }
        out.push_str(" |\n");
    }
    out.push_str("   +-----------------+\n     a b c d e f g h\n");
    Some(out)
}

/// The one-line headline of a report: the verdict and, for a flaw, what
/// it is, e.g. `Cooked: 2 keys 1.Qf2! 1.Rh3!` or `Sound: key 1.Qg4!`.
pub fn headline(v: &Verdict) -> String {
    let keys = |keys: &[solvers::mate::Key]| {
        keys.iter()
            .map(|k| format!("1.{}!", k.san))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let solutions = |n: usize| {
        if n == 1 {
            "1 solution".to_owned()
        } else {
            format!("{n} solutions")
        }
    };
    match v.verdict {
        Kind::Sound => match (&v.keys, &v.solutions) {
            (Some(k), _) if !k.is_empty() => format!("Sound: key {}", keys(k)),
            (_, Some(lines)) => format!("Sound: {}", solutions(lines.len())),
            _ => "Sound".to_owned(),
        },
        Kind::Cooked => match (&v.keys, &v.solutions) {
            (Some(k), _) => {
                let stipulated = stipulated_moves(v);
                let short: Vec<_> = k
                    .iter()
                    .filter(|k| Some(k.length) < stipulated)
                    .cloned()
                    .collect();
                if k.len() == 1 && short.len() == 1 {
                    format!(
                        "Cooked: short solution {} (mate in {})",
                        keys(&short),
                        short[0].length
                    )
                } else {
                    format!("Cooked: {} keys {}", k.len(), keys(k))
                }
            }
            (None, Some(lines)) => match v.n_solutions {
                Some(intended) => format!(
                    "Cooked: {} where {intended} intended",
                    solutions(lines.len())
                ),
                None => format!("Cooked: {}", solutions(lines.len())),
            },
            _ => "Cooked".to_owned(),
        },
        Kind::Illegal => {
            let legality = v.legality.as_ref().map(|l| l.summary());
            match legality {
                Some(line) => capitalised(&line),
                None => "Illegal".to_owned(),
            }
        }
        Kind::NoSolution => "No solution".to_owned(),
        Kind::Incomplete => match (&v.solutions, v.n_solutions) {
            (Some(lines), Some(intended)) => format!(
                "Incomplete: {} where {intended} intended",
                solutions(lines.len())
            ),
            _ => "Incomplete".to_owned(),
        },
        Kind::Unsolved => "Unsolved: the work was not finished".to_owned(),
        Kind::Error => match &v.error {
            Some(error) => format!("Error: {error}"),
            None => "Error".to_owned(),
        },
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The stipulated length in moves of a direct or self mate.
pub fn stipulated_moves(v: &Verdict) -> Option<u32> {
    match v.stipulation.as_deref()?.parse().ok()? {
        solvers::Stipulation::Direct { moves, .. }
        | solvers::Stipulation::SelfMate { moves, .. } => Some(moves),
        _ => None,
    }
}

/// A sound mate's quality in one line: the score, then each feature's
/// points, e.g. `68.0 (tempo 10.0, units 39.0, king_on_edge -10.0)`.
pub fn quality_line(v: &Verdict) -> Option<String> {
    let q = v.quality.as_ref()?;
    let features: Vec<String> = q
        .features
        .iter()
        .map(|f| format!("{} {:.1}", f.name, f.points))
        .collect();
    Some(format!("{:.1} ({})", q.score, features.join(", ")))
}

/// The repairs, one line each: `+wQa7: 1.Qf2! score 68.0, FEN ...`.
pub fn repair_lines(v: &Verdict) -> Vec<String> {
    v.repairs
        .iter()
        .map(|r| {
            format!(
                "{}: 1.{}! score {:.1}, FEN {}",
                r.changes.join(" "),
                r.key,
                r.score,
                r.fen
            )
        })
        .collect()
}

/// The human report: what a judge reads in the outbox or on the terminal.
pub fn text(v: &Verdict) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== {} ({}, problem {})", v.id, v.file, v.index + 1);
    if let Some(twin) = &v.twin {
        let _ = writeln!(out, "Twin: {}", twin.heading());
    }
    if !v.authors.is_empty() {
        let _ = writeln!(out, "Author: {}", v.authors.join("; "));
    }
    if let Some(source) = &v.source {
        let _ = writeln!(out, "Source: {source}");
    }
    if let Some(fen) = &v.fen {
        if let Some(board) = diagram(fen) {
            out.push_str(&board);
        }
        let _ = writeln!(out, "FEN: {fen}");
    }
    if let Some(stip) = &v.stipulation {
        let _ = writeln!(out, "Stipulation: {stip}");
    }
    if let Some(error) = &v.error {
        let _ = writeln!(out, "Error: {error}");
    }
    if let Some(legality) = &v.legality {
        // One line; the evidence (what was checked) stays in the JSON.
        let _ = writeln!(out, "Legality: {}", legality.summary());
    }
    // A sound problem's tree starts with its key; otherwise list the keys.
    if let Some(keys) = v.keys.as_ref().filter(|_| v.tree.is_none()) {
        for key in keys {
            let short = if Some(key.length) < stipulated_moves(v) {
                " (short solution)"
            } else {
                ""
            };
            let _ = writeln!(out, "Key: 1.{}! mates in {}{short}", key.san, key.length);
        }
    }
    if let Some(tree) = &v.tree {
        out.push_str(&solvers::mate::tree::render(tree));
    }
    if let Some(quality) = quality_line(v) {
        let _ = writeln!(out, "Quality: {quality}");
    }
    for repair in repair_lines(v) {
        let _ = writeln!(out, "Repair: {repair}");
    }
    if let Some(solutions) = &v.solutions {
        let _ = writeln!(out, "Solutions: {}", solutions.len());
        for line in solutions {
            let _ = writeln!(out, "  {}", line.san);
        }
    }
    if let Some(tb) = &v.tablebase {
        let _ = writeln!(
            out,
            "Tablebase: {} for the side to move ({}, {})",
            tb.wdl, tb.material, tb.source
        );
        if !tb.tables.is_empty() {
            let _ = writeln!(out, "  main line checked with: {}", tb.tables.join(", "));
        }
        for finding in &tb.findings {
            let _ = writeln!(out, "  {finding}");
        }
    }
    // The engine's findings are in the notes, labelled as suspected.
    for note in &v.notes {
        let _ = writeln!(out, "Note: {note}");
    }
    let _ = writeln!(out, "Verdict: {}", v.verdict);
    if let (Some(twin), solvers::verdict::Kind::Cooked) = (&v.twin, v.verdict) {
        // A cook in one twin is a cook of the whole entry.
        let _ = writeln!(
            out,
            "Entry: cooked (twin {} is cooked, so the whole twinned entry is)",
            twin.label
        );
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry line: cooked when one twin is, one line per twinned
    /// entry, none for an entry without twins.
    #[test]
    fn a_cooked_twin_makes_its_entry_cooked() {
        let file = "beginproblem\npieces white kg1 ra1 black kh8 pg7h7\nstipulation #1\n\
                    twin add white rb2\nnext\n\
                    pieces white kg1 ra1 black kh8 pg7h7\nstipulation #1\nendproblem\n";
        let config = crate::config::Config::builtin();
        let verdicts = crate::pipeline::judge_file("tw.pop", file.as_bytes(), &config.stages);
        assert_eq!(
            entries(&verdicts),
            "Entry tw.0: cooked (a sound, b cooked)\n"
        );
        assert_eq!(entries(&verdicts[..1]), "Entry tw.0: sound (a sound)\n");
        assert_eq!(entries(&verdicts[2..]), "");
    }

    #[test]
    fn diagram_puts_white_at_the_bottom() {
        let d = diagram("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let lines: Vec<_> = d.lines().collect();
        assert_eq!(lines[1], " 8 | . . . . k . . . |");
        assert_eq!(lines[8], " 1 | . . . . K . . . |");
    }

    fn judge(name: &str, content: &str) -> Verdict {
        let stages = crate::config::Config::builtin().stages;
        crate::pipeline::judge_file(name, content.as_bytes(), &stages).remove(0)
    }

    #[test]
    fn legality_is_one_line_and_the_headline_names_the_flaw() {
        // Two white kings, no white queen.
        let v = judge(
            "two.fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n",
        );
        let report = text(&v);
        let lines: Vec<_> = report.lines().filter(|l| l.contains("Legality")).collect();
        assert_eq!(lines.len(), 1, "{report}");
        assert!(lines[0].starts_with("Legality: illegal: "), "{report}");
        assert!(!report.contains("checked:"), "{report}");
        assert!(headline(&v).starts_with("Illegal: "), "{}", headline(&v));

        // Schöpfer 1927 (examples/schoepfer.yaml): sound, key 1.Qf2!; a
        // published problem with no flaw and no short proof game.
        let v = judge("s.fen", "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n");
        assert_eq!(headline(&v), "Sound: key 1.Qf2!");
        let report = text(&v);
        assert!(report.contains("\nLegality: no flaw found\n"), "{report}");
        assert!(!report.contains("undecided"), "{report}");

        // Three keys (tests/support/spool.rs's COOKED).
        let v = judge("c.fen", "nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n");
        assert_eq!(headline(&v), "Cooked: 3 keys 1.Rf1! 1.Rg1! 1.Rxh6!");
    }
}
