//! The `pieces` and `forsyth` commands: colours, piece letters, squares.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Colour {
    White,
    Black,
    Neutral,
    TotalInvisible,
}

pub(super) const COLOURS: &[(&str, Colour)] = &[
    ("white", Colour::White),
    ("black", Colour::Black),
    ("neutral", Colour::Neutral),
    ("totalinvisible", Colour::TotalInvisible),
];

/// Popeye's English piece attributes: all fairy.
pub(super) const ATTRIBUTES: &[(&str, &str)] = &[
    ("royal", "royal"),
    ("kamikaze", "kamikaze"),
    ("paralysing", "paralysing"),
    ("chameleon", "chameleon"),
    ("jigger", "jigger"),
    ("volage", "volage"),
    ("functionary", "functionary"),
    ("halfneutral", "halfneutral"),
    ("hurdlecolourchanging", "hurdlecolourchanging"),
    ("protean", "protean"),
    ("magic", "magic"),
    ("uncapturable", "uncapturable"),
    ("patrol", "patrol"),
    ("frischauf", "frischauf"),
];

/// The orthodox role of a Popeye piece letter (English: S is the knight).
pub(crate) fn popeye_role(walk: &str) -> Result<Role, ParseErrorKind> {
    match walk.to_ascii_lowercase().as_str() {
        "k" => Ok(Role::King),
        "q" => Ok(Role::Queen),
        "r" => Ok(Role::Rook),
        "b" => Ok(Role::Bishop),
        "s" => Ok(Role::Knight),
        "p" => Ok(Role::Pawn),
        "n" => Err(ParseErrorKind::Unsupported(
            "fairy piece N (nightrider; Popeye writes a knight as S)".into(),
        )),
        _ => Err(ParseErrorKind::Unsupported(format!("fairy piece {walk}"))),
    }
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

pub(super) fn piece_word(text: &str) -> PieceWord<'_> {
    if let Lookup::Found(colour) = lookup(COLOURS, text) {
        return PieceWord::Colour(colour);
    }
    if let Lookup::Found(attribute) = lookup(ATTRIBUTES, text) {
        return PieceWord::Attribute(attribute);
    }
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
pub(super) fn bad_piece(word: &Word<'_>) -> Located {
    let first = word.text.chars().next().unwrap_or(' ');
    if "kqrbspKQRBSP".contains(first) && word.text.len() > 1 {
        let rest: String = word.text.chars().skip(1).collect();
        let message =
            format!("expected squares like e4 after piece letter {first}, found {rest:?}");
        return syntax(word.offset(1), message);
    }
    let message = format!(
        "expected a piece like Ka1 (K Q R B S P followed by squares), or white/black, found {:?}",
        word.text
    );
    syntax(word.at, message)
}

/// Reads the groups of `pieces` (`white Ka1 Qb2 black Ke8`) onto `board`.
pub(super) fn read_pieces(
    lexer: &mut Lexer<'_>,
    board: &mut Board,
    keyword: &Word<'_>,
) -> Result<(), Located> {
    let mut colour: Option<Color> = None;
    while let Some(word) = lexer.peek() {
        let kind = piece_word(word.text);
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
                lexer.bump();
                continue;
            }
            (PieceWord::Attribute(name), _) => {
                let message = format!("piece attribute {name}");
                return Err((word.at, ParseErrorKind::Unsupported(message)));
            }
            (_, None) => {
                let message = format!(
                    "expected white or black after pieces, found {:?}",
                    word.text
                );
                return Err(syntax(word.at, message));
            }
            (_, Some(color)) => color,
        };
        match kind {
            PieceWord::Pieces { walk, squares } => {
                lexer.bump();
                let role = popeye_role(walk).map_err(|kind| (word.at, kind))?;
                let located = squares
                    .iter()
                    .enumerate()
                    .map(|(i, sq)| (*sq, word.offset(walk.len() + 2 * i)));
                place(board, role.of(color), located)?;
            }
            PieceWord::Walk(walk) => {
                lexer.bump();
                let squares_word = lexer.peek();
                let squares = squares_word.and_then(|w| square_list(w.text).map(|s| (w, s)));
                let Some((squares_word, squares)) = squares else {
                    let found =
                        squares_word.map_or(String::new(), |w| format!(", found {:?}", w.text));
                    let message =
                        format!("expected squares like e4 after piece letter {walk}{found}");
                    return Err(syntax(squares_word.map_or(word.at, |w| w.at), message));
                };
                let role = popeye_role(walk).map_err(|kind| (word.at, kind))?;
                lexer.bump();
                let located = squares
                    .iter()
                    .enumerate()
                    .map(|(i, sq)| (*sq, squares_word.offset(2 * i)));
                place(board, role.of(color), located)?;
            }
            _ => {
                if lookup(KEYWORDS, word.text) == Lookup::NotFound {
                    return Err(bad_piece(&word));
                }
                break;
            }
        }
    }
    if colour.is_none() {
        let at = lexer.peek().map_or(keyword.at, |w| w.at);
        return Err(syntax(at, "expected white or black after pieces".into()));
    }
    Ok(())
}

