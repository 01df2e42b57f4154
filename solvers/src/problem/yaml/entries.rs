//! One YAML entry: its keys read into the problem's fields, each fault
//! placed at its node.

use super::*;

/// What an entry says, once read.
#[derive(Debug, Default)]
pub(super) struct Entry {
    pub(super) id: Option<String>,
    pub(super) authors: Vec<String>,
    pub(super) source: Option<String>,
    pub(super) stipulation: Option<Stipulation>,
    pub(super) board: Option<(Board, Pointer)>,
    pub(super) fen: Option<(ParsedFen, Pointer)>,
    pub(super) solution: Option<String>,
    pub(super) intended_solutions: Option<u32>,
    pub(super) rules: Rules,
    pub(super) options_at: Option<Pointer>,
    /// What the position states of castling and en passant.
    pub(super) stated: Stated,
    /// The twins (`twins: {b: Move e1 d1, c: Continued Remove c3}`), in
    /// Popeye's English twinning commands.
    pub(super) twins: Vec<Result<TwinSpec, super::super::popeye::Located>>,
}

/// Text of a scalar key, for messages and lookups.
pub(super) fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        _ => "?".to_owned(),
    }
}

/// One scalar as text (numbers too: `id: 17`, `source: 1857`).
pub(super) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(super) fn read_entry(
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
            "twins" => entry.twins = read_twins(value, &here)?,
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

pub(super) fn read_stipulation(value: &Value, at: Pointer) -> Result<Stipulation, Fault> {
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

pub(super) fn read_optional_text(
    value: &Value,
    at: Pointer,
    what: &str,
) -> Result<Option<String>, Fault> {
    match value {
        Value::Null => Ok(None),
        other => scalar_text(other)
            .map(Some)
            .ok_or_else(|| syntax(at, format!("expected text for {what}"))),
    }
}

/// A list of texts, or one text.
pub(super) fn read_texts(value: &Value, here: &[Step], what: &str) -> Result<Vec<String>, Fault> {
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

pub(super) fn read_count(value: &Value, at: Pointer) -> Result<u32, Fault> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| syntax(at, "expected a whole number of solutions, 1 or more"))
}

/// yacpdb's source mapping rendered to one line: `Chess Monthly, 1857`.
pub(super) fn read_source(value: &Value, at: Pointer) -> Result<Option<String>, Fault> {
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
pub(super) fn render_date(date: &Mapping) -> String {
    let part = |key: &str| date.get(key).and_then(Value::as_u64);
    match (part("year"), part("month"), part("day")) {
        (Some(y), Some(m), Some(d)) => format!("{y}-{m:02}-{d:02}"),
        (Some(y), Some(m), None) => format!("{y}-{m:02}"),
        (Some(y), None, _) => y.to_string(),
        _ => String::new(),
    }
}

pub(super) fn read_fen(value: &Value, at: Pointer) -> Result<ParsedFen, Fault> {
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
pub(super) fn read_algebraic(value: &Value, here: &[Step]) -> Result<Board, Fault> {
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
pub(super) fn piece_texts(value: &Value, side: &[Step]) -> Result<Vec<(String, Pointer)>, Fault> {
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
pub(super) fn parse_piece(text: &str) -> Result<(Role, Square), (usize, ParseErrorKind)> {
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
pub(super) fn read_options(value: &Value, here: &[Step], rules: &mut Rules) -> Result<(), Fault> {
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
            match read_option(&mut words, &ENGLISH) {
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

/// yacpdb's `twins:` map (label to twinning commands, e.g. `b: Move e1 d1`)
/// or list of commands; the twins come in the order written.
pub(super) fn read_twins(
    value: &Value,
    here: &[Step],
) -> Result<Vec<Result<TwinSpec, super::super::popeye::Located>>, Fault> {
    let texts: Vec<(String, Pointer)> = match value {
        Value::Null => Vec::new(),
        Value::Mapping(map) => map
            .iter()
            .map(|(key, item)| {
                let at = Pointer::value(&child(here, Step::Key(key_text(key))));
                scalar_text(item).map(|t| (t, at.clone())).ok_or_else(|| {
                    syntax(at, "expected twinning commands as text, e.g. Move e1 d1")
                })
            })
            .collect::<Result<_, _>>()?,
        Value::Sequence(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = Pointer::value(&child(here, Step::Index(i)));
                scalar_text(item).map(|t| (t, at.clone())).ok_or_else(|| {
                    syntax(at, "expected twinning commands as text, e.g. Move e1 d1")
                })
            })
            .collect::<Result<_, _>>()?,
        _ => {
            let message = "expected twins as a map like {b: Move e1 d1}";
            return Err(syntax(Pointer::value(here), message));
        }
    };
    let mut twins = Vec::new();
    for (text, at) in texts {
        let mut words = TextWords::new(&text);
        let located = |column: usize| at.clone().at_char(column.saturating_sub(1));
        let start = Location { line: 1, column: 1 };
        let twin = read_twin(&mut words, &ENGLISH, start, false)
            .map_err(|(location, kind)| fault(located(location.column), kind))?;
        if let Some(word) = words.peek() {
            let message = format!("expected a twinning command (move, exchange, add, remove, substitute, rotate, mirror, shift, polishtype, stipulation, continued), found {:?}", word.text);
            return Err(syntax(located(word.at.column), &message));
        }
        twins.push(Ok(twin));
    }
    Ok(twins)
}
