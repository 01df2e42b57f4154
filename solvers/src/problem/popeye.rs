//! Format: Popeye input, orthodox subset.
//!
//! ```text
//! beginproblem
//! author   Samuel Loyd
//! origin   Chess Monthly 1857
//! pieces   white Kb1 Qd1 Sc3 black Ka3 pa4b5
//! stipulation #2
//! option   variations nocastling a1
//! next
//! forsyth  8/8/8/8/8/8/8/K1k5
//! stipulation h#2
//! endproblem
//! ```
//!
//! Popeye input is a stream of whitespace-separated words; line breaks only
//! matter for the text commands (`author`, `origin`, `title`, `remark`,
//! `award`, `protocol`), whose text runs to the end of their line. Keywords
//! and option names are case-insensitive and may be abbreviated to any
//! unambiguous prefix of at least three letters (`begi`, `stip`, `opti`).
//! Several problems are joined by `next` (`nextproblem`) or given as several
//! `beginproblem … endproblem` blocks.
//!
//! Pieces use Popeye's English letters: K Q R B **S** P. `N` is Popeye's
//! nightrider, a fairy piece, and is refused with a hint. A piece letter may
//! be followed by several squares (`pa2b3c4`) or stand alone before them
//! (`s a1b2`). `forsyth` reads Popeye's Forsyth notation (also `S` for
//! knights, `/` between ranks).
//!
//! Side to move: White, except helpmates of whole moves (`h#2`: Black
//! begins). Popeye's option `WhiteToPlay` (also accepted as `whitebegins`) on
//! a helpmate of whole moves makes White begin by taking one half-move off the
//! play, as Popeye does: `h#2` with `whitetoplay` is read as `h#1.5`.
//! Castling rights: a king and a rook on their home squares may castle
//! (Popeye's default) unless `option nocastling` names their squares.
//! `option enpassant` gives, as Popeye wants it, the last move's pawn double
//! step as departure, skipped and arrival squares (`enpassant d7d6d5`); the
//! skipped square becomes the en-passant square.
//!
//! Refused (an `Unsupported` error naming the word and its place): fairy
//! pieces, neutral pieces and piece attributes, `condition`, `twin` and
//! `zeroposition`, `sstipulation`, and options that change what is solved
//! (`duplex`, `halfduplex`, `quodlibet`, `goalisend`, `nullmoves`,
//! `castlingmutuallyexclusive`).

use shakmaty::{Bitboard, Board, Color, File, Rank, Role, Setup, Square};

use super::{
    default_castling_rights, location_of, Location, Origin, ParseError, ParseErrorKind, Problem,
    Stated,
};
use crate::stipulation::Stipulation;

// ---------------------------------------------------------------- words ----

/// One word of the input and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    pub text: &'a str,
    pub at: Location,
}

impl Word<'_> {
    /// The location `chars` characters into the word (on the same line).
    fn offset(&self, chars: usize) -> Location {
        Location {
            line: self.at.line,
            column: self.at.column + chars,
        }
    }
}

/// A source of words that can be looked at before being taken; options are
/// read through it from Popeye input and from YAML option strings alike.
pub(crate) trait Words<'a> {
    fn peek(&self) -> Option<Word<'a>>;
    fn bump(&mut self);
}

/// Splits Popeye input into words, keeping track of line and column.
#[derive(Debug, Clone)]
struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer {
            text,
            pos: 0,
            line: 1,
            column: 1,
        }
    }

    fn current(&self) -> Option<char> {
        self.text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
    }

    fn advance(&mut self) {
        if let Some(c) = self.current() {
            self.pos += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    fn location(&self) -> Location {
        Location {
            line: self.line,
            column: self.column,
        }
    }

    fn next_word(&mut self) -> Option<Word<'a>> {
        while self.current().is_some_and(char::is_whitespace) {
            self.advance();
        }
        let start = self.pos;
        let at = self.location();
        while self.current().is_some_and(|c| !c.is_whitespace()) {
            self.advance();
        }
        let text = self.text.get(start..self.pos).filter(|t| !t.is_empty())?;
        Some(Word { text, at })
    }

    /// The rest of the current line, trimmed; Popeye's text commands read it.
    fn rest_of_line(&mut self) -> Word<'a> {
        while self
            .current()
            .is_some_and(|c| c.is_whitespace() && c != '\n')
        {
            self.advance();
        }
        let start = self.pos;
        let at = self.location();
        while self.current().is_some_and(|c| c != '\n') {
            self.advance();
        }
        let text = self.text.get(start..self.pos).unwrap_or("").trim_end();
        Word { text, at }
    }

    fn end_of_file(&self) -> Location {
        location_of(self.text.as_bytes())
    }
}

impl<'a> Words<'a> for Lexer<'a> {
    fn peek(&self) -> Option<Word<'a>> {
        self.clone().next_word()
    }

    fn bump(&mut self) {
        self.next_word();
    }
}

/// Words taken from a short text (a YAML option string); locations are
/// relative: line 1, column 1 is the first character of the text.
#[derive(Debug)]
pub(crate) struct TextWords<'a> {
    words: Vec<Word<'a>>,
    next: usize,
}

