//! Twins: Popeye's twinning commands (`twin move h7 a6`, `zwilling tausche
//! d6 e5`, `jumeau ote c8`), read in the file's language and applied to the
//! diagram. yacpdb's `twins:` map uses the same commands in English.
//!
//! Each twin starts again from the diagram (or from the zero position),
//! unless it begins with `continued`, which builds on the twin before it.

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use super::*;
use crate::problem::Twin;

/// Popeye's twinning commands, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Twinning {
    Move,
    Exchange,
    Stipulation,
    SStipulation,
    Add,
    Remove,
    Continued,
    Rotate,
    Condition,
    Polish,
    Mirror,
    Shift,
    Substitute,
}

pub(crate) const TWINNINGS_EN: &[(&str, Twinning)] = &[
    ("move", Twinning::Move),
    ("exchange", Twinning::Exchange),
    ("stipulation", Twinning::Stipulation),
    ("sstipulation", Twinning::SStipulation),
    ("add", Twinning::Add),
    ("remove", Twinning::Remove),
    ("continued", Twinning::Continued),
    ("rotate", Twinning::Rotate),
    ("condition", Twinning::Condition),
    ("polishtype", Twinning::Polish),
    ("mirror", Twinning::Mirror),
    ("shift", Twinning::Shift),
    ("substitute", Twinning::Substitute),
];

pub(crate) const TWINNINGS_DE: &[(&str, Twinning)] = &[
    ("versetze", Twinning::Move),
    ("tausche", Twinning::Exchange),
    ("forderung", Twinning::Stipulation),
    ("sforderung", Twinning::SStipulation),
    ("hinzufuegen", Twinning::Add),
    ("entferne", Twinning::Remove),
    ("ferner", Twinning::Continued),
    ("drehung", Twinning::Rotate),
    ("bedingung", Twinning::Condition),
    ("farbwechsel", Twinning::Polish),
    ("spiegelung", Twinning::Mirror),
    ("verschiebung", Twinning::Shift),
    ("ersetze", Twinning::Substitute),
];

pub(crate) const TWINNINGS_FR: &[(&str, Twinning)] = &[
    ("deplacement", Twinning::Move),
    ("echange", Twinning::Exchange),
    ("enonce", Twinning::Stipulation),
    ("senonce", Twinning::SStipulation),
    ("ajoute", Twinning::Add),
    ("ote", Twinning::Remove),
    ("enplus", Twinning::Continued),
    ("rotation", Twinning::Rotate),
    ("condition", Twinning::Condition),
    ("couleurechange", Twinning::Polish),
    ("miroir", Twinning::Mirror),
    ("translation", Twinning::Shift),
    ("remplace", Twinning::Substitute),
];

/// A reflection of the board, named by the squares it swaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mirror {
    A1H1,
    A1A8,
    A1H8,
    A8H1,
}

const MIRRORS: &[(&str, Mirror)] = &[
    ("a1<-->h1", Mirror::A1H1),
    ("a1<-->a8", Mirror::A1A8),
    ("a1<-->h8", Mirror::A1H8),
    ("a8<-->h1", Mirror::A8H1),
];

/// One change a twin makes, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Move(Square, Square),
    Exchange(Square, Square),
    Stipulation(Stipulation),
    /// Pieces added; they replace what stands on their squares.
    Add(Vec<(Square, Piece)>),
    Remove(Vec<Square>),
    /// Quarter turns as Popeye counts them: 90 takes a1 to h1.
    Rotate(u32),
    Mirror(Mirror),
    /// Every piece moves by the vector from the first square to the second.
    Shift(Square, Square),
    /// White and Black swap colours.
    Polish,
    Substitute(Role, Role),
}

/// A twin as written: whether it builds on the twin before, and its changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TwinSpec {
    pub continued: bool,
    pub changes: Vec<(Change, Location)>,
    pub at: Location,
}

/// The diagram a twin changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub board: Board,
    pub stipulation: Stipulation,
}

