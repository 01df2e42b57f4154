//! The cook report as HTML, for the mail's HTML part: a headline, the
//! diagram (an image the caller supplies, by Content-ID in mail), then the
//! solution, tries, duals and legality, each a line or a short list.
//!
//! Everything that comes from the problem file (id, file name, authors,
//! source, stipulation, errors) or from the solvers is escaped: the file is
//! the submitter's, and a mail client must show it as text.

use std::fmt::Write;

use solvers::verdict::Verdict;

use crate::diagram::escape;
use crate::report;

/// The HTML document of `v`'s report; `image` is the `src` of the diagram
/// (e.g. `cid:diagram`), `None` when the verdict has no position.
pub fn report(v: &Verdict, image: Option<&str>, job: &str) -> String {
    let mut out = String::new();
    let headline = report::headline(v);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\
         <title>{}</title></head>\n\
         <body style=\"font-family: Georgia, 'Times New Roman', serif; color: #111; \
         background: #fff; max-width: 44em; margin: 1em;\">\n\
         <h1 style=\"font-size: 1.35em; margin: 0 0 0.2em;\">{}</h1>\n",
        escape(&headline),
        escape(&headline)
    );
    let _ = write!(
        out,
        "<p style=\"margin: 0 0 1em; color: #444;\">{} &middot; {}, problem {}",
        escape(&v.id),
        escape(&v.file),
        v.index + 1
    );
    if !v.authors.is_empty() {
        let _ = write!(out, "<br>{}", escape(&v.authors.join("; ")));
    }
    if let Some(source) = &v.source {
        let _ = write!(out, "<br>{}", escape(source));
    }
    out.push_str("</p>\n");
    if let Some(src) = image {
        let (width, height) = crate::diagram::size();
        let alt = format!(
            "Diagram: {} {}",
            v.stipulation.as_deref().unwrap_or(""),
            v.fen.as_deref().unwrap_or("")
        );
        let _ = writeln!(
            out,
            "<p><img src=\"{}\" width=\"{width}\" height=\"{height}\" alt=\"{}\"></p>",
            escape(src),
            escape(&alt)
        );
    }
    out.push_str("<table style=\"border-collapse: collapse; margin-bottom: 1em;\">\n");
    let row = |out: &mut String, label: &str, value: &str| {
        let _ = writeln!(
            out,
            "<tr><th style=\"text-align: left; vertical-align: top; padding: 0.15em 1em 0.15em 0;\">\
             {label}</th><td style=\"padding: 0.15em 0;\">{}</td></tr>",
            escape(value)
        );
    };
    if let Some(stip) = &v.stipulation {
        row(&mut out, "Stipulation", stip);
    }
    if let Some(legality) = &v.legality {
        row(&mut out, "Legality", &legality.summary());
    }
    if let Some(keys) = &v.keys {
        let list: Vec<_> = keys
            .iter()
            .map(|k| {
                let short = if Some(k.length) < report::stipulated_moves(v) {
                    " (short solution)"
                } else {
                    ""
                };
                format!("1.{}! mates in {}{short}", k.san, k.length)
            })
            .collect();
        let label = if keys.len() == 1 { "Key" } else { "Keys" };
        row(&mut out, label, &list.join(", "));
    }
    if let Some(tries) = &v.tries {
        let list: Vec<_> = tries
            .iter()
            .map(|t| format!("1.{}? 1...{}!", t.san, t.refutation_san))
            .collect();
        row(&mut out, "Tries", &none_or(&list));
    }
    if let Some(duals) = &v.duals {
        let list: Vec<_> = duals
            .iter()
            .map(|d| {
                format!(
                    "{} {} ({})",
                    d.line,
                    d.continuations.join("/"),
                    d.kind.as_str()
                )
            })
            .collect();
        row(&mut out, "Duals", &none_or(&list));
    }
    if let Some(quality) = report::quality_line(v) {
        row(&mut out, "Quality", &quality);
    }
    if let Some(error) = &v.error {
        row(&mut out, "Error", error);
    }
    if let Some(fen) = &v.fen {
        row(&mut out, "FEN", fen);
    }
    out.push_str("</table>\n");
    let pre = |out: &mut String, title: &str, text: &str| {
        let _ = writeln!(
            out,
            "<h2 style=\"font-size: 1.1em; margin: 1em 0 0.3em;\">{title}</h2>\n\
             <pre style=\"font-family: Menlo, Consolas, 'DejaVu Sans Mono', monospace; \
             font-size: 0.95em; margin: 0;\">{}</pre>",
            escape(text)
        );
    };
    if let Some(tree) = &v.tree {
        pre(&mut out, "Solution", &solvers::mate::tree::render(tree));
    }
    if !v.repairs.is_empty() {
        pre(&mut out, "Repairs", &report::repair_lines(v).join("\n"));
    }
    if let Some(solutions) = &v.solutions {
        let lines: Vec<_> = solutions.iter().map(|l| l.san.as_str()).collect();
        let title = if lines.len() == 1 {
            "Solution"
        } else {
            "Solutions"
        };
        pre(&mut out, title, &lines.join("\n"));
    }
    if let Some(tb) = &v.tablebase {
        let mut text = format!(
            "{} for the side to move ({}, {})",
            tb.wdl, tb.material, tb.source
        );
        for finding in &tb.findings {
            let _ = write!(text, "\n{finding}");
        }
        pre(&mut out, "Tablebase", &text);
    }
    if !v.notes.is_empty() {
        pre(&mut out, "Notes", &v.notes.join("\n"));
    }
    let _ = writeln!(
        out,
        "<p style=\"margin-top: 1.5em; color: #666; font-size: 0.85em;\">Verdict: {}. \
         Job {} (sha256 of the file). The verdict is attached as JSON.</p>\n</body></html>",
        escape(v.verdict.as_str()),
        escape(job)
    );
    out
}

