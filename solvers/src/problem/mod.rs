//! The problem model and its input formats.
//!
//! A problem file is read by [`parse`], which detects the format by content
//! and returns one entry per problem in the file: a [`Problem`] or the
//! [`ParseError`] that says where and why that problem could not be read.
//! One bad problem never hides the others of the same file.
//!
//! Formats (one submodule each):
//! - [`yaml`]: yacpdb-style entries, a single mapping or a list of them;
//! - [`popeye`]: Popeye input, orthodox subset, several problems joined by `next`;
//! - [`stelvio`]: Stelvio `problems.txt`, a FEN line then a half-move count line;
//! - [`fenline`]: one `FEN ; stipulation` per line (or EPD with a `stip` opcode).

pub mod fenline;
pub mod popeye;
pub mod stelvio;
pub mod yaml;

pub use fenline::to_fenline;
pub use popeye::to_popeye;
pub use stelvio::to_stelvio;
pub use yaml::to_yaml;

use std::fmt;

use shakmaty::{Bitboard, Board, Color, Role, Setup, Square};

use crate::stipulation::Stipulation;

/// Files larger than this are refused before any parsing: no chess problem
/// collection is that big, and reading one would only tie up a worker.
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;

/// One chess problem, as read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where the problem came from: the file name and the 1-based line its
    /// text starts on.
    pub origin: Origin,
    /// An identifier given in the file (yacpdb `id`, Popeye `title`), if any.
    pub id: Option<String>,
    pub authors: Vec<String>,
    /// Publication (Popeye `origin`, yacpdb `source`).
    pub source: Option<String>,
    pub stipulation: Stipulation,
    /// The diagram: board, side to move, castling rights, en-passant square.
    /// Not validated here; that is the legality stage's job.
    pub setup: Setup,
    /// Which of the setup's castling rights and en-passant square the file
    /// states, rather than leaving them to the format's default.
    pub stated: Stated,
    /// Orthodox solving and display options given in the file, in Popeye's
    /// spelling, normalised to lower case with their arguments (e.g.
    /// `variations`, `try`, `maxsolutions 2`). Options that change the
    /// position or the play (`nocastling`, `enpassant`, `whitetoplay`) are
    /// not kept here: they are applied to `setup` and `stipulation` instead,
    /// so that every format writes them back the same way.
    pub options: Vec<String>,
    /// How many solutions the composer intends (helpmates with several
    /// solutions); `None` means one.
    pub intended_solutions: Option<u32>,
    /// The solution claimed by the composer, as written in the file.
    pub solution: Option<String>,
    /// Which twin of its entry this problem is, when the entry has twins.
    pub twin: Option<Twin>,
}

/// One twin of a twinned entry: its label and how it differs from the
/// diagram (or, when `continued`, from the twin before it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Twin {
    /// `a`, `b`, … as problemists label twins.
    pub label: String,
    /// Built on the twin before it rather than on the diagram.
    pub continued: bool,
    /// The changes in problem notation (`wKh7-->a6`, `+bRe6`, `h=2`);
    /// empty for the diagram itself.
    pub derivation: String,
}

impl Twin {
    /// `b) wKh7-->a6`, or `+c) -bPa6` for a continued twin.
    pub fn heading(&self) -> String {
        let plus = if self.continued { "+" } else { "" };
        let derivation = if self.derivation.is_empty() {
            "diagram"
        } else {
            &self.derivation
        };
        format!("{plus}{}) {derivation}", self.label)
    }
}

/// Whether a problem states its castling rights and its en-passant square.
/// A proof game's last position must have the stated ones; unstated ones
/// are free, as in Stelvio, whose files cannot state them.
///
/// - a full FEN (FEN lines, yacpdb `fen`) states both, its `-` included
///   (for castling: no rights; for en passant: no capture en passant);
/// - Popeye and yacpdb `algebraic` (or a board-only FEN) state castling
///   rights with `nocastling` (the rights left are those of Popeye's
///   default less the ones named) and the en-passant square with
///   `enpassant`, and leave each unstated otherwise;
/// - a Stelvio file states neither.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stated {
    pub castling: bool,
    pub en_passant: bool,
}

