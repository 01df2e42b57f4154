//! Format: YAML, compatible with yacpdb entries.
//!
//! ```yaml
//! ---
//! authors:
//!   - Loyd, Samuel
//! source:
//!   name: Chess Monthly
//!   date: {year: 1857}
//! stipulation: "#2"
//! algebraic:
//!   white: [Kb1, Qd1, Sc3]
//!   black: [Ka3, Pa4]
//! solution: "1.Qd1-d3! ..."
//! ```
//!
//! A file holds one entry (a mapping), a list of entries, or several `---`
//! documents of either kind. Keys read: `stipulation` (text; always quote
//! it, since an unquoted `#` starts a YAML comment), `algebraic` (`white` and
//! `black` lists of pieces like `Kc1`, knights `S` or `N`) or `fen`,
//! `authors` (a list or one name), `source` (text, or yacpdb's mapping with
//! `name`, `issue`, `date`…, which is rendered to one line), `id`,
//! `solution`, `intended-solutions`, `options` (Popeye options, read as in
//! [`popeye`](super::popeye)) and `twins` (a map from twin label to Popeye's
//! English twinning commands, `{b: Move e1 d1, c: Continued Remove c3}`,
//! each twin a problem of its own). `comments`,
//! `keywords` and `award` are accepted and ignored; any other key is an
//! error naming it.
//!
//! With `algebraic` (or a FEN of the board alone) the side to move follows
//! from the stipulation and castling rights from Popeye's default; with a
//! full FEN they come from the FEN. Options `nocastling`, `enpassant` and
//! `whitetoplay` then apply as in Popeye input.
//!
//! Errors name the line and column of the offending key or value. The YAML
//! library keeps no positions in its values, so they are found on demand: the
//! document is read again with a visitor that stops, with an error, at the
//! wanted node, and the library's error carries the node's position.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use shakmaty::{Board, Role, Square};
use yaml_serde::{Mapping, Value};

use super::fenline::{full_fen, parse_fen_at, skip_blanks, ParsedFen};
use super::popeye::{
    expand, label, read_option, read_twin, rule_options, Position, Rules, TextWords, TwinSpec,
    Words, ENGLISH,
};
use super::{
    default_castling_rights, Location, Origin, ParseError, ParseErrorKind, Problem, Stated,
};
use crate::stipulation::Stipulation;

mod entries;
mod limits;
mod locate;
use entries::*;
use limits::*;
pub use limits::{too_deep, MAX_FLOW_DEPTH, MAX_NODES};
use locate::*;

/// The keys of an entry that cookd reads or accepts.
pub const KNOWN_KEYS: &[&str] = &[
    "stipulation",
    "algebraic",
    "fen",
    "authors",
    "source",
    "id",
    "solution",
    "intended-solutions",
    "options",
    "twins",
    "comments",
    "keywords",
    "award",
];

/// Keys only fairy entries have: refused as unsupported, not as unknown.
const FAIRY_KEYS: &[&str] = &["conditions", "condition", "legend"];

/// How many errors per file get an exact position. Each costs a re-read of
/// the file, so a huge file full of broken entries falls back to the
/// entry's first line after that.
const LOCATE_BUDGET: usize = 32;

// ----------------------------------------------------------------- file ----