impl<'a> TextWords<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut words = Vec::new();
        let mut start = None;
        for (column, (i, c)) in text.char_indices().enumerate() {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some((i, column + 1)),
                (true, Some((from, col))) => {
                    words.push(Word {
                        text: &text[from..i],
                        at: Location {
                            line: 1,
                            column: col,
                        },
                    });
                    start = None;
                }
                _ => {}
            }
        }
        if let Some((from, col)) = start {
            words.push(Word {
                text: &text[from..],
                at: Location {
                    line: 1,
                    column: col,
                },
            });
        }
        TextWords { words, next: 0 }
    }
}

impl<'a> Words<'a> for TextWords<'a> {
    fn peek(&self) -> Option<Word<'a>> {
        self.words.get(self.next).copied()
    }

    fn bump(&mut self) {
        self.next += 1;
    }
}

// ------------------------------------------------------------- keywords ----

/// Result of looking a word up in a table of names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lookup<T> {
    Found(T),
    Ambiguous(Vec<&'static str>),
    NotFound,
}

/// Finds `word` in `table`, case-insensitively: an exact name, or a prefix
/// of at least three letters that fits one entry only (entries with equal
/// values, like aliases, count as one).
fn lookup<T: Copy + PartialEq>(table: &[(&'static str, T)], word: &str) -> Lookup<T> {
    let lower = word.to_ascii_lowercase();
    if let Some((_, value)) = table.iter().find(|(name, _)| *name == lower) {
        return Lookup::Found(*value);
    }
    if lower.len() < 3 {
        return Lookup::NotFound;
    }
    let mut found: Vec<(&'static str, T)> = Vec::new();
    for &(name, value) in table.iter().filter(|(name, _)| name.starts_with(&lower)) {
        if !found.iter().any(|(_, v)| *v == value) {
            found.push((name, value));
        }
    }
    match found.as_slice() {
        [] => Lookup::NotFound,
        [(_, value)] => Lookup::Found(*value),
        _ => Lookup::Ambiguous(found.iter().map(|(name, _)| *name).collect()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    BeginProblem,
    EndProblem,
    NextProblem,
    Remark,
    SStipulation,
    Author,
    Origin,
    Pieces,
    Condition,
    Option,
    Stipulation,
    Protocol,
    Title,
    LaTeX,
    LaTeXPieces,
    Award,
    InitialGameArray,
    Forsyth,
    Twin,
    ZeroPosition,
}

/// Popeye's English keywords.
const KEYWORDS: &[(&str, Keyword)] = &[
    ("beginproblem", Keyword::BeginProblem),
    ("endproblem", Keyword::EndProblem),
    ("nextproblem", Keyword::NextProblem),
    ("remark", Keyword::Remark),
    ("sstipulation", Keyword::SStipulation),
    ("author", Keyword::Author),
    ("origin", Keyword::Origin),
    ("pieces", Keyword::Pieces),
    ("condition", Keyword::Condition),
    ("option", Keyword::Option),
    ("stipulation", Keyword::Stipulation),
    ("protocol", Keyword::Protocol),
    ("title", Keyword::Title),
    ("latex", Keyword::LaTeX),
    ("latexpieces", Keyword::LaTeXPieces),
    ("award", Keyword::Award),
    ("initialgamearray", Keyword::InitialGameArray),
    ("forsyth", Keyword::Forsyth),
    ("twin", Keyword::Twin),
    ("zeroposition", Keyword::ZeroPosition),
];

const EXPECTED_KEYWORDS: &str =
    "pieces, forsyth, stipulation, option, author, origin, title, remark, next or endproblem";

/// True for the commands whose text runs to the end of the line.
fn takes_rest_of_line(keyword: Keyword) -> bool {
    matches!(
        keyword,
        Keyword::Remark
            | Keyword::Author
            | Keyword::Origin
            | Keyword::Protocol
            | Keyword::Title
            | Keyword::LaTeX
            | Keyword::LaTeXPieces
            | Keyword::Award
    )
}

// -------------------------------------------------------------- options ----

/// What an option does to the problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OptionKind {
    /// A solving or display option, kept in `Problem::options`.
    Keep,
    NoCastling,
    EnPassant,
    WhiteToPlay,
    /// Changes what is solved; cookd refuses the problem.
    Refused,
}

/// What follows an option's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arguments {
    Nothing,
    Number,
    MaybeNumber,
    TwoNumbers,
    Squares,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OptionSpec {
    name: &'static str,
    kind: OptionKind,
    args: Arguments,
}

const fn spec(name: &'static str, kind: OptionKind, args: Arguments) -> OptionSpec {
    OptionSpec { name, kind, args }
}

const WHITE_TO_PLAY: OptionSpec = spec("whitetoplay", OptionKind::WhiteToPlay, Arguments::Nothing);

/// Popeye's English options (and the alias `whitebegins`).
const OPTIONS: &[(&str, OptionSpec)] = {
    use Arguments::*;
    use OptionKind::*;
    &[
        ("defence", spec("defence", Keep, Number)),
        ("setplay", spec("setplay", Keep, Nothing)),
        ("whitetoplay", WHITE_TO_PLAY),
        ("whitebegins", WHITE_TO_PLAY),
        ("variations", spec("variations", Keep, Nothing)),
        ("movenumbers", spec("movenumbers", Keep, Nothing)),
        ("startmovenumber", spec("startmovenumber", Keep, Number)),
        ("nowk", spec("nowk", Keep, Nothing)),
        ("duplex", spec("duplex", Refused, Nothing)),
        ("nobk", spec("nobk", Keep, Nothing)),
        ("threat", spec("threat", Keep, Number)),
        ("nothreat", spec("nothreat", Keep, Nothing)),
        ("try", spec("try", Keep, Nothing)),
        ("maxsolutions", spec("maxsolutions", Keep, Number)),
        ("maxflightsquares", spec("maxflightsquares", Keep, Number)),
        ("search", spec("search", Keep, Nothing)),
        ("multisolutions", spec("multisolutions", Keep, Nothing)),
        ("nosymmetry", spec("nosymmetry", Keep, Nothing)),
        ("nontrivial", spec("nontrivial", Keep, TwoNumbers)),
        ("keepmatingpiece", spec("keepmatingpiece", Keep, Nothing)),
        ("enpassant", spec("enpassant", EnPassant, Squares)),
        ("noboard", spec("noboard", Keep, Nothing)),
        (
            "noshortvariations",
            spec("noshortvariations", Keep, Nothing),
        ),
        ("halfduplex", spec("halfduplex", Refused, Nothing)),
        ("postkeyplay", spec("postkeyplay", Keep, Nothing)),
        ("intelligent", spec("intelligent", Keep, MaybeNumber)),
        ("maxtime", spec("maxtime", Keep, Number)),
        ("nocastling", spec("nocastling", NoCastling, Squares)),
        ("quodlibet", spec("quodlibet", Refused, Nothing)),
        (
            "stoponshortsolutions",
            spec("stoponshortsolutions", Keep, Nothing),
        ),
        ("beep", spec("beep", Keep, MaybeNumber)),
        ("suppressgrid", spec("suppressgrid", Keep, Nothing)),
        ("writegrid", spec("writegrid", Keep, Nothing)),
        (
            "castlingmutuallyexclusive",
            spec("castlingmutuallyexclusive", Refused, Squares),
        ),
        ("goalisend", spec("goalisend", Refused, Nothing)),
        ("nullmoves", spec("nullmoves", Refused, Nothing)),
        ("uptomovenumber", spec("uptomovenumber", Keep, Number)),
        (
            "trivialtriesavoid",
            spec("trivialtriesavoid", Keep, Nothing),
        ),
    ]
};

/// The effect of one option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OptionEffect {
    /// Kept as written, normalised (`maxsolutions 2`).
    Keep(String),
    /// Castling rights taken away (rook squares).
    NoCastling(Bitboard),
    /// The en-passant square.
    EnPassant(Square),
    WhiteToPlay,
}

/// An error at a place.
pub(crate) type Located = (Location, ParseErrorKind);

fn syntax(at: Location, message: String) -> Located {
    (at, ParseErrorKind::Syntax(message))
}

/// Reads one option from the front of `words`. `Ok(None)` when the next word
/// is not an option name (it is left for the caller).
pub(crate) fn read_option<'a>(words: &mut impl Words<'a>) -> Result<Option<OptionEffect>, Located> {
    let Some(word) = words.peek() else {
        return Ok(None);
    };
    let spec = match lookup(OPTIONS, word.text) {
        Lookup::Found(spec) => spec,
        Lookup::Ambiguous(names) => {
            let message = format!(
                "ambiguous option {:?}: could be {}",
                word.text,
                names.join(", ")
            );
            return Err(syntax(word.at, message));
        }
        Lookup::NotFound => return Ok(None),
    };
    words.bump();
    let mut normalised = spec.name.to_owned();
    let mut squares = Vec::new();
    match spec.args {
        Arguments::Nothing => {}
        Arguments::Number => {
            normalised.push_str(&format!(" {}", read_number(words, &word, spec.name)?))
        }
        Arguments::TwoNumbers => {
            let first = read_number(words, &word, spec.name)?;
            let second = read_number(words, &word, spec.name)?;
            normalised.push_str(&format!(" {first} {second}"));
        }
        Arguments::MaybeNumber => {
            if let Some(number) = words.peek().and_then(|w| w.text.parse::<u32>().ok()) {
                words.bump();
                normalised.push_str(&format!(" {number}"));
            }
        }
        Arguments::Squares => squares = read_squares(words, &word, spec.name)?,
    }
    match spec.kind {
        OptionKind::Keep => Ok(Some(OptionEffect::Keep(normalised))),
        OptionKind::WhiteToPlay => Ok(Some(OptionEffect::WhiteToPlay)),
        OptionKind::Refused => Err((
            word.at,
            ParseErrorKind::Unsupported(format!("option {}", spec.name)),
        )),
        OptionKind::NoCastling => no_castling(&squares).map(|b| Some(OptionEffect::NoCastling(b))),
        OptionKind::EnPassant => {
            en_passant(&squares, &word).map(|s| Some(OptionEffect::EnPassant(s)))
        }
    }
}

fn read_number<'a>(
    words: &mut impl Words<'a>,
    option: &Word<'_>,
    name: &str,
) -> Result<u32, Located> {
    match words.peek() {
        Some(word) => match word.text.parse::<u32>() {
            Ok(number) => {
                words.bump();
                Ok(number)
            }
            Err(_) => Err(syntax(
                word.at,
                format!("expected a number after {name}, found {:?}", word.text),
            )),
        },
        None => Err(syntax(option.at, format!("expected a number after {name}"))),
    }
}

/// A run of squares written together (`a1h1e8`), or `None`.
fn square_list(text: &str) -> Option<Vec<Square>> {
    if text.is_empty() || text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| Square::from_ascii(pair).ok())
        .collect()
}

