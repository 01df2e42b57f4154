//! The `pieces` and `forsyth` commands: colours, piece letters, squares.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Colour {
    White,
    Black,
    Neutral,
    TotalInvisible,
}

/// Popeye's piece attributes, all fairy, in its order; cookd names them
/// in English.
const ATTRIBUTE_NAMES: [&str; 20] = [
    "royal",
    "kamikaze",
    "paralysing",
    "chameleon",
    "jigger",
    "volage",
    "functionary",
    "halfneutral",
    "hurdlecolourchanging",
    "protean",
    "magic",
    "uncapturable",
    "patrol",
    "frischauf",
    "bul",
    "dob",
    "anda",
    "andainverse",
    "alicea",
    "aliceb",
];

const fn attributes(names: &'static [&'static str; 20]) -> [(&'static str, &'static str); 20] {
    let mut table = [("", ""); 20];
    let mut i = 0;
    while i < 20 {
        table[i] = (names[i], ATTRIBUTE_NAMES[i]);
        i += 1;
    }
    table
}

pub(super) const ATTRIBUTES_EN: &[(&str, &str)] = &attributes(&ATTRIBUTE_NAMES);
pub(super) const ATTRIBUTES_DE: &[(&str, &str)] = &attributes(&[
    "koeniglich",
    "kamikaze",
    "paralysierend",
    "chamaeleon",
    "jigger",
    "volage",
    "beamtet",
    "halbneutral",
    "sprungbockfarbewechselnd",
    "proteisch",
    "magisch",
    "unschlagbar",
    "patrouille",
    "frischauf",
    "bul",
    "dob",
    "anda",
    "andainvers",
    "alicea",
    "aliceb",
]);
pub(super) const ATTRIBUTES_FR: &[(&str, &str)] = &attributes(&[
    "royale",
    "kamikaze",
    "paralysante",
    "cameleon",
    "jigger",
    "volage",
    "fonctionnaire",
    "demineutre",
    "couleurechangeantsautoir",
    "protee",
    "magique",
    "imprenable",
    "patrouille",
    "frischauf",
    "bul",
    "dob",
    "anda",
    "andainverse",
    "alicea",
    "aliceb",
]);

/// The orthodox role of a piece name of `language` (one letter: in English
/// S is the knight; two letters are always fairy).
pub(crate) fn popeye_role(walk: &str, language: &Language) -> Result<Role, ParseErrorKind> {
    let mut letters = walk.chars();
    if let (Some(letter), None) = (letters.next(), letters.next()) {
        if let Some(role) = language.role(letter) {
            return Ok(role);
        }
        if language == &ENGLISH && letter.eq_ignore_ascii_case(&'n') {
            return Err(ParseErrorKind::Unsupported(
                "fairy piece N (nightrider; Popeye writes a knight as S)".into(),
            ));
        }
    }
    Err(ParseErrorKind::Unsupported(format!("fairy piece {walk}")))
}

/// What a word means inside `pieces`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PieceWord<'a> {
    Colour(Colour),
    Attribute(&'static str),
    /// A piece letter and its squares, as in `pa2b3`.
    Pieces {
        walk: &'a str,
        squares: Vec<Square>,
    },
    /// A piece letter alone; its squares follow as the next word.
    Walk(&'a str),
    Other,
}

/// What `text` means inside `pieces`; `squares_follow` says whether the
/// next word is a list of squares. Inside a group Popeye reads pieces
/// first, so a lone letter followed by squares is a piece even where it
/// abbreviates a colour (English `b a1`: a bishop, not black).
pub(super) fn piece_word<'a>(
    text: &'a str,
    language: &Language,
    squares_follow: bool,
) -> PieceWord<'a> {
    let as_piece = piece_shape(text);
    match as_piece {
        PieceWord::Pieces { .. } => return as_piece,
        PieceWord::Walk(_) if squares_follow => return as_piece,
        _ => {}
    }
    if let Lookup::Found(colour) = lookup(entries(language.colours), text) {
        return PieceWord::Colour(colour);
    }
    if let Lookup::Found(attribute) = lookup(entries(language.attributes), text) {
        return PieceWord::Attribute(attribute);
    }
    as_piece
}

