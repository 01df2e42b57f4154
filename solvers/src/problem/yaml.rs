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
//! [`popeye`](super::popeye)) and `twins` (refused unless empty). `comments`,
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
use super::popeye::{read_option, rule_options, Rules, TextWords, Words};
use super::{
    default_castling_rights, Location, Origin, ParseError, ParseErrorKind, Problem, Stated,
};
use crate::stipulation::Stipulation;

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

// ------------------------------------------------------------ positions ----

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Index(usize),
    Key(String),
}

/// A node of a document: the value at `path`, or the key that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pointer {
    path: Vec<Step>,
    key: bool,
    /// Characters into the scalar (for errors inside a piece or a FEN).
    chars: usize,
}

impl Pointer {
    fn value(path: &[Step]) -> Pointer {
        Pointer {
            path: path.to_vec(),
            key: false,
            chars: 0,
        }
    }

    fn key(path: &[Step], key: &str) -> Pointer {
        Pointer {
            path: child(path, Step::Key(key.to_owned())),
            key: true,
            chars: 0,
        }
    }

    fn at_char(mut self, chars: usize) -> Pointer {
        self.chars = chars;
        self
    }
}

fn child(path: &[Step], step: Step) -> Vec<Step> {
    let mut path = path.to_vec();
    path.push(step);
    path
}

/// An error in an entry, and the node it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fault {
    at: Pointer,
    kind: ParseErrorKind,
}

fn fault(at: Pointer, kind: ParseErrorKind) -> Fault {
    Fault { at, kind }
}

fn syntax(at: Pointer, message: impl Into<String>) -> Fault {
    fault(at, ParseErrorKind::Syntax(message.into()))
}

/// What the finder's error says when it reached its node.
const FOUND: &str = "\u{1}cookd: node found";

/// Walks to the node at `path` and fails there.
struct Finder<'p> {
    path: &'p [Step],
    key: bool,
}

impl<'de> DeserializeSeed<'de> for Finder<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.path.split_first() {
            None => deserializer.deserialize_any(FailVisitor),
            Some((Step::Key(key), rest)) => deserializer.deserialize_any(MapFinder {
                key,
                rest,
                key_target: self.key,
            }),
            Some((Step::Index(index), rest)) => deserializer.deserialize_any(SeqFinder {
                index: *index,
                rest,
                key_target: self.key,
            }),
        }
    }
}

/// Fails on whatever it is given, so that the error carries its position.
struct FailVisitor;

impl<'de> Visitor<'de> for FailVisitor {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

struct MapFinder<'p> {
    key: &'p str,
    rest: &'p [Step],
    key_target: bool,
}

impl<'de> Visitor<'de> for MapFinder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let fail_on_key = self.key_target && self.rest.is_empty();
        while let Some(matched) = map.next_key_seed(KeySeed {
            name: self.key,
            fail: fail_on_key,
        })? {
            if matched {
                return map.next_value_seed(Finder {
                    path: self.rest,
                    key: self.key_target,
                });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

struct SeqFinder<'p> {
    index: usize,
    rest: &'p [Step],
    key_target: bool,
}

impl<'de> Visitor<'de> for SeqFinder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for _ in 0..self.index {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Finder {
            path: self.rest,
            key: self.key_target,
        })?;
        Ok(())
    }
}

/// Reads a key and says whether it is the wanted one (failing there when
/// the key itself is wanted).
struct KeySeed<'p> {
    name: &'p str,
    fail: bool,
}