impl Stated {
    /// Both stated, as by a full FEN.
    pub const BOTH: Stated = Stated {
        castling: true,
        en_passant: true,
    };
}

/// Where a problem starts in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    /// 1-based line of the problem's first line.
    pub line: usize,
    /// 0-based position of the problem in its file; each twin counts as a
    /// problem of its own.
    pub index: usize,
    /// 0-based position of the problem's entry in its file: all twins of
    /// one entry share it, and ids are made from it.
    pub entry: usize,
}

/// A position in a file, 1-based, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

/// Why (part of) a file could not be read as a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    pub location: Location,
    /// 0-based position of the problem the error belongs to.
    pub index: usize,
    /// For a twin refused alone: its entry (0-based) and label, which make
    /// its id (`x.0c`) as they make the other twins'.
    pub twin: Option<(usize, String)>,
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.location.line, self.location.column, self.kind
        )
    }
}

impl std::error::Error for ParseError {}

/// What went wrong, and what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error("empty file: expected a chess problem")]
    Empty,
    #[error("file is {0} bytes, more than the {MAX_FILE_BYTES} bytes cookd reads")]
    TooLarge(usize),
    /// A YAML file with more nodes than cookd reads from one file
    /// ([`yaml::MAX_NODES`]): the YAML library holds them all in memory.
    #[error("YAML file has more than {limit} nodes (lines, list items, keys and values), the most cookd reads from one file: split it into smaller files")]
    TooManyNodes { limit: usize },
    #[error("not a text file (byte {byte:#04x} is a control character, neither UTF-8 nor Latin-1 text): expected a chess problem")]
    Binary { byte: u8 },
    #[error("unknown format: expected YAML (yacpdb), Popeye input, Stelvio problems.txt or `FEN ; stipulation` lines")]
    UnknownFormat,
    #[error("bad FEN: {0}")]
    Fen(String),
    #[error("bad stipulation: {0}")]
    Stipulation(#[from] crate::stipulation::ParseStipulationError),
    #[error("missing {0}")]
    Missing(&'static str),
    #[error("unsupported: {0} (cookd solves orthodox problems only)")]
    Unsupported(String),
    #[error("{0}")]
    Syntax(String),
    /// A key of a YAML entry that cookd does not know (a typo, or a field of
    /// a format it does not read).
    #[error("unknown key {0:?}: expected one of {keys}", keys = yaml::KNOWN_KEYS.join(", "))]
    UnknownKey(String),
    /// The file stops in the middle of a problem.
    #[error("unexpected end of file: expected {0}")]
    UnexpectedEnd(&'static str),
    /// `stipulation: #2` unquoted: YAML reads `#2` as a comment, leaving the
    /// stipulation empty. The commonest mistake in hand-written YAML problems.
    #[error("stipulation is empty: in YAML an unquoted # starts a comment, so write it in quotes, e.g. stipulation: \"#2\"")]
    StipulationIsNull,
}

impl ParseError {
    /// An error of problem `index` of `file` at `location`, outside twins
    /// (a refused twin gets its label afterwards).
    pub(crate) fn new(file: &str, location: Location, index: usize, kind: ParseErrorKind) -> Self {
        ParseError {
            file: file.to_owned(),
            location,
            index,
            twin: None,
            kind,
        }
    }
}

/// The answer for a file refused whole: one error, at `location`.
fn whole_file(
    name: &str,
    location: Location,
    kind: ParseErrorKind,
) -> Vec<Result<Problem, ParseError>> {
    vec![Err(ParseError::new(name, location, 0, kind))]
}

/// Reads every problem of one file. `name` is used in errors and origins.
pub fn parse(name: &str, content: &[u8]) -> Vec<Result<Problem, ParseError>> {
    let whole_file_error = |kind, location| whole_file(name, location, kind);
    let start = Location { line: 1, column: 1 };
    if content.len() > MAX_FILE_BYTES {
        return whole_file_error(ParseErrorKind::TooLarge(content.len()), start);
    }
    let decoded = decode(content);
    // A byte-order mark is invisible in editors, so it must not shift columns.
    let text = decoded.strip_prefix('\u{feff}').unwrap_or(&decoded);
    if let Some(at) = text.find(|c: char| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        let location = location_of(&text.as_bytes()[..at]);
        let c = text[at..].chars().next().unwrap_or('\0');
        // The byte as the file has it: a Latin-1 character is its code.
        let byte = u8::try_from(u32::from(c)).unwrap_or(0xff);
        return whole_file_error(ParseErrorKind::Binary { byte }, location);
    }
    if text.trim().is_empty() {
        return whole_file_error(ParseErrorKind::Empty, start);
    }
    match detect(text) {
        Some(Format::Popeye) => popeye::parse(name, text),
        Some(Format::Stelvio) => stelvio::parse(name, text),
        Some(Format::FenLine) => fenline::parse(name, text),
        Some(Format::Yaml) => yaml::parse(name, text),
        None => whole_file_error(ParseErrorKind::UnknownFormat, start),
    }
}

/// The text of a file: UTF-8 when it is valid UTF-8, else Latin-1 (ISO
/// 8859-1), in which every byte is a character: Popeye's own example files
/// and many older collections are written so (`Lin\xe9`). Bytes that are
/// control characters either way are refused by the caller.
fn decode(content: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(content) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => std::borrow::Cow::Owned(content.iter().map(|&b| char::from(b)).collect()),
    }
}

/// The input formats cookd reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Popeye,
    Stelvio,
    FenLine,
}