/// Reads the twinning commands of one twin (the word `twin` already read),
/// up to the first word that is no twinning command.
pub(crate) fn read_twin<'a>(
    words: &mut impl Words<'a>,
    language: &Language,
    at: Location,
    allow_empty: bool,
) -> Result<TwinSpec, Located> {
    let mut spec = TwinSpec {
        continued: false,
        changes: Vec::new(),
        at,
    };
    while let Some(word) = words.peek() {
        let twinning = match lookup(entries(language.twinnings), word.text) {
            Lookup::Found(twinning) => twinning,
            Lookup::Ambiguous(names) => {
                let message = format!(
                    "ambiguous twinning {:?}: could be {}",
                    word.text,
                    names.join(", ")
                );
                return Err(syntax(word.at, message));
            }
            Lookup::NotFound => break,
        };
        words.bump();
        let change = match twinning {
            Twinning::Continued if spec.changes.is_empty() && !spec.continued => {
                spec.continued = true;
                continue;
            }
            Twinning::Continued => {
                let message = "continued must come first in a twin".to_owned();
                return Err(syntax(word.at, message));
            }
            Twinning::Move => {
                let (from, to) = two_squares(words, &word)?;
                Change::Move(from, to)
            }
            Twinning::Exchange => {
                let (a, b) = two_squares(words, &word)?;
                Change::Exchange(a, b)
            }
            Twinning::Shift => {
                let (a, b) = two_squares(words, &word)?;
                Change::Shift(a, b)
            }
            Twinning::Remove => {
                let squares = read_squares(words, &word, word.text)?;
                Change::Remove(squares.into_iter().map(|(sq, _)| sq).collect())
            }
            Twinning::Stipulation => {
                let (stipulation, _) = read_stipulation_word(words, &word)?;
                Change::Stipulation(stipulation)
            }
            Twinning::Add => {
                let mut board = Board::empty();
                let ends = |w: &str| {
                    lookup(entries(language.twinnings), w) != Lookup::NotFound
                        || language.is_keyword(w)
                };
                read_pieces(words, &mut board, &word, language, Occupied::Replace, &ends)?;
                let pieces = board.iter().collect();
                Change::Add(pieces)
            }
            Twinning::Rotate => {
                let degrees = words
                    .peek()
                    .filter(|w| matches!(w.text, "90" | "180" | "270"));
                let Some(degrees) = degrees else {
                    let message = format!("expected 90, 180 or 270 after {}", word.text);
                    return Err(syntax(words.peek().map_or(word.at, |w| w.at), message));
                };
                words.bump();
                Change::Rotate(degrees.text.parse::<u32>().unwrap_or(0) / 90)
            }
            Twinning::Mirror => {
                let mirror = words.peek().map(|w| (w, lookup(entries(MIRRORS), w.text)));
                let Some((_, Lookup::Found(mirror))) = mirror else {
                    let message = format!(
                        "expected a1<-->h1, a1<-->a8, a1<-->h8 or a8<-->h1 after {}",
                        word.text
                    );
                    return Err(syntax(words.peek().map_or(word.at, |w| w.at), message));
                };
                words.bump();
                Change::Mirror(mirror)
            }
            Twinning::Polish => Change::Polish,
            Twinning::Substitute => {
                let from = read_walk(words, &word, language)?;
                let to = read_walk(words, &word, language)?;
                Change::Substitute(from, to)
            }
            Twinning::Condition => {
                let name = words.peek().filter(|w| !language.is_keyword(w.text));
                let (at, what) = name.map_or((word.at, "condition".to_owned()), |w| {
                    (w.at, format!("condition {}", w.text))
                });
                return Err((at, ParseErrorKind::Unsupported(format!("twin by {what}"))));
            }
            Twinning::SStipulation => {
                let message = "structured stipulation (sstipulation) in a twin".to_owned();
                return Err((word.at, ParseErrorKind::Unsupported(message)));
            }
        };
        spec.changes.push((change, word.at));
    }
    if spec.changes.is_empty() && !allow_empty {
        let found = words
            .peek()
            .map_or(String::new(), |w| format!(", found {:?}", w.text));
        let names: Vec<&str> = language.twinnings.iter().map(|(n, _)| *n).collect();
        let message = format!("expected a twinning ({}){found}", names.join(", "));
        return Err(syntax(words.peek().map_or(at, |w| w.at), message));
    }
    Ok(spec)
}

/// Two squares, in one word (`h7a6`) or two (`h7 a6`).
fn two_squares<'a>(
    words: &mut impl Words<'a>,
    command: &Word<'_>,
) -> Result<(Square, Square), Located> {
    let squares = read_squares(words, command, command.text)?;
    match squares.as_slice() {
        [(a, _), (b, _)] => Ok((*a, *b)),
        _ => {
            let at = squares.first().map_or(command.at, |(_, at)| *at);
            let message = format!("expected two squares after {}", command.text);
            Err(syntax(at, message))
        }
    }
}