impl KeySeed<'_> {
    fn check<E: de::Error>(&self, key: &str) -> Result<bool, E> {
        match key == self.name {
            true if self.fail => Err(E::custom(FOUND)),
            matched => Ok(matched),
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        self.check(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.check("null")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

/// Finds positions of nodes in one text, a limited number of times.
struct Locator<'t> {
    text: &'t str,
    budget: usize,
}

impl Locator<'_> {
    /// Line and column of the node `at` in document `doc`.
    fn locate(&mut self, doc: usize, at: &Pointer) -> Option<Location> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let deserializer = yaml_serde::Deserializer::from_str(self.text).nth(doc)?;
        let finder = Finder {
            path: &at.path,
            key: at.key,
        };
        let error = finder.deserialize(deserializer).err()?;
        if !error.to_string().contains(FOUND) {
            return None;
        }
        let found = error.location()?;
        let mut location = Location {
            line: found.line().max(1),
            column: found.column().max(1),
        };
        if at.chars > 0 {
            location.column += at.chars + self.quote_width(location);
        }
        Some(location)
    }

    /// Where the comment that swallowed an empty value starts, if one follows
    /// it on the line (`stipulation: #2`): that is what the user must fix.
    fn comment_after(&self, location: Location) -> Location {
        let line = self.text.lines().nth(location.line - 1).unwrap_or("");
        let rest = line.chars().skip(location.column - 1);
        let blanks = rest.clone().take_while(|c| *c == ' ' || *c == '\t').count();
        match rest.clone().nth(blanks) {
            Some('#') => Location {
                line: location.line,
                column: location.column + blanks,
            },
            _ => location,
        }
    }

    /// 1 when the scalar at `location` opens with a quote, else 0.
    fn quote_width(&self, location: Location) -> usize {
        let line = self.text.lines().nth(location.line - 1).unwrap_or("");
        let first = line.chars().nth(location.column - 1);
        usize::from(matches!(first, Some('"' | '\'')))
    }
}

/// First lines of the documents of a stream, and of the items of a list at
/// the top of a document; used for problems' origins (a plain scan, since
/// locating every entry would re-read the file once per problem).
#[derive(Debug, Default)]
struct DocumentLines {
    start: Option<usize>,
    items: Vec<usize>,
    item_indent: Option<usize>,
}

fn document_lines(text: &str) -> Vec<DocumentLines> {
    let mut documents: Vec<DocumentLines> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if let Some(rest) = line.strip_prefix("---") {
            documents.push(DocumentLines::default());
            open = true;
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                if let Some(doc) = documents.last_mut() {
                    doc.start = Some(number);
                }
            }
            continue;
        }
        if line.starts_with("...") {
            open = false;
            continue;
        }
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') || line.starts_with('%') {
            continue;
        }
        if !open {
            documents.push(DocumentLines::default());
            open = true;
        }
        let Some(doc) = documents.last_mut() else {
            continue;
        };
        let indent = line.len() - content.len();
        let is_item = content == "-" || content.starts_with("- ");
        if doc.start.is_none() {
            doc.start = Some(number);
            if is_item {
                doc.item_indent = Some(indent);
            }
        }
        if is_item && doc.item_indent == Some(indent) {
            doc.items.push(number);
        }
    }
    documents
}

// -------------------------------------------------------------- entries ----

/// What an entry says, once read.
#[derive(Debug, Default)]
struct Entry {
    id: Option<String>,
    authors: Vec<String>,
    source: Option<String>,
    stipulation: Option<Stipulation>,
    board: Option<(Board, Pointer)>,
    fen: Option<(ParsedFen, Pointer)>,
    solution: Option<String>,
    intended_solutions: Option<u32>,
    rules: Rules,
    options_at: Option<Pointer>,
    /// What the position states of castling and en passant.
    stated: Stated,
}

/// Text of a scalar key, for messages and lookups.
fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        _ => "?".to_owned(),
    }
}

