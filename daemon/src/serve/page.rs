//! The web view's HTML: the tourney table and the problem page, built as
//! plain strings. Every text from the journal (file names, ids, authors,
//! sources, reports, the submitted file) goes through [`escape`], and every
//! value in a link through [`url_encode`] first: the files are the
//! submitters', and a browser must show them as text.

use std::fmt::Write;

use serde_json::Value;

use super::query::{Filter, Page, Problem, Row};
use super::Params;
use crate::config::VERDICT_WORDS;
use crate::diagram::escape;
use crate::html::none_or;
use crate::journal::SearchProgress;

/// Thumbnail width in the table, in CSS pixels (the diagram scaled down).
const THUMB_WIDTH: f32 = 96.0;

const STYLE: &str = "body { font-family: Georgia, 'Times New Roman', serif; color: #111; \
    background: #fff; margin: 1em 2em; }
h1 { font-size: 1.4em; margin: 0 0 0.5em; }
h2 { font-size: 1.1em; margin: 1.2em 0 0.3em; }
a { color: #124; }
form { margin: 0 0 1em; }
form label { margin-right: 1em; }
table.problems { border-collapse: collapse; }
table.problems th, table.problems td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; \
    text-align: left; vertical-align: middle; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th.label { text-align: left; vertical-align: top; padding: 0.15em 1em 0.15em 0; }
.verdict { font-weight: bold; }
.verdict.v-sound { color: #165d1c; }
.verdict.v-cooked, .verdict.v-illegal { color: #a01010; }
.verdict.v-no_solution, .verdict.v-incomplete { color: #8a4b00; }
.verdict.v-unsolved, .verdict.v-error { color: #555; }
pre { font-family: Menlo, Consolas, 'DejaVu Sans Mono', monospace; font-size: 0.95em; \
    background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
nav { margin: 1em 0; }
nav a { margin-right: 1em; }
";

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head>\n<body>\n",
        escape(title)
    );
}

/// Percent-encoding of a query value: everything but the unreserved
/// characters of RFC 3986.
pub fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// The query string of `params` with `page` (absent values left out).
pub fn query_string(params: &Params, page: Option<u32>) -> String {
    let mut parts = Vec::new();
    for (key, value) in [
        ("verdict", &params.verdict),
        ("file", &params.file),
        ("since", &params.since),
        ("until", &params.until),
    ] {
        if let Some(value) = value {
            parts.push(format!("{key}={}", url_encode(value)));
        }
    }
    if let Some(page) = page {
        parts.push(format!("page={page}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

fn thumbnail(out: &mut String, run: i64, index: i64, width: f32, alt: &str) {
    let (w, h) = crate::diagram::size();
    let _ = write!(
        out,
        "<img src=\"/diagram/{run}/{index}\" width=\"{}\" height=\"{}\" alt=\"{}\">",
        width.round(),
        (h * width / w).round(),
        escape(alt)
    );
}

/// The tourney table: the filter form, one row per verdict, paging links.
pub fn table(params: &Params, filter: &Filter, page: &Page) -> String {
    let mut out = String::new();
    head(&mut out, "cookd: tourney");
    out.push_str("<h1>cookd: the tourney</h1>\n<form method=\"get\" action=\"/\">\n");
    out.push_str("<label>Verdict <select name=\"verdict\"><option value=\"\">any</option>");
    for word in VERDICT_WORDS {
        let selected = if filter.verdict.as_deref() == Some(word) {
            " selected"
        } else {
            ""
        };
        let _ = write!(out, "<option value=\"{word}\"{selected}>{word}</option>");
    }
    out.push_str("</select></label>\n");
    let field = |out: &mut String, label: &str, name: &str, kind: &str, value: &Option<String>| {
        let _ = writeln!(
            out,
            "<label>{label} <input type=\"{kind}\" name=\"{name}\" value=\"{}\"></label>",
            escape(value.as_deref().unwrap_or(""))
        );
    };
    field(&mut out, "File", "file", "text", &params.file);
    field(&mut out, "From", "since", "date", &params.since);
    field(&mut out, "To", "until", "date", &params.until);
    out.push_str("<button type=\"submit\">Filter</button> <a href=\"/\">all</a>\n</form>\n");

    let pages = page.total.div_ceil(u64::from(page.per_page)).max(1);
    let _ = writeln!(
        out,
        "<p id=\"count\">{} verdict{}, newest first; page {} of {pages}.</p>",
        page.total,
        if page.total == 1 { "" } else { "s" },
        page.page
    );
    in_progress(&mut out, &page.in_progress);
    out.push_str(
        "<table class=\"problems\" id=\"problems\"><thead><tr><th>Diagram</th>\
         <th>Judged (UTC)</th><th>File</th><th>Id</th><th>Stipulation</th><th>Verdict</th>\
         <th>ms</th></tr></thead>\n<tbody>\n",
    );
    for row in &page.rows {
        table_row(&mut out, row);
    }
    out.push_str("</tbody></table>\n<nav>");
    if page.page > 1 {
        let _ = write!(
            out,
            "<a rel=\"prev\" href=\"/{}\">&larr; newer</a>",
            query_string(params, Some(page.page - 1))
        );
    }
    if u64::from(page.page) < pages {
        let _ = write!(
            out,
            "<a rel=\"next\" href=\"/{}\">older &rarr;</a>",
            query_string(params, Some(page.page + 1))
        );
    }
    let _ = writeln!(
        out,
        "<a href=\"/api/problems{}\">JSON</a></nav>\n</body></html>",
        query_string(params, Some(page.page))
    );
    out
}

/// The searches under way, above the table: work items done of all and
/// the time left at the rate so far; nothing when there are none.
fn in_progress(out: &mut String, searches: &[SearchProgress]) {
    if searches.is_empty() {
        return;
    }
    out.push_str(
        "<h2>In progress</h2>\n<table class=\"problems\" id=\"progress\"><thead><tr>\
         <th>File</th><th>Id</th><th>Length</th><th>Work items done</th><th>Left</th>\
         <th>Updated (UTC)</th></tr></thead>\n<tbody>\n",
    );
    for s in searches {
        let percent = if s.items > 0 {
            100.0 * s.done as f64 / s.items as f64
        } else {
            0.0
        };
        let left = s
            .left_s
            .map_or("unknown".to_owned(), |l| format!("about {}", duration(l)));
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{} plies</td>\
             <td class=\"num\">{} of {} ({percent:.0} %)</td><td class=\"num\">{left}</td>\
             <td>{}</td></tr>",
            escape(&s.file),
            escape(&s.problem_id),
            s.plies,
            s.done,
            s.items,
            escape(&s.updated)
        );
    }
    out.push_str("</tbody></table>\n<h2>Verdicts</h2>\n");
}

/// Seconds as people read them: `42 s`, `7 min`, `3.5 h`.
fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

fn table_row(out: &mut String, row: &Row) {
    let link = format!("/problem/{}/{}", row.run, row.index);
    let _ = write!(
        out,
        "<tr class=\"v-{v}\" data-verdict=\"{v}\"><td><a href=\"{link}\">",
        v = escape(&row.verdict)
    );
    if row.diagram {
        thumbnail(
            out,
            row.run,
            row.index,
            THUMB_WIDTH,
            &format!("diagram of {}", row.id),
        );
    } else {
        out.push_str("(no diagram)");
    }
    let file_filter = query_string(
        &Params {
            file: Some(row.file.clone()),
            ..Params::default()
        },
        None,
    );
    let ms = row.ms.map_or(String::new(), |ms| format!("{ms:.0}"));
    let _ = writeln!(
        out,
        "</a></td><td>{}</td><td><a href=\"/{file_filter}\">{}</a></td>\
         <td><a href=\"{link}\">{}</a></td><td>{}</td>\
         <td class=\"verdict v-{v}\">{v}</td><td class=\"num\">{ms}</td></tr>",
        escape(&row.time),
        escape(&row.file),
        escape(&row.id),
        escape(row.stipulation.as_deref().unwrap_or("")),
        v = escape(&row.verdict),
    );
}

/// The legality line of a stored verdict, in the words of
/// `solvers::verdict::Legality::summary` (a test holds them together).
pub fn legality(json: &Value) -> Option<String> {
    let legality = json.get("legality")?;
    Some(match legality.get("status")?.as_str()? {
        "legal" => match legality.get("proof_plies").and_then(Value::as_u64) {
            Some(1) => "legal (proof game of 1 ply)".to_owned(),
            Some(plies) => format!("legal (proof game of {plies} plies)"),
            None => "legal".to_owned(),
        },
        "illegal" => {
            let reasons: Vec<_> = list(legality, "reasons")
                .iter()
                .filter_map(|r| r.get("detail").and_then(Value::as_str))
                .collect();
            if reasons.is_empty() {
                "illegal".to_owned()
            } else {
                format!("illegal: {}", reasons.join("; "))
            }
        }
        _ => "no flaw found".to_owned(),
    })
}

fn list<'a>(json: &'a Value, key: &str) -> &'a [Value] {
    json.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'a>(json: &'a Value, key: &str) -> Option<&'a str> {
    json.get(key).and_then(Value::as_str)
}

/// The problem page: diagram, verdict, keys (cooks), tries, duals,
/// legality, the full report (solution tree), timings, the submitted file.
pub fn problem(p: &Problem) -> String {
    let j = &p.json;
    let mut out = String::new();
    head(&mut out, &format!("{}: {}", p.id, p.verdict));
    let _ = writeln!(
        out,
        "<p><a href=\"/\">&larr; the tourney</a></p>\n<h1>{}: <span class=\"verdict v-{v}\">{v}</span></h1>",
        escape(&p.id),
        v = escape(&p.verdict)
    );
    let _ = write!(
        out,
        "<p class=\"meta\">{}, problem {}, judged {} ({})",
        escape(&p.file),
        p.index + 1,
        escape(&p.time),
        escape(&p.status)
    );
    let authors: Vec<_> = list(j, "authors")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if !authors.is_empty() {
        let _ = write!(
            out,
            "<br><span class=\"authors\">{}</span>",
            escape(&authors.join("; "))
        );
    }
    if let Some(source) = text(j, "source") {
        let _ = write!(out, "<br><span class=\"source\">{}</span>", escape(source));
    }
    out.push_str("</p>\n");
    if text(j, "fen").is_some() {
        let (w, _) = crate::diagram::size();
        out.push_str("<p class=\"diagram\">");
        thumbnail(&mut out, p.run, p.index, w, &format!("diagram of {}", p.id));
        out.push_str("</p>\n");
    }

    out.push_str("<table class=\"summary\">\n");
    let row = |out: &mut String, label: &str, value: &str| {
        let _ = writeln!(
            out,
            "<tr><th class=\"label\">{label}</th><td>{}</td></tr>",
            escape(value)
        );
    };
    if let Some(stipulation) = text(j, "stipulation") {
        row(&mut out, "Stipulation", stipulation);
    }
    row(&mut out, "Verdict", &p.verdict);
    if let Some(twin) = j.get("twin") {
        let label = text(twin, "label").unwrap_or("");
        let derivation = text(twin, "derivation").unwrap_or("");
        row(&mut out, "Twin", &format!("{label}) {derivation}"));
    }
    if let Some(line) = legality(j) {
        row(&mut out, "Legality", &line);
    }
    let keys = list(j, "keys");
    if j.get("keys").is_some() {
        let words: Vec<_> = keys
            .iter()
            .map(|k| {
                format!(
                    "1.{}! ({} moves)",
                    text(k, "san").unwrap_or("?"),
                    k.get("length").and_then(Value::as_u64).unwrap_or(0)
                )
            })
            .collect();
        let label = match keys.len() {
            0 | 1 => "Key",
            // More than one key: the extra ones are the cooks.
            _ => "Keys (cooked)",
        };
        row(&mut out, label, &none_or(&words));
    }
    if let Some(solutions) = j.get("solutions").and_then(Value::as_array) {
        let intended = j.get("n_solutions").and_then(Value::as_u64);
        let words = match intended {
            Some(n) => format!("{} ({n} intended)", solutions.len()),
            None => solutions.len().to_string(),
        };
        row(&mut out, "Solutions", &words);
    }
    if j.get("tries").is_some() {
        let words: Vec<_> = list(j, "tries")
            .iter()
            .map(|t| {
                format!(
                    "1.{}? 1...{}!",
                    text(t, "san").unwrap_or("?"),
                    text(t, "refutation_san").unwrap_or("?")
                )
            })
            .collect();
        row(&mut out, "Tries", &none_or(&words));
    }
    if j.get("duals").is_some() {
        let words: Vec<_> = list(j, "duals")
            .iter()
            .map(|d| {
                let continuations: Vec<_> = list(d, "continuations")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                format!(
                    "{} {} ({})",
                    text(d, "line").unwrap_or(""),
                    continuations.join("/"),
                    text(d, "kind").unwrap_or("")
                )
            })
            .collect();
        row(&mut out, "Duals", &none_or(&words));
    }
    // The cooks stage's quality score (sound #n) and lightest corrections
    // (cooked or unsolvable #2/#3), as the text report words them.
    if let Some(quality) = j.get("quality") {
        let score = quality.get("score").and_then(Value::as_f64).unwrap_or(0.0);
        let features: Vec<_> = list(quality, "features")
            .iter()
            .map(|f| {
                let points = f.get("points").and_then(Value::as_f64).unwrap_or(0.0);
                format!("{} {points:+.1}", text(f, "name").unwrap_or("?"))
            })
            .collect();
        row(
            &mut out,
            "Quality",
            &format!("{score:.1} ({})", features.join(", ")),
        );
    }
    if j.get("repairs").is_some() {
        let words: Vec<_> = list(j, "repairs")
            .iter()
            .map(|r| {
                let changes: Vec<_> = list(r, "changes")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                format!(
                    "{}: key 1.{}, score {:.1} ({})",
                    changes.join(" "),
                    text(r, "key").unwrap_or("?"),
                    r.get("score").and_then(Value::as_f64).unwrap_or(0.0),
                    text(r, "fen").unwrap_or("")
                )
            })
            .collect();
        row(&mut out, "Repairs", &none_or(&words));
    }
    if let Some(error) = text(j, "error") {
        row(&mut out, "Error", error);
    }
    if let Some(fen) = text(j, "fen") {
        row(&mut out, "FEN", fen);
    }
    out.push_str("</table>\n");

    let pre = |out: &mut String, id: &str, title: &str, body: &str| {
        let _ = writeln!(
            out,
            "<h2>{title}</h2>\n<pre id=\"{id}\">{}</pre>",
            escape(body)
        );
    };
    // The report as mailed and written to the outbox: the solution tree
    // with threats, variations, tries and duals, as the solvers render it.
    pre(&mut out, "report", "Report", &p.report);

    out.push_str("<h2>Timings</h2>\n<table class=\"timings\">\n");
    for (stage, ms) in &p.timings {
        let _ = writeln!(
            out,
            "<tr><th class=\"label\">{}</th><td class=\"num\">{ms:.1} ms</td></tr>",
            escape(stage)
        );
    }
    let _ = writeln!(
        out,
        "<tr><th class=\"label\">whole file</th><td class=\"num\">{:.1} ms</td></tr>\n</table>",
        p.run_ms
    );
    match &p.submitted {
        Some(submitted) => pre(&mut out, "submitted", "Submitted text", submitted),
        None => out.push_str(
            "<h2>Submitted text</h2>\n<p>Not in the journal (a file that could not be read, \
             or one judged before the journal kept submitted texts).</p>\n",
        ),
    }
    let _ = writeln!(
        out,
        "<p><a href=\"/api/problem/{}/{}\">JSON</a></p>\n</body></html>",
        p.run, p.index
    );
    out
}