/// The squares following an option, in one or several words; each square
/// comes with its location.
fn read_squares<'a>(
    words: &mut impl Words<'a>,
    option: &Word<'_>,
    name: &str,
) -> Result<Vec<(Square, Location)>, Located> {
    let mut squares = Vec::new();
    while let Some(word) = words.peek() {
        let Some(list) = square_list(word.text) else {
            break;
        };
        words.bump();
        squares.extend(
            list.into_iter()
                .enumerate()
                .map(|(i, sq)| (sq, word.offset(2 * i))),
        );
    }
    if squares.is_empty() {
        let found = words
            .peek()
            .map_or(String::new(), |w| format!(", found {:?}", w.text));
        let at = words.peek().map_or(option.at, |w| w.at);
        return Err(syntax(
            at,
            format!("expected squares like a1h1 after {name}{found}"),
        ));
    }
    Ok(squares)
}

/// The castling rights that `nocastling` squares take away: a rook square
/// its own right, a king square both rights of its side.
fn no_castling(squares: &[(Square, Location)]) -> Result<Bitboard, Located> {
    let mut removed = Bitboard::EMPTY;
    for &(square, at) in squares {
        let rank = square.rank();
        let corners = |rank| {
            Bitboard::from(Square::from_coords(File::A, rank)) | Square::from_coords(File::H, rank)
        };
        removed |= match (square.file(), rank) {
            (File::A | File::H, Rank::First | Rank::Eighth) => Bitboard::from(square),
            (File::E, Rank::First | Rank::Eighth) => corners(rank),
            _ => {
                let message = format!(
                    "nocastling takes the home squares of kings and rooks (a1 e1 h1 a8 e8 h8), found {square}"
                );
                return Err(syntax(at, message));
            }
        };
    }
    Ok(removed)
}