/// One scalar as text (numbers too: `id: 17`, `source: 1857`).
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn read_entry(
    map: &Mapping,
    path: &[Step],
) -> Result<(Stipulation, shakmaty::Setup, Entry), Fault> {
    let mut entry = Entry::default();
    for (key, value) in map {
        let Value::String(name) = key else {
            let name = key_text(key);
            let message = format!("expected a text key like stipulation, found {name:?}");
            return Err(syntax(Pointer::key(path, &name), message));
        };
        let here = child(path, Step::Key(name.clone()));
        let at = Pointer::value(&here);
        match name.as_str() {
            "stipulation" => entry.stipulation = Some(read_stipulation(value, at)?),
            "algebraic" => {
                entry.board = Some((read_algebraic(value, &here)?, Pointer::key(path, name)))
            }
            "fen" => entry.fen = Some((read_fen(value, at)?, Pointer::key(path, name))),
            "authors" => entry.authors = read_texts(value, &here, "authors")?,
            "source" => entry.source = read_source(value, at)?,
            "id" => entry.id = read_optional_text(value, at, "id")?,
            "solution" => entry.solution = read_optional_text(value, at, "solution")?,
            "intended-solutions" => entry.intended_solutions = Some(read_count(value, at)?),
            "options" => {
                read_options(value, &here, &mut entry.rules)?;
                entry.options_at = Some(Pointer::key(path, name));
            }
            "twins" if is_empty(value) => {}
            "twins" => {
                return Err(fault(
                    Pointer::key(path, name),
                    ParseErrorKind::Unsupported("twins".into()),
                ))
            }
            "comments" | "keywords" | "award" => {}
            other if FAIRY_KEYS.contains(&other) => {
                let kind = ParseErrorKind::Unsupported(format!("{other} (fairy)"));
                return Err(fault(Pointer::key(path, name), kind));
            }
            other => {
                return Err(fault(
                    Pointer::key(path, name),
                    ParseErrorKind::UnknownKey(other.to_owned()),
                ))
            }
        }
    }
    let whole = Pointer::value(path);
    let Some(stipulation) = entry.stipulation else {
        let kind = ParseErrorKind::Missing("stipulation: expected a key like stipulation: \"#2\"");
        return Err(fault(whole, kind));
    };
    let stipulation = entry.rules.stipulation(stipulation).map_err(|(_, kind)| {
        let at = entry.options_at.clone().unwrap_or(whole.clone());
        fault(at, kind)
    })?;
    let setup = match (entry.board.take(), entry.fen.take()) {
        (Some(_), Some((_, fen_at))) => {
            return Err(syntax(
                fen_at,
                "give the position either as algebraic or as fen, not both",
            ));
        }
        (None, None) => {
            let kind = ParseErrorKind::Missing(
                "position: expected algebraic: {white: [...], black: [...]} or fen: \"...\"",
            );
            return Err(fault(whole, kind));
        }
        (Some((board, _)), None) => {
            entry.stated = entry.rules.stated(&board);
            entry.rules.setup(board, stipulation)
        }
        (None, Some((fen, _))) if fen.state.is_none() => {
            entry.stated = entry.rules.stated(&fen.board);
            entry.rules.setup(fen.board, stipulation)
        }
        (None, Some((fen, _))) => {
            entry.stated = Stated::BOTH;
            let mut setup = fen.into_setup(stipulation.side_to_move());
            setup.castling_rights &= !entry.rules.no_castling;
            if entry.rules.ep_square.is_some() {
                setup.ep_square = entry.rules.ep_square;
            }
            setup
        }
    };
    Ok((stipulation, setup, entry))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Sequence(s) => s.is_empty(),
        Value::Mapping(m) => m.is_empty(),
        _ => false,
    }
}

fn read_stipulation(value: &Value, at: Pointer) -> Result<Stipulation, Fault> {
    match value {
        Value::String(text) => text
            .parse()
            .map_err(|e| fault(at, ParseErrorKind::Stipulation(e))),
        Value::Null => Err(fault(at, ParseErrorKind::StipulationIsNull)),
        _ => Err(syntax(
            at,
            "expected the stipulation as text in quotes, e.g. stipulation: \"#2\"",
        )),
    }
}

fn read_optional_text(value: &Value, at: Pointer, what: &str) -> Result<Option<String>, Fault> {
    match value {
        Value::Null => Ok(None),
        other => scalar_text(other)
            .map(Some)
            .ok_or_else(|| syntax(at, format!("expected text for {what}"))),
    }
}

/// A list of texts, or one text.
fn read_texts(value: &Value, here: &[Step], what: &str) -> Result<Vec<String>, Fault> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Sequence(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                scalar_text(item).ok_or_else(|| {
                    let at = Pointer::value(&child(here, Step::Index(i)));
                    syntax(at, format!("expected text in the list of {what}"))
                })
            })
            .collect(),
        other => scalar_text(other)
            .map(|text| vec![text])
            .ok_or_else(|| syntax(Pointer::value(here), format!("expected a list of {what}"))),
    }
}