/// The items joined by commas, or `none`.
pub fn none_or(list: &[String]) -> String {
    if list.is_empty() {
        "none".to_owned()
    } else {
        list.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(content: &str) -> Verdict {
        let stages = crate::config::Config::builtin().stages;
        crate::pipeline::judge_file("p.fen", content.as_bytes(), &stages).remove(0)
    }

    #[test]
    fn a_sound_direct_mate_shows_its_key_tree_and_tries() {
        // Schöpfer 1927 (examples/schoepfer.yaml).
        let v = judge("8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n");
        let html = report(&v, Some("cid:x"), "job");
        assert!(
            html.contains(
                "<h1 style=\"font-size: 1.35em; margin: 0 0 0.2em;\">Sound: key 1.Qf2!</h1>"
            ),
            "{html}"
        );
        assert!(html.contains("<img src=\"cid:x\""), "{html}");
        assert!(html.contains(">no flaw found</td>"), "{html}");
        assert!(html.contains(">Solution</h2>"), "{html}");
        assert!(html.contains("1.Qf2! "), "{html}");
        assert!(html.contains(">Tries</th>"), "{html}");
        assert!(html.contains(">Duals</th>"), "{html}");
        assert!(
            html.contains(">Quality</th><td style=\"padding: 0.15em 0;\">17.0 ("),
            "{html}"
        );
    }

    #[test]
    fn a_cooked_direct_mate_lists_its_repairs() {
        // dm012 without its pawn g7, no solution given: any one key will
        // do, and the repairs are listed with theirs.
        let v = judge("nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n");
        assert!(!v.repairs.is_empty());
        let html = report(&v, None, "job");
        assert!(html.contains(">Repairs</h2>"), "{html}");
        let first = &v.repairs[0];
        let line = format!("{}: 1.{}! score ", first.changes.join(" "), first.key);
        assert!(html.contains(&escape(&line)), "{html}");
    }

    #[test]
    fn a_proof_game_is_legal_in_one_line_with_its_solution() {
        // After 1.e4 e5: SPG 2, proved legal by the game itself.
        let v = judge("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 ; SPG 2\n");
        let html = report(&v, None, "job");
        assert!(
            html.contains(">legal (proof game of 2 plies)</td>"),
            "{html}"
        );
        assert!(html.contains("1.e4 e5"), "{html}");
        assert!(!html.contains("<img"), "{html}");
    }
}