/// The en-passant square of Popeye's `enpassant` squares: the last move's
/// double step as departure, skipped and arrival squares (`d7d6d5`). Popeye
/// reads the list this way (departure first, arrival last, the squares in
/// between are the ones an en-passant capture may land on); a single square
/// is not enough for it, so none is accepted here either.
fn en_passant(squares: &[(Square, Location)], option: &Word<'_>) -> Result<Square, Located> {
    let expected = "expected the last move's pawn double step as three squares (departure, skipped, arrival), e.g. enpassant d7d6d5";
    let at = squares.first().map_or(option.at, |(_, at)| *at);
    if squares.len() > 3 {
        let message = "en passant after a pawn step of more than two squares".to_owned();
        return Err((at, ParseErrorKind::Unsupported(message)));
    }
    let [(from, _), (over, _), (to, _)] = squares else {
        return Err(syntax(at, expected.to_owned()));
    };
    let same_file = from.file() == over.file() && over.file() == to.file();
    let ranks = (from.rank(), over.rank(), to.rank());
    let double_step = matches!(
        ranks,
        (Rank::Second, Rank::Third, Rank::Fourth) | (Rank::Seventh, Rank::Sixth, Rank::Fifth)
    );
    if same_file && double_step {
        Ok(*over)
    } else {
        Err(syntax(at, format!("{expected}, found {from}{over}{to}")))
    }
}

/// The rules that options set, gathered while reading a problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Rules {
    pub kept: Vec<String>,
    pub no_castling: Bitboard,
    pub ep_square: Option<Square>,
    /// Where `whitetoplay` was given, if it was.
    pub white_to_play: Option<Location>,
}

impl Rules {
    pub fn add(&mut self, effect: OptionEffect, at: Location) {
        match effect {
            OptionEffect::Keep(option) => self.kept.push(option),
            OptionEffect::NoCastling(squares) => self.no_castling |= squares,
            OptionEffect::EnPassant(square) => self.ep_square = Some(square),
            OptionEffect::WhiteToPlay => self.white_to_play = Some(at),
        }
    }

    /// The stipulation once `whitetoplay` is applied the way Popeye applies
    /// it: a helpmate of whole moves loses its first (Black) half-move.
    pub fn stipulation(&self, stipulation: Stipulation) -> Result<Stipulation, Located> {
        let Some(at) = self.white_to_play else {
            return Ok(stipulation);
        };
        match stipulation {
            Stipulation::Help { plies } if plies % 2 == 0 => Ok(Stipulation::Help { plies: plies - 1 }),
            Stipulation::Help { .. } => Err(syntax(
                at,
                "whitetoplay is for helpmates of whole moves (h#n); h#n.5 already starts with White".into(),
            )),
            Stipulation::ProofGame { .. } => Err((
                at,
                ParseErrorKind::Unsupported("whitetoplay with a proof game".into()),
            )),
            // White plays first in these anyway.
            Stipulation::Direct { .. } | Stipulation::SelfMate { .. } | Stipulation::Win | Stipulation::Draw => {
                Ok(stipulation)
            }
        }
    }