/// `text` read as a piece name and its squares, whatever the language.
fn piece_shape(text: &str) -> PieceWord<'_> {
    if !text.is_ascii() || !text.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return PieceWord::Other;
    }
    // Popeye's rule: an odd length means a one-letter piece, an even length
    // a two-letter (fairy) piece, then squares of two characters each.
    let walk_len = if text.len() % 2 == 1 { 1 } else { 2 };
    if text.len() <= 2 {
        let is_square = square_list(text).is_some();
        return if is_square {
            PieceWord::Other
        } else {
            PieceWord::Walk(text)
        };
    }
    match square_list(&text[walk_len..]) {
        Some(squares) => PieceWord::Pieces {
            walk: &text[..walk_len],
            squares,
        },
        None => PieceWord::Other,
    }
}

/// The error for a word that should have been a piece.
pub(super) fn bad_piece(word: &Word<'_>, language: &Language) -> Located {
    // Popeye's hunters: `s/bb8` moves forward as a knight, back as a bishop.
    if let Some(slash) = word.text.find('/').filter(|&i| i <= 2) {
        // The slash and the two characters after it (which need not be
        // ASCII: slicing by bytes there panicked, found by fuzzing).
        let walk: String = word.text.chars().take(slash + 3).collect();
        let message = format!("fairy piece {walk} (a hunter)");
        return (word.at, ParseErrorKind::Unsupported(message));
    }
    let first = word.text.chars().next().unwrap_or(' ');
    let letters: String = language
        .letters
        .iter()
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if language.role(first).is_some() && word.text.len() > 1 {
        let rest: String = word.text.chars().skip(1).collect();
        let message =
            format!("expected squares like e4 after piece letter {first}, found {rest:?}");
        return syntax(word.offset(1), message);
    }
    let colours: Vec<&str> = language.colours.iter().take(2).map(|(n, _)| *n).collect();
    let message = format!(
        "expected a piece like {}a1 (one of {} followed by squares), or {}, found {:?}",
        letters.chars().next().unwrap_or('K'),
        letters
            .chars()
            .map(String::from)
            .collect::<Vec<_>>()
            .join(" "),
        colours.join("/"),
        word.text
    );
    syntax(word.at, message)
}

/// How `read_pieces` puts a piece on an occupied square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Occupied {
    /// An error: in a diagram a square given twice is a typo.
    Refuse,
    /// The new piece replaces the old one (Popeye's twinning `add`).
    Replace,
}

/// Reads the groups of `pieces` (`white Ka1 Qb2 black Ke8`) onto `board`,
/// up to the first word that is neither a colour nor a piece and for which
/// `ends` is true (a keyword); any other word is an error.
pub(super) fn read_pieces<'a>(
    words: &mut impl Words<'a>,
    board: &mut Board,
    keyword: &Word<'_>,
    language: &Language,
    occupied: Occupied,
    ends: &dyn Fn(&str) -> bool,
) -> Result<(), Located> {
    let mut colour: Option<Color> = None;
    let colour_names = {
        let names: Vec<&str> = language.colours.iter().take(2).map(|(n, _)| *n).collect();
        names.join(" or ")
    };
    while let Some(word) = words.peek() {
        // A group starts with its colour (`wh b3d4`: white, then a piece);
        // inside it Popeye reads pieces first (`b a2`: a bishop).
        let squares_follow = colour.is_some()
            && words
                .peek_after()
                .is_some_and(|w| square_list(w.text).is_some());
        let kind = piece_word(word.text, language, squares_follow);
        let color = match (&kind, colour) {
            (PieceWord::Colour(c), _) => {
                colour = Some(match c {
                    Colour::White => Color::White,
                    Colour::Black => Color::Black,
                    Colour::Neutral => {
                        return Err((
                            word.at,
                            ParseErrorKind::Unsupported("neutral pieces".into()),
                        ))
                    }
                    Colour::TotalInvisible => {
                        let message = "total invisible pieces".into();
                        return Err((word.at, ParseErrorKind::Unsupported(message)));
                    }
                });
                words.bump();
                continue;
            }
            (PieceWord::Attribute(name), _) => {
                let message = format!("piece attribute {name}");
                return Err((word.at, ParseErrorKind::Unsupported(message)));
            }
            (_, None) => {
                let message = format!(
                    "expected {colour_names} after {}, found {:?}",
                    keyword.text, word.text
                );
                return Err(syntax(word.at, message));
            }
            (_, Some(color)) => color,
        };
        match kind {
            PieceWord::Pieces { walk, squares } => {
                words.bump();
                let role = popeye_role(walk, language).map_err(|kind| (word.at, kind))?;
                let located = squares
                    .iter()
                    .enumerate()
                    .map(|(i, sq)| (*sq, word.offset(walk.len() + 2 * i)));
                place(board, role.of(color), located, occupied)?;
            }
            PieceWord::Walk(walk) if squares_follow || !ends(word.text) => {
                words.bump();
                let squares_word = words.peek();
                let squares = squares_word.and_then(|w| square_list(w.text).map(|s| (w, s)));
                let Some((squares_word, squares)) = squares else {
                    let found =
                        squares_word.map_or(String::new(), |w| format!(", found {:?}", w.text));
                    let message =
                        format!("expected squares like e4 after piece letter {walk}{found}");
                    return Err(syntax(squares_word.map_or(word.at, |w| w.at), message));
                };
                let role = popeye_role(walk, language).map_err(|kind| (word.at, kind))?;
                words.bump();
                let located = squares
                    .iter()
                    .enumerate()
                    .map(|(i, sq)| (*sq, squares_word.offset(2 * i)));
                place(board, role.of(color), located, occupied)?;
            }
            _ => {
                if !ends(word.text) {
                    return Err(bad_piece(&word, language));
                }
                break;
            }
        }
    }
    if colour.is_none() {
        let at = words.peek().map_or(keyword.at, |w| w.at);
        let message = format!("expected {colour_names} after {}", keyword.text);
        return Err(syntax(at, message));
    }
    Ok(())
}