/// A piece letter of `language` standing alone (`substitute r b`).
fn read_walk<'a>(
    words: &mut impl Words<'a>,
    command: &Word<'_>,
    language: &Language,
) -> Result<Role, Located> {
    let Some(word) = words.peek() else {
        let message = format!("expected a piece letter after {}", command.text);
        return Err(syntax(command.at, message));
    };
    words.bump();
    popeye_role(word.text, language).map_err(|kind| (word.at, kind))
}

/// The stipulation after `stipulation` (in a problem or a twin).
pub(super) fn read_stipulation_word<'a>(
    words: &mut impl Words<'a>,
    command: &Word<'_>,
) -> Result<(Stipulation, Location), Located> {
    let Some(word) = words.peek() else {
        let message = format!("expected a stipulation like #2 after {}", command.text);
        return Err(syntax(command.at, message));
    };
    words.bump();
    let mut text = word.text.to_owned();
    let lower = text.to_ascii_lowercase();
    if lower == "spg" || lower == "dia" {
        if let Some(length) = words
            .peek()
            .filter(|w| w.text.starts_with(|c: char| c.is_ascii_digit()))
        {
            words.bump();
            text.push_str(length.text);
        }
    }
    let stipulation = text
        .parse::<Stipulation>()
        .map_err(|e| (word.at, ParseErrorKind::Stipulation(e)))?;
    Ok((stipulation, word.at))
}

/// `(file, rank)` of a square, 0-based.
fn coords(square: Square) -> (u32, u32) {
    (u32::from(square.file()), u32::from(square.rank()))
}

fn square_at(file: i32, rank: i32) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(File::new(file as u32), Rank::new(rank as u32)))
}

/// Where `square` goes under a board transformation (Popeye's formulas).
fn transform(square: Square, change: &Change) -> Square {
    let (f, r) = coords(square);
    let (f, r) = match change {
        Change::Rotate(1) => (7 - r, f),
        Change::Rotate(2) => (7 - f, 7 - r),
        Change::Rotate(3) => (r, 7 - f),
        Change::Mirror(Mirror::A1H1) => (7 - f, r),
        Change::Mirror(Mirror::A1A8) => (f, 7 - r),
        Change::Mirror(Mirror::A8H1) => (r, f),
        Change::Mirror(Mirror::A1H8) => (7 - r, 7 - f),
        _ => (f, r),
    };
    Square::from_coords(File::new(f), Rank::new(r))
}

/// A piece as problem notation names it: `wK`, `bS`.
fn piece_name(piece: Piece) -> String {
    let colour = if piece.color == Color::White {
        'w'
    } else {
        'b'
    };
    format!("{colour}{}", role_letter(piece.role))
}

fn role_letter(role: Role) -> char {
    match role {
        Role::Knight => 'S',
        other => other.upper_char(),
    }
}