/// Guesses the format of a text from its first meaningful lines.
pub fn detect(text: &str) -> Option<Format> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let meaningful = |l: &&str| !l.is_empty() && !l.starts_with('%');
    let first_line = text.lines().map(str::trim).find(meaningful)?;
    // `#` comments head EPD files too; what follows them decides.
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| meaningful(l) && !l.starts_with('#'));
    let Some(first) = lines.next() else {
        return Some(Format::Yaml); // comments only: YAML reports "no problem"
    };
    let first_word = first
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    // Popeye accepts any unambiguous abbreviation of its keywords.
    if popeye::Language::of_begin(&first_word).is_some() {
        return Some(Format::Popeye);
    }
    if looks_like_board_fen(first) {
        if !first.contains(';') && !first.contains('"') {
            // Stelvio: a FEN alone on its line, the half-move count on the next.
            let single_word = first.split_whitespace().count() == 1;
            let count_next = lines
                .next()
                .is_some_and(|l| l.bytes().all(|b| b.is_ascii_digit()));
            if single_word || count_next {
                return Some(Format::Stelvio);
            }
        }
        return Some(Format::FenLine);
    }
    if first_line.starts_with("---")
        || first_line.starts_with('-')
        || first_line.contains(':')
        || first_line.starts_with('#')
    {
        return Some(Format::Yaml);
    }
    None
}

/// True when the first word of `line` has the shape of a FEN board field
/// (knights may be written S, as Stelvio and Popeye users do).
fn looks_like_board_fen(line: &str) -> bool {
    let word = line
        .split(|c: char| c.is_whitespace() || c == ';')
        .next()
        .unwrap_or("");
    word.matches('/').count() == 7
        && word
            .bytes()
            .all(|b| b == b'/' || b.is_ascii_digit() || b"pnsbrqkPNSBRQK".contains(&b))
}

/// 1-based line and column of the end of `prefix`.
pub fn location_of(prefix: &[u8]) -> Location {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&prefix[line_start..])
        .chars()
        .count()
        + 1;
    Location { line, column }
}

/// Castling rights as problem conventions grant them when the file does not
/// say: a right for every king and rook standing on their home squares
/// (Popeye's default).
pub fn default_castling_rights(board: &Board) -> Bitboard {
    let mut rights = Bitboard::EMPTY;
    for color in Color::ALL {
        let king_home = Square::from_coords(shakmaty::File::E, color.backrank());
        if board.piece_at(king_home) != Some(color.king()) {
            continue;
        }
        for file in [shakmaty::File::A, shakmaty::File::H] {
            let rook_home = Square::from_coords(file, color.backrank());
            if board.piece_at(rook_home) == Some(Role::Rook.of(color)) {
                rights.add(rook_home);
            }
        }
    }
    rights
}