/// Reads every problem of a YAML file.
pub fn parse(name: &str, text: &str) -> Vec<Result<Problem, ParseError>> {
    // libyaml also breaks lines at a lone CR and at the Unicode line and
    // paragraph separators, where the rest of cookd (and the user's editor,
    // mostly) does not; make them agree so that line numbers mean the same
    // everywhere.
    let odd_breaks = ['\r', '\u{2028}', '\u{2029}'];
    let text: Cow<'_, str> = if text.contains(odd_breaks) {
        Cow::Owned(text.replace("\r\n", "\n").replace(odd_breaks, " "))
    } else {
        Cow::Borrowed(text)
    };
    let text = text.as_ref();
    // What the text would cost the YAML library is checked first.
    let refused = |location, kind| super::whole_file(name, location, kind);
    if let Some(location) = too_deep(text) {
        let message = format!(
            "YAML syntax: flow collections ([ ] or {{ }}) nested more than {MAX_FLOW_DEPTH} deep"
        );
        return refused(location, ParseErrorKind::Syntax(message));
    }
    if let Some(location) = too_many_nodes(text) {
        return refused(location, ParseErrorKind::TooManyNodes { limit: MAX_NODES });
    }
    let documents = document_lines(text);
    let mut locator = Locator {
        text,
        budget: LOCATE_BUDGET,
    };
    let mut results = Vec::new();
    let mut entry_number = 0;
    let error =
        |location: Location, index: usize, kind| ParseError::new(name, location, index, kind);
    for (doc, deserializer) in yaml_serde::Deserializer::from_str(text).enumerate() {
        let doc_lines = documents.get(doc);
        let doc_start = Location {
            line: doc_lines.and_then(|d| d.start).unwrap_or(1),
            column: 1,
        };
        let value = match Value::deserialize(deserializer) {
            Ok(value) => value,
            Err(e) => {
                let location = e.location().map_or(doc_start, |l| Location {
                    line: l.line().max(1),
                    column: l.column().max(1),
                });
                let message = yaml_message(&e);
                results.push(Err(error(
                    location,
                    results.len(),
                    ParseErrorKind::Syntax(message),
                )));
                break;
            }
        };
        let entries: Vec<(Vec<Step>, &Value)> = match &value {
            Value::Null => continue,
            Value::Mapping(_) => vec![(Vec::new(), &value)],
            Value::Sequence(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (vec![Step::Index(i)], v))
                .collect(),
            _ => {
                let message = "expected a problem (a mapping with stipulation and algebraic or fen) or a list of them";
                let kind = ParseErrorKind::Syntax(message.into());
                results.push(Err(error(doc_start, results.len(), kind)));
                continue;
            }
        };
        for (item, (path, value)) in entries.into_iter().enumerate() {
            let index = results.len();
            let line = match path.first() {
                Some(Step::Index(_)) => doc_lines.and_then(|d| d.items.get(item).copied()),
                _ => None,
            }
            .unwrap_or(doc_start.line);
            let read = match value {
                Value::Mapping(map) => read_entry(map, &path),
                _ => Err(syntax(
                    Pointer::value(&path),
                    "expected a problem: a mapping with stipulation and algebraic or fen",
                )),
            };
            let origin = Origin {
                file: name.to_owned(),
                line,
                index,
                entry: entry_number,
            };
            entry_number += 1;
            match read {
                Ok((stipulation, setup, entry)) => {
                    let twinned = !entry.twins.is_empty();
                    let number = origin.entry;
                    let problems = twins_of(origin, stipulation, setup, entry);
                    for (i, problem) in problems.into_iter().enumerate() {
                        let index = results.len();
                        let location = Location { line, column: 1 };
                        results.push(problem.map_err(|(_, kind)| ParseError {
                            // A twin refused alone keeps its label for its id.
                            twin: twinned.then(|| (number, label(i))),
                            ..error(location, index, kind)
                        }));
                    }
                }
                Err(fault) => {
                    // Past the locator's budget the entry's first line
                    // stands for the node, with no further scan of the
                    // text: a scan per error made a file of many broken
                    // entries quadratic.
                    let location = match locator.locate(doc, &fault.at) {
                        Some(at) if fault.kind == ParseErrorKind::StipulationIsNull => {
                            locator.comment_after(at)
                        }
                        Some(at) => at,
                        None => Location { line, column: 1 },
                    };
                    results.push(Err(error(location, index, fault.kind)));
                }
            }
        }
    }
    if results.is_empty() {
        let kind = ParseErrorKind::Missing(
            "a problem: expected a YAML mapping with stipulation and algebraic or fen",
        );
        results.push(Err(error(Location { line: 1, column: 1 }, 0, kind)));
    }
    results
}