/// Puts pieces on their squares; a square given twice is an error (Popeye
/// would silently keep the last piece, hiding a typo).
pub(super) fn place(
    board: &mut Board,
    piece: shakmaty::Piece,
    squares: impl Iterator<Item = (Square, Location)>,
    occupied: Occupied,
) -> Result<(), Located> {
    for (square, at) in squares {
        if occupied == Occupied::Refuse && board.piece_at(square).is_some() {
            return Err(syntax(at, format!("square {square} is given twice")));
        }
        board.set_piece_at(square, piece);
    }
    Ok(())
}

/// Reads Popeye's Forsyth notation as Popeye reads it: squares from a8 to
/// h1, rank after rank; a number (one or two digits) skips that many
/// squares and runs on across ranks; `/` is only for the eye, so ranks may
/// be left short (`56/BK4bk/`); upper case is White, lower case Black, `+`
/// and `-` force White and Black; the letters are the language's. Squares
/// skipped past h1 are harmless, a piece past h1 is an error. Errors carry
/// the character index in `text`.
pub(super) fn parse_forsyth(
    text: &str,
    language: &Language,
) -> Result<Board, (usize, ParseErrorKind)> {
    let mut board = Board::empty();
    // Squares covered so far, from a8 onwards.
    let mut filled: u32 = 0;
    let mut forced: Option<Color> = None;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '/' => i += 1,
            '0'..='9' => {
                let mut n = c.to_digit(10).unwrap_or(0);
                let mut len = 1;
                if let Some(d) = chars.get(i + 1).and_then(|c| c.to_digit(10)) {
                    n = 10 * n + d;
                    len = 2;
                }
                filled = filled.saturating_add(n);
                i += len;
            }
            '+' | '-' => {
                forced = Some(Color::from_white(c == '+'));
                i += 1;
            }
            '=' => return Err((i, ParseErrorKind::Unsupported("neutral pieces".into()))),
            '.' => {
                let walk: String = chars.iter().skip(i + 1).take(2).collect();
                return Err((
                    i,
                    ParseErrorKind::Unsupported(format!("fairy piece {walk}")),
                ));
            }
            c if c.is_ascii_alphabetic() => {
                let role = popeye_role(&c.to_string(), language).map_err(|kind| (i, kind))?;
                let color = forced
                    .take()
                    .unwrap_or(Color::from_white(c.is_ascii_uppercase()));
                if filled >= 64 {
                    let message = format!(
                        "piece {c} after h1: the squares before it cover more than the 64 of the board"
                    );
                    return Err((i, ParseErrorKind::Fen(message)));
                }
                let square = Square::from_coords(File::new(filled % 8), Rank::new(7 - filled / 8));
                board.set_piece_at(square, role.of(color));
                filled += 1;
                i += 1;
            }
            _ => {
                let letters: String = language
                    .letters
                    .iter()
                    .map(|l| format!("{} ", l.to_ascii_uppercase()))
                    .collect();
                let message = format!(
                    "unexpected {c:?} in forsyth: expected a piece letter ({}), a number of empty squares or '/'",
                    letters.trim_end()
                );
                return Err((i, ParseErrorKind::Fen(message)));
            }
        }
    }
    Ok(board)
}