fn read_count(value: &Value, at: Pointer) -> Result<u32, Fault> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| syntax(at, "expected a whole number of solutions, 1 or more"))
}

/// yacpdb's source mapping rendered to one line: `Chess Monthly, 1857`.
fn read_source(value: &Value, at: Pointer) -> Result<Option<String>, Fault> {
    match value {
        Value::Null => Ok(None),
        Value::Mapping(map) => {
            let mut parts = Vec::new();
            if let Some(name) = map.get("name").and_then(scalar_text) {
                parts.push(name);
            }
            for (key, field) in map {
                let key = key_text(key);
                match (key.as_str(), field) {
                    ("name", _) => {}
                    ("date", Value::Mapping(date)) => parts.push(render_date(date)),
                    (_, Value::Mapping(_) | Value::Sequence(_) | Value::Null) => {}
                    ("date", other) => parts.extend(scalar_text(other)),
                    (key, other) => {
                        parts.extend(scalar_text(other).map(|text| format!("{key} {text}")))
                    }
                }
            }
            Ok(Some(parts.join(", ")))
        }
        other => scalar_text(other).map(Some).ok_or_else(|| {
            syntax(
                at,
                "expected the source as text or as a mapping with name and date",
            )
        }),
    }
}

/// `{year: 1990, month: 4}` as `1990-04`.
fn render_date(date: &Mapping) -> String {
    let part = |key: &str| date.get(key).and_then(Value::as_u64);
    match (part("year"), part("month"), part("day")) {
        (Some(y), Some(m), Some(d)) => format!("{y}-{m:02}-{d:02}"),
        (Some(y), Some(m), None) => format!("{y}-{m:02}"),
        (Some(y), None, _) => y.to_string(),
        _ => String::new(),
    }
}

fn read_fen(value: &Value, at: Pointer) -> Result<ParsedFen, Fault> {
    let Value::String(text) = value else {
        return Err(syntax(at, "expected the FEN as text"));
    };
    let chars_to = |offset: usize| text.get(..offset).map_or(0, |p| p.chars().count());
    let fen = parse_fen_at(text, 0)
        .map_err(|spot| fault(at.clone().at_char(chars_to(spot.offset)), spot.kind))?;
    let after = skip_blanks(text, fen.end);
    if after < text.trim_end().len() {
        let rest = text.get(after..).unwrap_or("").trim_end();
        let message = format!("unexpected {rest:?} after the FEN");
        return Err(fault(
            at.at_char(chars_to(after)),
            ParseErrorKind::Fen(message),
        ));
    }
    Ok(fen)
}

/// The board of `algebraic: {white: [...], black: [...]}`.
fn read_algebraic(value: &Value, here: &[Step]) -> Result<Board, Fault> {
    let Value::Mapping(sides) = value else {
        return Err(syntax(
            Pointer::value(here),
            "expected white and black lists, e.g. algebraic: {white: [Kc1], black: [Ka1]}",
        ));
    };
    let mut board = Board::empty();
    for (key, pieces) in sides {
        let name = key_text(key);
        let color = match name.as_str() {
            "white" => shakmaty::Color::White,
            "black" => shakmaty::Color::Black,
            "neutral" => {
                let kind = ParseErrorKind::Unsupported("neutral pieces".into());
                return Err(fault(Pointer::key(here, &name), kind));
            }
            other => {
                let message =
                    format!("unknown key {other:?} in algebraic: expected white and black");
                return Err(syntax(Pointer::key(here, &name), message));
            }
        };
        let side = child(here, Step::Key(name.clone()));
        for (text, at) in piece_texts(pieces, &side)? {
            let (role, square) = parse_piece(&text)
                .map_err(|(chars, kind)| fault(at.clone().at_char(chars), kind))?;
            if board.piece_at(square).is_some() {
                return Err(syntax(at, format!("square {square} is given twice")));
            }
            board.set_piece_at(square, role.of(color));
        }
    }
    Ok(board)
}