/// The problems of one entry: itself, or one per twin. A twin's board
/// keeps the entry's side to move and en-passant square unless its
/// stipulation changes (then the stipulation's side moves first), and keeps
/// the castling rights its kings and rooks still have at home.
fn twins_of(
    origin: Origin,
    stipulation: Stipulation,
    setup: shakmaty::Setup,
    entry: Entry,
) -> Vec<Result<Problem, super::popeye::Located>> {
    let zero = Position {
        board: setup.board.clone(),
        stipulation,
    };
    let twinned = !entry.twins.is_empty();
    expand(zero, false, &entry.twins)
        .into_iter()
        .enumerate()
        .map(|(i, twin)| {
            let (position, twin) = twin?;
            let mut twin_setup = setup.clone();
            if position.board != setup.board {
                twin_setup.castling_rights &= super::default_castling_rights(&position.board);
                twin_setup.ep_square = None;
            }
            if position.stipulation != stipulation {
                twin_setup.turn = position.stipulation.side_to_move();
            }
            twin_setup.board = position.board;
            Ok(Problem {
                origin: Origin {
                    index: origin.index + i,
                    ..origin.clone()
                },
                id: entry.id.clone(),
                authors: entry.authors.clone(),
                source: entry.source.clone(),
                stipulation: position.stipulation,
                setup: twin_setup,
                stated: entry.stated,
                options: entry.rules.kept.clone(),
                intended_solutions: entry.intended_solutions,
                solution: entry.solution.clone(),
                twin: twinned.then_some(twin),
            })
        })
        .collect()
}

/// The YAML library's message without its " at line L column C" tail, which
/// the error's own location already gives.
fn yaml_message(error: &yaml_serde::Error) -> String {
    let message = error.to_string();
    let trimmed = match message.find(" at line ") {
        Some(at) => &message[..at],
        None => &message,
    };
    format!("YAML syntax: {trimmed}")
}

// --------------------------------------------------------------- writer ----

fn side_list(board: &Board, color: shakmaty::Color) -> Value {
    Value::Sequence(
        super::piece_list(board, color)
            .into_iter()
            .map(Value::String)
            .collect(),
    )
}