/// Puts pieces on their squares; a square given twice is an error (Popeye
/// would silently keep the last piece, hiding a typo).
pub(super) fn place(
    board: &mut Board,
    piece: shakmaty::Piece,
    squares: impl Iterator<Item = (Square, Location)>,
) -> Result<(), Located> {
    for (square, at) in squares {
        if board.piece_at(square).is_some() {
            return Err(syntax(at, format!("square {square} is given twice")));
        }
        board.set_piece_at(square, piece);
    }
    Ok(())
}

/// Reads Popeye's Forsyth notation: ranks from 8 down, digits for empty
/// squares (one or two digits), upper case White, lower case black, `S` for
/// knights, `+`/`-` to force White/Black. With `/` between ranks every rank
/// must hold 8 squares; without, the squares run on and need not fill the
/// board (as in Popeye). Errors carry the character index in `text`.
pub(super) fn parse_forsyth(text: &str) -> Result<Board, (usize, ParseErrorKind)> {
    let ranked = text.contains('/');
    let mut board = Board::empty();
    let mut fill = Fill {
        ranked,
        filled: 0,
        in_rank: 0,
    };
    let mut forced: Option<Color> = None;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '/' => {
                fill.end_rank(i)?;
                i += 1;
            }
            '0'..='9' => {
                let mut n = c.to_digit(10).unwrap_or(0);
                let mut len = 1;
                if let Some(d) = chars.get(i + 1).and_then(|c| c.to_digit(10)) {
                    n = 10 * n + d;
                    len = 2;
                }
                fill.advance(n, i)?;
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
                let role = popeye_role(&c.to_string()).map_err(|kind| (i, kind))?;
                let color = forced
                    .take()
                    .unwrap_or(Color::from_white(c.is_ascii_uppercase()));
                let square = fill.advance(1, i)?;
                board.set_piece_at(square, role.of(color));
                i += 1;
            }
            _ => {
                let message = format!(
                    "unexpected {c:?} in forsyth: expected a piece letter (K Q R B S P), a number of empty squares or '/'"
                );
                return Err((i, ParseErrorKind::Fen(message)));
            }
        }
    }
    fill.finish(chars.len())?;
    Ok(board)
}

/// How far a Forsyth string has filled the board, from a8 onwards.
#[derive(Debug)]
pub(super) struct Fill {
    ranked: bool,
    filled: u32,
    in_rank: u32,
}

impl Fill {
    pub(super) fn rank(&self) -> u32 {
        8 - (self.filled - self.in_rank) / 8
    }

    /// Covers `n` squares (the string's character `i`); returns the first.
    pub(super) fn advance(&mut self, n: u32, i: usize) -> Result<Square, (usize, ParseErrorKind)> {
        let first = self.filled;
        self.in_rank += n;
        self.filled += n;
        if self.ranked && self.in_rank > 8 {
            let message = format!("rank {} has more than 8 squares: expected 8", self.rank());
            return Err((i, ParseErrorKind::Fen(message)));
        }
        if self.filled > 64 {
            return Err((
                i,
                ParseErrorKind::Fen("more than 64 squares: expected 8 ranks of 8".into()),
            ));
        }
        let first = first.min(63);
        Ok(Square::from_coords(
            File::new(first % 8),
            Rank::new(7 - first / 8),
        ))
    }

    pub(super) fn end_rank(&mut self, i: usize) -> Result<(), (usize, ParseErrorKind)> {
        if self.in_rank != 8 {
            let message = format!(
                "rank {} has {} squares: expected 8 before '/'",
                self.rank(),
                self.in_rank
            );
            return Err((i, ParseErrorKind::Fen(message)));
        }
        self.in_rank = 0;
        Ok(())
    }

    pub(super) fn finish(&self, end: usize) -> Result<(), (usize, ParseErrorKind)> {
        if self.ranked && (self.filled != 64 || self.in_rank != 8) {
            let message = format!(
                "forsyth describes {} squares: expected 8 ranks of 8",
                self.filled
            );
            return Err((end, ParseErrorKind::Fen(message)));
        }
        Ok(())
    }
}