/// The pieces of one side, each with its node: a list, or one text with
/// the pieces separated by spaces or commas.
fn piece_texts(value: &Value, side: &[Step]) -> Result<Vec<(String, Pointer)>, Fault> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Sequence(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = Pointer::value(&child(side, Step::Index(i)));
                match item {
                    Value::String(text) => Ok((text.clone(), at)),
                    _ => Err(syntax(at, "expected a piece like Kc1")),
                }
            })
            .collect(),
        Value::String(text) => {
            let at = Pointer::value(side);
            let mut pieces = Vec::new();
            let mut chars = 0;
            for part in text.split_inclusive([' ', ',']) {
                let piece = part.trim_end_matches([' ', ',']);
                if !piece.is_empty() {
                    pieces.push((piece.to_owned(), at.clone().at_char(chars)));
                }
                chars += part.chars().count();
            }
            Ok(pieces)
        }
        _ => Err(syntax(
            Pointer::value(side),
            "expected a list of pieces like [Kc1, Qd1]",
        )),
    }
}

/// `Kc1` (knights `S` or `N`); errors carry the character they are about.
fn parse_piece(text: &str) -> Result<(Role, Square), (usize, ParseErrorKind)> {
    let mut chars = text.chars();
    let first = chars.next().unwrap_or(' ');
    let rest: String = chars.collect();
    let role = match first.to_ascii_uppercase() {
        'K' => Some(Role::King),
        'Q' => Some(Role::Queen),
        'R' => Some(Role::Rook),
        'B' => Some(Role::Bishop),
        'S' | 'N' => Some(Role::Knight),
        'P' => Some(Role::Pawn),
        _ => None,
    };
    let square = rest.parse::<Square>().ok();
    match (role, square) {
        (Some(role), Some(square)) => Ok((role, square)),
        // Any other letter (or two) before a square is a fairy piece code.
        (None, Some(_)) if first.is_ascii_alphabetic() => Err((
            0,
            ParseErrorKind::Unsupported(format!("fairy piece {first}")),
        )),
        _ if text.len() == 4 && text.is_ascii() && text[2..].parse::<Square>().is_ok() => {
            let walk = &text[..2];
            Err((
                0,
                ParseErrorKind::Unsupported(format!("fairy piece {walk}")),
            ))
        }
        (Some(_), None) => Err((
            1,
            ParseErrorKind::Syntax(format!(
                "expected a square like e4 after piece letter {first}, found {rest:?}"
            )),
        )),
        (None, _) => Err((
            0,
            ParseErrorKind::Syntax(format!(
                "expected a piece like Kc1 (K Q R B S or N P, then a square), found {text:?}"
            )),
        )),
    }
}

/// Popeye options, as a list of texts or one text.
fn read_options(value: &Value, here: &[Step], rules: &mut Rules) -> Result<(), Fault> {
    let texts: Vec<(String, Pointer)> = match value {
        Value::Null => Vec::new(),
        Value::Sequence(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = Pointer::value(&child(here, Step::Index(i)));
                scalar_text(item)
                    .map(|t| (t, at.clone()))
                    .ok_or_else(|| syntax(at, "expected an option as text"))
            })
            .collect::<Result<_, _>>()?,
        other => match scalar_text(other) {
            Some(text) => vec![(text, Pointer::value(here))],
            None => return Err(syntax(Pointer::value(here), "expected a list of options")),
        },
    };
    for (text, at) in texts {
        let mut words = TextWords::new(&text);
        let located = |column: usize| at.clone().at_char(column.saturating_sub(1));
        loop {
            let next = words.peek();
            match read_option(&mut words) {
                Ok(Some(effect)) => rules.add(effect, Location { line: 1, column: 1 }),
                Ok(None) => {
                    if let Some(word) = next {
                        let kind = ParseErrorKind::Unsupported(format!("option {}", word.text));
                        return Err(fault(located(word.at.column), kind));
                    }
                    break;
                }
                Err((location, kind)) => return Err(fault(located(location.column), kind)),
            }
        }
    }
    Ok(())
}

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
    if let Some(location) = too_deep(text) {
        let message = format!(
            "YAML syntax: flow collections ([ ] or {{ }}) nested more than {MAX_FLOW_DEPTH} deep"
        );
        return vec![Err(ParseError {
            file: name.to_owned(),
            location,
            index: 0,
            kind: ParseErrorKind::Syntax(message),
        })];
    }
    let documents = document_lines(text);
    let mut locator = Locator {
        text,
        budget: LOCATE_BUDGET,
    };
    let mut results = Vec::new();
    let error = |location: Location, index: usize, kind| ParseError {
        file: name.to_owned(),
        location,
        index,
        kind,
    };
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
            results.push(match read {
                Ok((stipulation, setup, entry)) => Ok(Problem {
                    origin: Origin {
                        file: name.to_owned(),
                        line,
                        index,
                    },
                    id: entry.id,
                    authors: entry.authors,
                    source: entry.source,
                    stipulation,
                    setup,
                    stated: entry.stated,
                    options: entry.rules.kept,
                    intended_solutions: entry.intended_solutions,
                    solution: entry.solution,
                }),
                Err(fault) => {
                    let mut location = locator
                        .locate(doc, &fault.at)
                        .unwrap_or(Location { line, column: 1 });
                    if fault.kind == ParseErrorKind::StipulationIsNull {
                        location = locator.comment_after(location);
                    }
                    Err(error(location, index, fault.kind))
                }
            });
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