/// Writes a problem as a yacpdb-style YAML entry that [`parse`] reads back to
/// the same problem. The position is written as `algebraic` when the
/// stipulation's side to move and Popeye's default castling rights describe
/// it, and as a full `fen` otherwise.
pub fn to_yaml(problem: &Problem) -> String {
    let mut map = Mapping::new();
    let text = |s: &str| Value::String(s.to_owned());
    if let Some(id) = &problem.id {
        map.insert(text("id"), text(id));
    }
    if !problem.authors.is_empty() {
        let authors = problem.authors.iter().map(|a| text(a)).collect();
        map.insert(text("authors"), Value::Sequence(authors));
    }
    if let Some(source) = &problem.source {
        map.insert(text("source"), text(source));
    }
    map.insert(
        text("stipulation"),
        Value::String(problem.stipulation.to_string()),
    );
    let board = &problem.setup.board;
    // `algebraic` with Popeye's options where they give the setup and say
    // as much as the problem states of its rights (see `Stated`); a full
    // `fen`, which states them all, otherwise.
    let rules = Rules {
        no_castling: default_castling_rights(board) & !problem.setup.castling_rights,
        ep_square: problem.setup.ep_square,
        ..Rules::default()
    };
    let mut options = problem.options.clone();
    if rules.setup(board.clone(), problem.stipulation) == problem.setup
        && rules.stated(board) == problem.stated
    {
        let mut sides = Mapping::new();
        sides.insert(text("white"), side_list(board, shakmaty::Color::White));
        sides.insert(text("black"), side_list(board, shakmaty::Color::Black));
        map.insert(text("algebraic"), Value::Mapping(sides));
        options.extend(rule_options(&problem.setup));
    } else {
        map.insert(text("fen"), Value::String(full_fen(&problem.setup)));
    }
    if !options.is_empty() {
        let options = options.iter().map(|o| text(o)).collect();
        map.insert(text("options"), Value::Sequence(options));
    }
    if let Some(count) = problem.intended_solutions {
        map.insert(text("intended-solutions"), Value::Number(count.into()));
    }
    if let Some(solution) = &problem.solution {
        map.insert(text("solution"), text(solution));
    }
    let yaml = yaml_serde::to_string(&Value::Mapping(map)).unwrap_or_default();
    format!("---\n{yaml}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Result<Problem, ParseError> {
        parse("t.yaml", text).remove(0)
    }

    #[test]
    fn unquoted_stipulation_points_at_the_comment() {
        let e = first("stipulation: #2\nalgebraic: {white: [Kc1], black: [Ka1]}\n").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::StipulationIsNull);
        assert_eq!((e.location.line, e.location.column), (1, 14));
    }

    /// Found by reading for fuzzing: each `stipulation: #2` error scanned
    /// the text from its start for the comment, even past the locator's
    /// budget, so 16,000 such entries (under the node limit) took 5.8 s
    /// in the fuzz build, and 8 MiB of them over an hour. The first
    /// entries are placed at the comment, the rest at their first line.
    #[test]
    fn many_unquoted_stipulations_are_each_placed_once() {
        let results = parse("null.yaml", &"- stipulation: #2\n".repeat(16_000));
        assert_eq!(results.len(), 16_000);
        for (i, result) in results.iter().enumerate() {
            let e = result.as_ref().unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::StipulationIsNull);
            let column = if i < LOCATE_BUDGET { 16 } else { 1 };
            assert_eq!((e.location.line, e.location.column), (i + 1, column));
        }
    }

    #[test]
    fn errors_point_inside_pieces_and_keys() {
        let text = "stipulation: \"#2\"\nalgebraic:\n  white: [Kc1, Kz9]\n  black: [Ka1]\n";
        let e = first(text).unwrap_err();
        assert_eq!((e.location.line, e.location.column), (3, 17), "{e}");
        let text = "stipulation: \"#2\"\nalgebraic: {white: [Kc1], black: [Ka1]}\nsolutoin: x\n";
        let e = first(text).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::UnknownKey("solutoin".into()));
        assert_eq!((e.location.line, e.location.column), (3, 1));
        let text = "stipulation: \"#2\"\nfen: \"8/8/8/8/8/8/8/K1k5 w - e5\"\n";
        let e = first(text).unwrap_err();
        assert_eq!((e.location.line, e.location.column), (2, 30), "{e}");
    }

    #[test]
    fn lists_and_documents_count_problems() {
        let text = "- stipulation: \"#1\"\n  fen: 8/8/8/8/8/8/8/K1k5\n- stipulation: \"#1\"\n  fen: 8/8/8/8/8/8/8/K1k4Z\n---\nstipulation: \"h#1\"\nalgebraic: {white: [Kc1], black: [Ka1]}\n";
        let results = parse("t", text);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap().origin.line, 1);
        let e = results[1].as_ref().unwrap_err();
        assert_eq!(
            (e.index, e.location.line, e.location.column),
            (1, 4, 26),
            "{e}"
        );
        assert_eq!(results[2].as_ref().unwrap().origin.line, 6);
    }

    #[test]
    fn writer_round_trips_odd_stipulations() {
        for stip in ["=", "+", "h#2.5", "SPG 3.5", "s#3"] {
            let text =
                format!("stipulation: \"{stip}\"\nalgebraic: {{white: [Kc1], black: [Ka1]}}\n");
            let problem = first(&text).unwrap();
            let again = first(&to_yaml(&problem)).unwrap();
            assert_eq!(
                again.stipulation,
                problem.stipulation,
                "{}",
                to_yaml(&problem)
            );
            assert_eq!(again.setup, problem.setup);
        }
    }
}
