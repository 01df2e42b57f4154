//! Rendering verdicts for people (text) and for tools (JSON Lines, YAML).

use std::fmt::Write;

use anyhow::{Context, Result};
use shakmaty::fen::Fen;
use shakmaty::{File, Rank, Square};

use solvers::verdict::Verdict;

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

/// A text board with White at the bottom, as solvers print it.
fn diagram(fen: &str) -> Option<String> {
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

/// The stipulated length in moves of a direct or self mate.
fn stipulated_moves(v: &Verdict) -> Option<u32> {
    match v.stipulation.as_deref()?.parse().ok()? {
        solvers::Stipulation::Direct { moves } | solvers::Stipulation::SelfMate { moves } => {
            Some(moves)
        }
        _ => None,
    }
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
        let word = match legality.legal {
            Some(true) => "legal",
            Some(false) => "illegal",
            None => "undecided",
        };
        let _ = writeln!(out, "Legality: {word}");
        for reason in &legality.reasons {
            let _ = writeln!(out, "  - {reason}");
        }
        if legality.legal != Some(false) {
            for line in &legality.evidence {
                let _ = writeln!(out, "  checked: {line}");
            }
        }
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

    #[test]
    fn diagram_puts_white_at_the_bottom() {
        let d = diagram("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let lines: Vec<_> = d.lines().collect();
        assert_eq!(lines[1], " 8 | . . . . k . . . |");
        assert_eq!(lines[8], " 1 | . . . . K . . . |");
    }
}