/// `color`'s units as problem notation writes them (`Kc1`, `Qd1`, …, `Sb3`
/// for knights, `Pe2`), kings first and pawns last: the order of Popeye's
/// `pieces` line and yacpdb's `algebraic` lists.
pub(crate) fn piece_list(board: &Board, color: Color) -> Vec<String> {
    let mut pieces = Vec::new();
    for (role, letter) in [
        (Role::King, 'K'),
        (Role::Queen, 'Q'),
        (Role::Rook, 'R'),
        (Role::Bishop, 'B'),
        (Role::Knight, 'S'),
        (Role::Pawn, 'P'),
    ] {
        for square in board.by_color(color) & board.by_role(role) {
            pieces.push(format!("{letter}{square}"));
        }
    }
    pieces
}

/// A `Setup` for `board` with the given side to move and no castling or
/// en-passant information.
pub fn bare_setup(board: Board, turn: Color) -> Setup {
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = turn;
    setup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats() {
        assert_eq!(
            detect("BeginProblem\npieces white ke1\nendproblem"),
            Some(Format::Popeye)
        );
        assert_eq!(detect("begin\n"), Some(Format::Popeye));
        assert_eq!(
            detect("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\n1\n"),
            Some(Format::Stelvio)
        );
        assert_eq!(
            detect("8/8/8/8/8/8/8/K1k5 w - - 0 1; #2"),
            Some(Format::FenLine)
        );
        assert_eq!(detect("---\nstipulation: \"#2\"\n"), Some(Format::Yaml));
        assert_eq!(detect("- stipulation: \"#2\"\n"), Some(Format::Yaml));
        assert_eq!(detect("hello world"), None);
        assert_eq!(detect("\u{feff}beginproblem\n"), Some(Format::Popeye));
        assert_eq!(detect("8/8/8/8/8/8/8/K1k5;#2\n"), Some(Format::FenLine));
        assert_eq!(
            detect("8/8/8/8/8/8/8/K1k5 w - - stip \"#2\";\n"),
            Some(Format::FenLine)
        );
        assert_eq!(
            detect("1nbq4/ppk1p3/Rp5p/3npr2/R3P3/2br1B1P/PP2P2P/1SBQSK2\n\n65\n"),
            Some(Format::Stelvio)
        );
        assert_eq!(
            detect("8/8/8/8/8/8/8/K1k5 b - - 0 1\n7\n"),
            Some(Format::Stelvio)
        );
        assert_eq!(
            detect("# EPD\n\n8/8/8/8/8/8/8/K1k5 w - - dm 1;\n"),
            Some(Format::FenLine)
        );
        assert_eq!(
            detect("# yacpdb\nstipulation: \"#2\"\n"),
            Some(Format::Yaml)
        );
    }

    #[test]
    fn default_rights_need_king_and_rook_home() {
        let board: Board = "r3k3/8/8/8/8/8/8/R3K2R".parse().unwrap();
        let rights = default_castling_rights(&board);
        assert_eq!(rights, Bitboard::from(Square::A1) | Square::H1 | Square::A8);
        let no_king: Board = "r6k/8/8/8/8/8/8/R5KR".parse().unwrap();
        assert_eq!(default_castling_rights(&no_king), Bitboard::EMPTY);
    }

    #[test]
    fn rejects_empty_binary_and_huge_files() {
        let kind = |bytes: &[u8]| parse("f", bytes).remove(0).unwrap_err().kind;
        assert_eq!(kind(b""), ParseErrorKind::Empty);
        assert_eq!(kind(b"  \n\n"), ParseErrorKind::Empty);
        assert!(matches!(
            kind(b"\x00\x01\x02"),
            ParseErrorKind::Binary { .. }
        ));
        assert!(matches!(
            kind(&[0xff, 0xfe, 0x00]),
            ParseErrorKind::Binary { .. }
        ));
        assert!(matches!(
            kind(&vec![b' '; MAX_FILE_BYTES + 1]),
            ParseErrorKind::TooLarge(_)
        ));
    }
}