    /// What these rules state of the castling rights and en passant on
    /// `board`: castling where `nocastling` denies a right Popeye's
    /// default grants, en passant where `enpassant` is given.
    pub fn stated(&self, board: &Board) -> Stated {
        Stated {
            castling: (default_castling_rights(board) & self.no_castling).any(),
            en_passant: self.ep_square.is_some(),
        }
    }

    /// The setup of `board` under these rules, Popeye's defaults otherwise.
    pub fn setup(&self, board: Board, stipulation: Stipulation) -> Setup {
        let mut setup = Setup::empty();
        setup.castling_rights = default_castling_rights(&board) & !self.no_castling;
        setup.ep_square = self.ep_square;
        setup.turn = stipulation.side_to_move();
        setup.board = board;
        setup
    }
}

// --------------------------------------------------------------- pieces ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    White,
    Black,
    Neutral,
    TotalInvisible,
}

const COLOURS: &[(&str, Colour)] = &[
    ("white", Colour::White),
    ("black", Colour::Black),
    ("neutral", Colour::Neutral),
    ("totalinvisible", Colour::TotalInvisible),
];

/// Popeye's English piece attributes: all fairy.
const ATTRIBUTES: &[(&str, &str)] = &[
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
enum PieceWord<'a> {
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

fn piece_word(text: &str) -> PieceWord<'_> {
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
fn bad_piece(word: &Word<'_>) -> Located {
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
fn read_pieces(
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
fn place(
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
fn parse_forsyth(text: &str) -> Result<Board, (usize, ParseErrorKind)> {
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
struct Fill {
    ranked: bool,
    filled: u32,
    in_rank: u32,
}

impl Fill {
    fn rank(&self) -> u32 {
        8 - (self.filled - self.in_rank) / 8
    }

    /// Covers `n` squares (the string's character `i`); returns the first.
    fn advance(&mut self, n: u32, i: usize) -> Result<Square, (usize, ParseErrorKind)> {
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

    fn end_rank(&mut self, i: usize) -> Result<(), (usize, ParseErrorKind)> {
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

    fn finish(&self, end: usize) -> Result<(), (usize, ParseErrorKind)> {
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

// -------------------------------------------------------------- problem ----

/// How a problem's text ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Closed,
    Next,
    /// A `beginproblem` before `endproblem` (left unread).
    Begin,
    Eof,
}

/// A problem as its commands are read.
#[derive(Debug, Default)]
struct Draft {
    id: Option<String>,
    authors: Vec<String>,
    source: Vec<String>,
    stipulation: Option<(Stipulation, Location)>,
    board: Option<Board>,
    rules: Rules,
}

/// Reads the commands of one problem up to `endproblem`, `next`, or the end.
/// Returns the draft (or the first error), how it ended, and where.
fn read_problem(lexer: &mut Lexer<'_>) -> (Result<Draft, Located>, End, Location) {
    let mut draft = Draft::default();
    loop {
        let Some(word) = lexer.peek() else {
            let kind = ParseErrorKind::UnexpectedEnd("endproblem (or next) to close the problem");
            let eof = lexer.end_of_file();
            return (Err((eof, kind)), End::Eof, eof);
        };
        let keyword = match lookup(KEYWORDS, word.text) {
            Lookup::Found(keyword) => keyword,
            Lookup::Ambiguous(names) => {
                let message = format!(
                    "ambiguous keyword {:?}: could be {}",
                    word.text,
                    names.join(", ")
                );
                return skip_after(lexer, syntax(word.at, message));
            }
            Lookup::NotFound => {
                let message = format!(
                    "unknown keyword {:?}: expected {EXPECTED_KEYWORDS}",
                    word.text
                );
                return skip_after(lexer, syntax(word.at, message));
            }
        };
        if keyword == Keyword::BeginProblem {
            let message = "beginproblem inside a problem: expected endproblem first".to_owned();
            return (Err(syntax(word.at, message)), End::Begin, word.at);
        }
        lexer.bump();
        match keyword {
            Keyword::EndProblem => return (Ok(draft), End::Closed, word.at),
            Keyword::NextProblem => return (Ok(draft), End::Next, word.at),
            _ => {
                if let Err(error) = command(keyword, &word, lexer, &mut draft) {
                    return skip_after(lexer, error);
                }
            }
        }
    }
}

/// After an error, skips the rest of the problem so that the next one can
/// be read.
fn skip_after(lexer: &mut Lexer<'_>, error: Located) -> (Result<Draft, Located>, End, Location) {
    let at = error.0;
    loop {
        let Some(word) = lexer.peek() else {
            return (Err(error), End::Eof, lexer.end_of_file());
        };
        let keyword = match lookup(KEYWORDS, word.text) {
            Lookup::Found(keyword) => Some(keyword),
            _ => None,
        };
        if keyword == Some(Keyword::BeginProblem) {
            return (Err(error), End::Begin, at);
        }
        lexer.bump();
        match keyword {
            Some(Keyword::EndProblem) => return (Err(error), End::Closed, at),
            Some(Keyword::NextProblem) => return (Err(error), End::Next, at),
            Some(k) if takes_rest_of_line(k) => {
                lexer.rest_of_line();
            }
            _ => {}
        }
    }
}

/// Carries out one command (the keyword is already read).
fn command(
    keyword: Keyword,
    word: &Word<'_>,
    lexer: &mut Lexer<'_>,
    draft: &mut Draft,
) -> Result<(), Located> {
    match keyword {
        Keyword::Stipulation => {
            let (stipulation, at) = read_stipulation(lexer)?;
            if let Some((_, first)) = draft.stipulation {
                let message = format!(
                    "a second stipulation: the problem has one on line {}",
                    first.line
                );
                return Err(syntax(at, message));
            }
            draft.stipulation = Some((stipulation, at));
        }
        Keyword::Pieces => {
            let board = draft.board.get_or_insert_with(Board::empty);
            read_pieces(lexer, board, word)?;
        }
        Keyword::Forsyth => {
            let Some(forsyth) = lexer.next_word() else {
                let kind = ParseErrorKind::UnexpectedEnd("a position after forsyth");
                return Err((lexer.end_of_file(), kind));
            };
            if lookup(KEYWORDS, forsyth.text) != Lookup::NotFound {
                let message = format!(
                    "expected a position after forsyth, found {:?}",
                    forsyth.text
                );
                return Err(syntax(forsyth.at, message));
            }
            let board =
                parse_forsyth(forsyth.text).map_err(|(i, kind)| (forsyth.offset(i), kind))?;
            draft.board = Some(board);
        }
        Keyword::InitialGameArray => draft.board = Some(Board::new()),
        Keyword::Option => read_options(lexer, word, &mut draft.rules)?,
        Keyword::Author | Keyword::Origin | Keyword::Title => {
            let text = lexer.rest_of_line();
            if text.text.is_empty() {
                let message = format!(
                    "expected text after {} on the same line",
                    keyword_name(keyword)
                );
                return Err(syntax(text.at, message));
            }
            let text = text.text.to_owned();
            match keyword {
                Keyword::Author => draft.authors.push(text),
                Keyword::Origin => draft.source.push(text),
                _ => {
                    draft.id = Some(
                        draft
                            .id
                            .take()
                            .map_or(text.clone(), |id| format!("{id} {text}")),
                    )
                }
            }
        }
        Keyword::Remark
        | Keyword::Protocol
        | Keyword::LaTeX
        | Keyword::LaTeXPieces
        | Keyword::Award => {
            lexer.rest_of_line();
        }
        Keyword::Condition => {
            let name = lexer
                .peek()
                .filter(|w| lookup(KEYWORDS, w.text) == Lookup::NotFound);
            let (at, what) = name.map_or((word.at, "condition".to_owned()), |w| {
                (w.at, format!("condition {}", w.text))
            });
            return Err((at, ParseErrorKind::Unsupported(what)));
        }
        Keyword::SStipulation => {
            let message = "structured stipulation (sstipulation)".to_owned();
            return Err((word.at, ParseErrorKind::Unsupported(message)));
        }
        Keyword::Twin | Keyword::ZeroPosition => {
            let message = format!("twins ({})", word.text);
            return Err((word.at, ParseErrorKind::Unsupported(message)));
        }
        Keyword::BeginProblem | Keyword::EndProblem | Keyword::NextProblem => {}
    }
    Ok(())
}

fn keyword_name(keyword: Keyword) -> &'static str {
    KEYWORDS
        .iter()
        .find(|(_, k)| *k == keyword)
        .map_or("keyword", |(name, _)| name)
}

/// Reads the stipulation word; `SPG 8.5` written as two words is joined.
fn read_stipulation(lexer: &mut Lexer<'_>) -> Result<(Stipulation, Location), Located> {
    let Some(word) = lexer.next_word() else {
        let kind = ParseErrorKind::UnexpectedEnd("a stipulation like #2 after stipulation");
        return Err((lexer.end_of_file(), kind));
    };
    if lookup(KEYWORDS, word.text) != Lookup::NotFound {
        let message = format!(
            "expected a stipulation like #2 after stipulation, found {:?}",
            word.text
        );
        return Err(syntax(word.at, message));
    }
    let mut text = word.text.to_owned();
    let lower = text.to_ascii_lowercase();
    if lower == "spg" || lower == "dia" {
        if let Some(length) = lexer
            .peek()
            .filter(|w| w.text.starts_with(|c: char| c.is_ascii_digit()))
        {
            lexer.bump();
            text.push_str(length.text);
        }
    }
    let stipulation = text
        .parse::<Stipulation>()
        .map_err(|e| (word.at, ParseErrorKind::Stipulation(e)))?;
    Ok((stipulation, word.at))
}

fn read_options(
    lexer: &mut Lexer<'_>,
    keyword: &Word<'_>,
    rules: &mut Rules,
) -> Result<(), Located> {
    let mut count = 0;
    loop {
        let at = lexer.peek().map_or(keyword.at, |w| w.at);
        match read_option(lexer)? {
            Some(effect) => {
                rules.add(effect, at);
                count += 1;
            }
            None => break,
        }
    }
    let next = lexer.peek();
    let not_keyword = next.filter(|w| lookup(KEYWORDS, w.text) == Lookup::NotFound);
    match (count, not_keyword) {
        (_, Some(word)) => {
            let message = format!(
                "unknown option {:?}: expected an orthodox option such as variations, try, setplay, threat n, defence n, maxsolutions n, nocastling, enpassant or whitetoplay",
                word.text
            );
            Err(syntax(word.at, message))
        }
        (0, _) => {
            let at = next.map_or(keyword.at, |w| w.at);
            Err(syntax(at, "expected an option after option".into()))
        }
        _ => Ok(()),
    }
}

/// Turns a finished draft into a problem.
fn finish(draft: Draft, end: Location) -> Result<(Stipulation, Setup, Draft), Located> {
    let Some((stipulation, _)) = draft.stipulation else {
        let kind = ParseErrorKind::Missing(
            "stipulation: expected a line like `stipulation #2` before the end of the problem",
        );
        return Err((end, kind));
    };
    let Some(board) = draft.board.clone() else {
        let kind =
            ParseErrorKind::Missing("position: expected `pieces white … black …` or `forsyth …`");
        return Err((end, kind));
    };
    let stipulation = draft.rules.stipulation(stipulation)?;
    let setup = draft.rules.setup(board, stipulation);
    Ok((stipulation, setup, draft))
}

/// The options (`nocastling`, `enpassant`) that give `setup` its castling
/// rights and en-passant square on top of Popeye's defaults.
pub(crate) fn rule_options(setup: &Setup) -> Vec<String> {
    let mut options = Vec::new();
    let lost_rights = default_castling_rights(&setup.board) & !setup.castling_rights;
    if lost_rights.any() {
        let squares: String = lost_rights.into_iter().map(|sq| sq.to_string()).collect();
        options.push(format!("nocastling {squares}"));
    }
    if let Some(ep) = setup.ep_square {
        let file = ep.file().char();
        match ep.rank() {
            Rank::Sixth => options.push(format!("enpassant {file}7{file}6{file}5")),
            Rank::Third => options.push(format!("enpassant {file}2{file}3{file}4")),
            _ => {}
        }
    }
    options
}

/// Reads every problem of a Popeye input file.
pub fn parse(name: &str, text: &str) -> Vec<Result<Problem, ParseError>> {
    let mut lexer = Lexer::new(text);
    let mut results: Vec<Result<Problem, ParseError>> = Vec::new();
    let error = |location: Location, index: usize, kind| ParseError {
        file: name.to_owned(),
        location,
        index,
        kind,
    };
    while let Some(word) = lexer.next_word() {
        if lookup(KEYWORDS, word.text) != Lookup::Found(Keyword::BeginProblem) {
            // Popeye stops reading at `endproblem`, so text after the last
            // problem is ignored; text before another problem is an error.
            while lexer.peek().is_some_and(|next| {
                lookup(KEYWORDS, next.text) != Lookup::Found(Keyword::BeginProblem)
            }) {
                lexer.bump();
            }
            if lexer.peek().is_some() || results.is_empty() {
                let message = format!("expected beginproblem, found {:?}", word.text);
                let kind = ParseErrorKind::Syntax(message);
                results.push(Err(error(word.at, results.len(), kind)));
            }
            continue;
        }
        let mut start = word.at;
        loop {
            let index = results.len();
            let (draft, end, end_at) = read_problem(&mut lexer);
            let result = draft.and_then(|draft| finish(draft, end_at));
            results.push(match result {
                Ok((stipulation, setup, draft)) => Ok(Problem {
                    origin: Origin {
                        file: name.to_owned(),
                        line: start.line,
                        index,
                    },
                    id: draft.id,
                    authors: draft.authors,
                    source: (!draft.source.is_empty()).then(|| draft.source.join("\n")),
                    stipulation,
                    stated: draft.rules.stated(&setup.board),
                    setup,
                    options: draft.rules.kept,
                    intended_solutions: None,
                    solution: None,
                }),
                Err((location, kind)) => Err(error(location, index, kind)),
            });
            if end != End::Next {
                break;
            }
            start = lexer.peek().map_or(end_at, |w| w.at);
            if lexer.peek().is_none() {
                // `next` at the very end announces a problem that never comes.
                let kind = ParseErrorKind::UnexpectedEnd("a problem after next");
                results.push(Err(error(lexer.end_of_file(), results.len(), kind)));
                break;
            }
        }
    }
    results
}

// --------------------------------------------------------------- writer ----

/// The stipulation as Popeye spells it (`dia8.5` for a proof game).
fn popeye_stipulation(stipulation: Stipulation) -> String {
    match stipulation {
        Stipulation::ProofGame { plies } if plies % 2 == 1 => format!("dia{}.5", plies / 2),
        Stipulation::ProofGame { plies } => format!("dia{}", plies / 2),
        other => other.to_string(),
    }
}

/// `white Kc1 Qd1 black Ka1`: kings first, then queens… pawns.
fn pieces_line(board: &Board) -> String {
    let mut line = String::from("pieces");
    for color in Color::ALL {
        let pieces = super::piece_list(board, color);
        if pieces.is_empty() {
            continue;
        }
        line.push_str(if color == Color::White {
            " white"
        } else {
            " black"
        });
        for piece in pieces {
            line.push(' ');
            line.push_str(&piece);
        }
    }
    line
}

/// Writes a problem as Popeye input that [`parse`] reads back to the same
/// problem. Popeye has no place for the claimed solution, the intended
/// number of solutions, the move counters, or a side to move other than the
/// one the stipulation implies; those are left out.
pub fn to_popeye(problem: &Problem) -> String {
    let one_line = |text: &str| text.replace(['\n', '\r'], " ");
    let mut out = String::from("beginproblem\n");
    if let Some(id) = &problem.id {
        out.push_str(&format!("title {}\n", one_line(id)));
    }
    for author in &problem.authors {
        out.push_str(&format!("author {}\n", one_line(author)));
    }
    if let Some(source) = &problem.source {
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            out.push_str(&format!("origin {}\n", line.trim()));
        }
    }
    let board = &problem.setup.board;
    if board.occupied().is_empty() {
        out.push_str("forsyth 8/8/8/8/8/8/8/8\n");
    } else {
        out.push_str(&pieces_line(board));
        out.push('\n');
    }
    out.push_str(&format!(
        "stipulation {}\n",
        popeye_stipulation(problem.stipulation)
    ));
    let mut options = problem.options.clone();
    options.extend(rule_options(&problem.setup));
    if !options.is_empty() {
        out.push_str(&format!("option {}\n", options.join(" ")));
    }
    out.push_str("endproblem\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<(String, usize, usize)> {
        let mut lexer = Lexer::new(text);
        std::iter::from_fn(|| lexer.next_word())
            .map(|w| (w.text.to_owned(), w.at.line, w.at.column))
            .collect()
    }

    #[test]
    fn lexer_tracks_lines_and_columns() {
        let found = words("begin\n  pieces  white ka1\r\nend");
        let expected = [
            ("begin", 1, 1),
            ("pieces", 2, 3),
            ("white", 2, 11),
            ("ka1", 2, 17),
            ("end", 3, 1),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(t, l, c)| (t.to_string(), *l, *c))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn keywords_abbreviate_to_three_letters() {
        assert_eq!(
            lookup(KEYWORDS, "STIP"),
            Lookup::Found(Keyword::Stipulation)
        );
        assert_eq!(
            lookup(KEYWORDS, "begi"),
            Lookup::Found(Keyword::BeginProblem)
        );
        assert_eq!(lookup(KEYWORDS, "st"), Lookup::NotFound);
        assert_eq!(lookup(KEYWORDS, "latex"), Lookup::Found(Keyword::LaTeX));
        assert!(matches!(lookup(KEYWORDS, "lat"), Lookup::Ambiguous(_)));
        assert_eq!(lookup(OPTIONS, "whi"), Lookup::Found(WHITE_TO_PLAY));
    }

    #[test]
    fn piece_words_follow_popeye() {
        assert_eq!(
            piece_word("pa2b3"),
            PieceWord::Pieces {
                walk: "p",
                squares: vec![Square::A2, Square::B3]
            }
        );
        assert_eq!(
            piece_word("gra1"),
            PieceWord::Pieces {
                walk: "gr",
                squares: vec![Square::A1]
            }
        );
        assert_eq!(piece_word("S"), PieceWord::Walk("S"));
        assert_eq!(piece_word("Kz9"), PieceWord::Other);
        assert_eq!(piece_word("bla"), PieceWord::Colour(Colour::Black));
        assert_eq!(piece_word("stipulation"), PieceWord::Other);
    }

    #[test]
    fn forsyth_reads_popeye_notation() {
        let board = parse_forsyth("8/8/8/8/8/8/8/K1k5").unwrap();
        assert_eq!(board.to_string(), "8/8/8/8/8/8/8/K1k5");
        let board = parse_forsyth("s7/16/+k").unwrap_err();
        assert_eq!(board.0, 3);
        let board = parse_forsyth("16s15+k").unwrap();
        assert_eq!(
            board.piece_at(Square::A6),
            Some(Role::Knight.of(Color::Black))
        );
        assert_eq!(
            board.piece_at(Square::A4),
            Some(Role::King.of(Color::White))
        );
        assert!(matches!(
            parse_forsyth("n7").unwrap_err().1,
            ParseErrorKind::Unsupported(_)
        ));
        assert_eq!(parse_forsyth("9/8/8/8/8/8/8/8").unwrap_err().0, 0);
    }

    #[test]
    fn options_apply_popeye_rules() {
        let mut words = TextWords::new("nocastling a1e8 enpassant d7d6d5 var maxsol 2");
        let mut rules = Rules::default();
        let at = Location { line: 1, column: 1 };
        while let Some(effect) = read_option(&mut words).unwrap() {
            rules.add(effect, at);
        }
        assert_eq!(
            rules.kept,
            vec!["variations".to_owned(), "maxsolutions 2".to_owned()]
        );
        assert_eq!(
            rules.no_castling,
            Bitboard::from(Square::A1) | Square::A8 | Square::H8
        );
        assert_eq!(rules.ep_square, Some(Square::D6));
        let mut words = TextWords::new("enpassant d5");
        assert!(read_option(&mut words).is_err());
    }

    #[test]
    fn white_to_play_shortens_helpmates() {
        let rules = Rules {
            white_to_play: Some(Location { line: 1, column: 1 }),
            ..Rules::default()
        };
        let h2: Stipulation = "h#2".parse().unwrap();
        assert_eq!(rules.stipulation(h2).unwrap(), "h#1.5".parse().unwrap());
        assert!(rules.stipulation("h#2.5".parse().unwrap()).is_err());
    }
}