/// The deepest nesting of flow collections read. libyaml's scanner looks
/// at every open level for each token, so n nested brackets cost O(n²)
/// before the deserializer's own recursion limit (128 levels) refuses them:
/// 40,000 took 2.6 s and 400,000 took 296 s (found by fuzzing). Nothing
/// nested deeper than that limit can be read anyway.
const MAX_FLOW_DEPTH: usize = 128;

/// Where `text` opens a flow collection deeper than [`MAX_FLOW_DEPTH`], if
/// it does. Brackets and braces are counted outside quoted scalars and
/// comments; those of plain and block scalars count too, so a file with
/// more than 128 unclosed `[` or `{` in its text is refused even where YAML
/// would read them as text (no problem file has that many).
fn too_deep(text: &str) -> Option<Location> {
    let mut depth = 0usize;
    for (number, line) in text.lines().enumerate() {
        let mut quote = None;
        let mut previous = ' ';
        let mut chars = line.char_indices().peekable();
        while let Some((column, c)) = chars.next() {
            match (quote, c) {
                (Some('\''), '\'') if chars.peek().is_some_and(|&(_, n)| n == '\'') => {
                    chars.next();
                }
                (Some('"'), '\\') => {
                    chars.next();
                }
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '#') if previous.is_whitespace() => break,
                (None, '[' | '{') => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some(Location {
                            line: number + 1,
                            column: line[..column].chars().count() + 1,
                        });
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            previous = c;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (the yaml target, 23,529 `[` with some text: a
    /// hang of 1.4 s): deep flow nesting is refused before libyaml scans
    /// it in quadratic time.
    #[test]
    fn deeply_nested_flow_collections_are_refused_at_the_first_too_deep() {
        let text = format!("a: {}", "[".repeat(400_000));
        let results = parse("deep.yaml", &text);
        assert_eq!(results.len(), 1);
        let error = results[0].as_ref().unwrap_err();
        assert_eq!(
            error.location,
            Location {
                line: 1,
                column: 4 + 128
            }
        );
        assert!(
            error.to_string().contains("nested more than 128 deep"),
            "{error}"
        );
        // Nesting that YAML can read, brackets in quotes and comments, and
        // closed collections are not counted against it.
        let fine = format!(
            "stipulation: \"#2\"\nfen: 8/8/8/8/8/8/8/K1k5 w - - 0 1\n# {}\nnote: '{}'\nx: {}\n",
            "[".repeat(300),
            "{".repeat(300),
            "[a], ".repeat(300)
        );
        assert!(too_deep(&fine).is_none());
        assert!(too_deep(&format!("x: {}", "[".repeat(128))).is_none());
    }

    fn first(text: &str) -> Result<Problem, ParseError> {
        parse("t.yaml", text).remove(0)
    }

    #[test]
    fn unquoted_stipulation_points_at_the_comment() {
        let e = first("stipulation: #2\nalgebraic: {white: [Kc1], black: [Ka1]}\n").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::StipulationIsNull);
        assert_eq!((e.location.line, e.location.column), (1, 14));
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
