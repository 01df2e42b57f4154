//! Popeye's `option` words: what each means for the problem, and the rules
//! they add to the diagram (castling, en passant).

use super::*;

/// What an option does to the problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OptionKind {
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
pub(super) enum Arguments {
    Nothing,
    Number,
    MaybeNumber,
    TwoNumbers,
    Squares,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OptionSpec {
    name: &'static str,
    kind: OptionKind,
    args: Arguments,
}

pub(super) const fn spec(name: &'static str, kind: OptionKind, args: Arguments) -> OptionSpec {
    OptionSpec { name, kind, args }
}

pub(super) const WHITE_TO_PLAY: OptionSpec =
    spec("whitetoplay", OptionKind::WhiteToPlay, Arguments::Nothing);

/// How many options Popeye has.
pub(crate) const OPTION_COUNT: usize = 39;

/// Popeye's options in its own order (the order of its language tables),
/// each with its English name, which cookd keeps.
pub(super) const SPECS: &[OptionSpec; OPTION_COUNT] = {
    use Arguments::*;
    use OptionKind::*;
    &[
        spec("defence", Keep, Number),
        spec("setplay", Keep, Nothing),
        WHITE_TO_PLAY,
        spec("variations", Keep, Nothing),
        spec("movenumbers", Keep, Nothing),
        spec("startmovenumber", Keep, Number),
        spec("nowk", Keep, Nothing),
        spec("duplex", Refused, Nothing),
        spec("nobk", Keep, Nothing),
        spec("threat", Keep, Number),
        spec("nothreat", Keep, Nothing),
        spec("try", Keep, Nothing),
        spec("maxsolutions", Keep, Number),
        spec("maxflightsquares", Keep, Number),
        spec("search", Keep, Nothing),
        spec("multisolutions", Keep, Nothing),
        spec("nosymmetry", Keep, Nothing),
        spec("nontrivial", Keep, TwoNumbers),
        spec("keepmatingpiece", Keep, Nothing),
        spec("enpassant", EnPassant, Squares),
        spec("noboard", Keep, Nothing),
        spec("noshortvariations", Keep, Nothing),
        spec("halfduplex", Refused, Nothing),
        spec("postkeyplay", Keep, Nothing),
        spec("intelligent", Keep, MaybeNumber),
        spec("maxtime", Keep, Number),
        spec("nocastling", NoCastling, Squares),
        spec("quodlibet", Refused, Nothing),
        spec("stoponshortsolutions", Keep, Nothing),
        spec("beep", Keep, MaybeNumber),
        spec("suppressgrid", Keep, Nothing),
        spec("writegrid", Keep, Nothing),
        spec("castlingmutuallyexclusive", Refused, Squares),
        spec("goalisend", Refused, Nothing),
        spec("unpublishedoption", Refused, Nothing),
        spec("nullmoves", Refused, Nothing),
        spec("uptomovenumber", Keep, Number),
        spec("trivialtriesavoid", Keep, Nothing),
        spec("matesin1", Keep, Nothing),
    ]
};

/// Popeye's English option names, in [`SPECS`] order.
pub(super) const OPTIONS_EN: &[&str; OPTION_COUNT] = &[
    "defence",
    "setplay",
    "whitetoplay",
    "variations",
    "movenumbers",
    "startmovenumber",
    "nowk",
    "duplex",
    "nobk",
    "threat",
    "nothreat",
    "try",
    "maxsolutions",
    "maxflightsquares",
    "search",
    "multisolutions",
    "nosymmetry",
    "nontrivial",
    "keepmatingpiece",
    "enpassant",
    "noboard",
    "noshortvariations",
    "halfduplex",
    "postkeyplay",
    "intelligent",
    "maxtime",
    "nocastling",
    "quodlibet",
    "stoponshortsolutions",
    "beep",
    "suppressgrid",
    "writegrid",
    "castlingmutuallyexclusive",
    "goalisend",
    "unpublishedoption",
    "nullmoves",
    "uptomovenumber",
    "trivialtriesavoid",
    "matesin1",
];

/// Popeye's German option names, in [`SPECS`] order.
pub(super) const OPTIONS_DE: &[&str; OPTION_COUNT] = &[
    "widerlegung",
    "satzspiel",
    "weissbeginnt",
    "varianten",
    "zugnummern",
    "startzugnummer",
    "ohnewk",
    "duplex",
    "ohnesk",
    "drohung",
    "ohnedrohung",
    "verfuehrung",
    "maxloesungen",
    "maxfluchtfelder",
    "suchen",
    "mehrereloesungen",
    "keinesymmetrie",
    "nichttrivial",
    "haltemattsetzendenstein",
    "enpassant",
    "ohnebrett",
    "ohnekurzvarianten",
    "halbduplex",
    "nachschluessel",
    "intelligent",
    "maxzeit",
    "keinerochade",
    "quodlibet",
    "stopnachkurzloesungen",
    "pieps",
    "ohnegitter",
    "zeichnegitter",
    "rochadengegenseitigausschliessend",
    "zielistende",
    "nichtpublizierteoption",
    "nullzuege",
    "biszugnummer",
    "trivialefehlversucheunterdruecken",
    "mattsin1",
];

/// Popeye's French option names, in [`SPECS`] order.
pub(super) const OPTIONS_FR: &[&str; OPTION_COUNT] = &[
    "defense",
    "apparent",
    "apparentseul",
    "variantes",
    "trace",
    "enroute",
    "sansrb",
    "duplex",
    "sansrn",
    "menace",
    "sansmenace",
    "essais",
    "maxsolutions",
    "maxcasesfuites",
    "search",
    "multisolutions",
    "nonsymetrique",
    "nontrivial",
    "retienspiecematante",
    "enpassant",
    "sansechiquier",
    "sansvariantescourtes",
    "demiduplex",
    "aprescle",
    "intelligent",
    "maxtemps",
    "sansroquer",
    "quodlibet",
    "finapressolutionscourtes",
    "bip",
    "sansgrille",
    "ajoutegrille",
    "roquesmutuellementexclusifs",
    "butestfin",
    "optionnonpubliee",
    "coupsvides",
    "jusquaucoup",
    "trivialessaisupprimer",
    "matsen1",
];

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

pub(super) fn syntax(at: Location, message: String) -> Located {
    (at, ParseErrorKind::Syntax(message))
}

/// Reads one option from the front of `words`. `Ok(None)` when the next word
/// is not an option name (it is left for the caller).
pub(crate) fn read_option<'a>(
    words: &mut impl Words<'a>,
    language: &Language,
) -> Result<Option<OptionEffect>, Located> {
    let Some(word) = words.peek() else {
        return Ok(None);
    };
    let spec = match lookup(language.option_table(), word.text) {
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

pub(super) fn read_number<'a>(
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
pub(super) fn square_list(text: &str) -> Option<Vec<Square>> {
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
pub(super) fn read_squares<'a>(
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
pub(super) fn no_castling(squares: &[(Square, Location)]) -> Result<Bitboard, Located> {
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
pub(super) fn en_passant(
    squares: &[(Square, Location)],
    option: &Word<'_>,
) -> Result<Square, Located> {
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
            Stipulation::Help { plies, goal } if plies % 2 == 0 => Ok(Stipulation::Help {
                plies: plies - 1,
                goal,
            }),
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