/// Applies a twin's changes to `position`. Returns the new position and the
/// derivation in English problem notation (`wKh7-->a6 +bRe6`).
pub(crate) fn apply(
    spec: &TwinSpec,
    mut position: Position,
) -> Result<(Position, String), Located> {
    let mut shown = Vec::new();
    for (change, at) in &spec.changes {
        let board = &mut position.board;
        let empty = |square: Square| {
            let message = format!("square {square} is empty: nothing to move or remove");
            (*at, ParseErrorKind::Syntax(message))
        };
        match change {
            Change::Move(from, to) => {
                let piece = board.remove_piece_at(*from).ok_or_else(|| empty(*from))?;
                board.set_piece_at(*to, piece);
                shown.push(format!("{}{from}-->{to}", piece_name(piece)));
            }
            Change::Exchange(a, b) => {
                let pa = board.piece_at(*a).ok_or_else(|| empty(*a))?;
                let pb = board.piece_at(*b).ok_or_else(|| empty(*b))?;
                board.set_piece_at(*a, pb);
                board.set_piece_at(*b, pa);
                shown.push(format!("{}{a}<-->{}{b}", piece_name(pa), piece_name(pb)));
            }
            Change::Stipulation(stipulation) => {
                position.stipulation = *stipulation;
                shown.push(stipulation.to_string());
            }
            Change::Add(pieces) => {
                for (square, piece) in pieces {
                    board.set_piece_at(*square, *piece);
                    shown.push(format!("+{}{square}", piece_name(*piece)));
                }
            }
            Change::Remove(squares) => {
                for square in squares {
                    let piece = board
                        .remove_piece_at(*square)
                        .ok_or_else(|| empty(*square))?;
                    shown.push(format!("-{}{square}", piece_name(piece)));
                }
            }
            Change::Rotate(quarters) => {
                *board = board
                    .iter()
                    .map(|(sq, p)| (transform(sq, change), p))
                    .collect();
                shown.push(format!("rotate {}", quarters * 90));
            }
            Change::Mirror(mirror) => {
                *board = board
                    .iter()
                    .map(|(sq, p)| (transform(sq, change), p))
                    .collect();
                let name = MIRRORS
                    .iter()
                    .find(|(_, m)| m == mirror)
                    .map_or("", |(n, _)| n);
                shown.push(format!("mirror {name}"));
            }
            Change::Shift(from, to) => {
                let (ff, fr) = coords(*from);
                let (tf, tr) = coords(*to);
                let (df, dr) = (tf as i32 - ff as i32, tr as i32 - fr as i32);
                let mut shifted = Board::empty();
                for (square, piece) in board.iter() {
                    let (f, r) = coords(square);
                    let Some(target) = square_at(f as i32 + df, r as i32 + dr) else {
                        let message =
                            format!("shift {from} {to} takes the piece on {square} off the board");
                        return Err((*at, ParseErrorKind::Syntax(message)));
                    };
                    shifted.set_piece_at(target, piece);
                }
                *board = shifted;
                shown.push(format!("shift {from} {to}"));
            }
            Change::Polish => {
                *board = board
                    .iter()
                    .map(|(sq, p)| {
                        (
                            sq,
                            Piece {
                                color: !p.color,
                                role: p.role,
                            },
                        )
                    })
                    .collect();
                shown.push("PolishType".to_owned());
            }
            Change::Substitute(from, to) => {
                let mut substituted = board.clone();
                for (square, piece) in board.iter().filter(|(_, p)| p.role == *from) {
                    substituted.set_piece_at(square, to.of(piece.color));
                }
                *board = substituted;
                shown.push(format!("{} ==> {}", role_letter(*from), role_letter(*to)));
            }
        }
    }
    Ok((position, shown.join(" ")))
}

/// The label of the twin at `index` (0-based): a) … z), then aa) … zz),
/// aaa), … (bijective base 26, so every index has its own label).
pub(crate) fn label(index: usize) -> String {
    let mut letters = Vec::new();
    let mut n = index + 1;
    while n > 0 {
        n -= 1;
        letters.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
    }
    letters.iter().rev().collect()
}

/// The twins of one problem: the diagram (`zero`), whether it is a zero
/// position (not a twin itself), and each twin's commands. Returns every
/// twin's position and its `Twin` description, or the first error.
pub(crate) fn expand(
    zero: Position,
    zero_position: bool,
    specs: &[Result<TwinSpec, Located>],
) -> Vec<Result<(Position, Twin), Located>> {
    let mut twins = Vec::new();
    if !zero_position {
        let twin = Twin {
            label: label(0),
            continued: false,
            derivation: String::new(),
        };
        if specs.is_empty() {
            return Vec::from([Ok((zero, twin))]);
        }
        twins.push(Ok((zero.clone(), twin)));
    }
    let mut previous = zero.clone();
    for spec in specs {
        let spec = match spec {
            Ok(spec) => spec,
            Err(error) => {
                twins.push(Err(error.clone()));
                continue;
            }
        };
        let base = if spec.continued {
            previous.clone()
        } else {
            zero.clone()
        };
        let result = apply(spec, base).map(|(position, derivation)| {
            previous = position.clone();
            let twin = Twin {
                label: label(twins.len()),
                continued: spec.continued,
                derivation,
            };
            (position, twin)
        });
        twins.push(result);
    }
    twins
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn every_twin_has_its_own_label() {
        let labels: Vec<String> = (0..30_000).map(label).collect();
        for (index, expected) in [
            (0, "a"),
            (25, "z"),
            (26, "aa"),
            (27, "ab"),
            (51, "az"),
            (52, "ba"),
            (701, "zz"),
            (702, "aaa"),
            (703, "aab"),
        ] {
            assert_eq!(labels[index], expected);
        }
        let distinct: std::collections::HashSet<&String> = labels.iter().collect();
        assert_eq!(distinct.len(), labels.len());
    }
}
