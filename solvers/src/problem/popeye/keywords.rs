//! Popeye's vocabulary in its three input languages, matched as Popeye
//! matches it: case-insensitively, by exact name or by any prefix that fits
//! one entry of the table in use.
//!
//! Popeye decides the language of a file by the word that opens it
//! (`beginproblem`, `anfangproblem`, `debutprobleme`) and reads every later
//! keyword, option, colour, piece letter and twinning word in that language.

use super::options::{
    OptionSpec, OPTIONS_DE, OPTIONS_EN, OPTIONS_FR, OPTION_COUNT, SPECS, WHITE_TO_PLAY,
};
use super::pieces::{Colour, ATTRIBUTES_DE, ATTRIBUTES_EN, ATTRIBUTES_FR};
use super::twins::{Twinning, TWINNINGS_DE, TWINNINGS_EN, TWINNINGS_FR};
use shakmaty::Role;

/// Result of looking a word up in a table of names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lookup<T> {
    Found(T),
    Ambiguous(Vec<&'static str>),
    NotFound,
}

/// Finds `word` in `table`, case-insensitively: an exact name, or a prefix
/// that fits one entry only (entries with equal values, like aliases, count
/// as one). Popeye accepts prefixes of any length; `min_len` lets a caller
/// ask for more where a short word would be read too eagerly.
pub(super) fn lookup_min<T: Copy + PartialEq>(
    table: impl IntoIterator<Item = (&'static str, T)> + Clone,
    word: &str,
    min_len: usize,
) -> Lookup<T> {
    let lower = word.to_ascii_lowercase();
    if let Some((_, value)) = table.clone().into_iter().find(|(name, _)| *name == lower) {
        return Lookup::Found(value);
    }
    if lower.len() < min_len.max(1) {
        return Lookup::NotFound;
    }
    let mut found: Vec<(&'static str, T)> = Vec::new();
    for (name, value) in table
        .into_iter()
        .filter(|(name, _)| name.starts_with(&lower))
    {
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

/// [`lookup_min`] with Popeye's rule: any unambiguous prefix.
pub(super) fn lookup<T: Copy + PartialEq>(
    table: impl IntoIterator<Item = (&'static str, T)> + Clone,
    word: &str,
) -> Lookup<T> {
    lookup_min(table, word, 1)
}

/// A table of names as [`lookup`] takes it.
pub(super) fn entries<T: Copy>(
    table: &'static [(&'static str, T)],
) -> impl Iterator<Item = (&'static str, T)> + Clone {
    table.iter().copied()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keyword {
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

/// One of Popeye's input languages and its tables (names in lower case).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Language {
    pub name: &'static str,
    /// The commands of a problem's diagram (Popeye's "initial twin" tokens).
    problem: &'static [(&'static str, Keyword)],
    /// `endproblem` and `nextproblem`.
    ends: &'static [(&'static str, Keyword)],
    /// `twin` and `zeroposition`.
    twins: &'static [(&'static str, Keyword)],
    /// Option names in Popeye's order (see [`super::options::SPECS`]).
    pub(super) options: &'static [&'static str; OPTION_COUNT],
    /// Further names of options (English only: `whitebegins`).
    pub(super) option_aliases: &'static [(&'static str, OptionSpec)],
    pub(super) colours: &'static [(&'static str, Colour)],
    pub(super) attributes: &'static [(&'static str, &'static str)],
    pub(super) twinnings: &'static [(&'static str, Twinning)],
    /// The orthodox piece letters: king, queen, rook, bishop, knight, pawn.
    pub(super) letters: [char; 6],
    /// The word that opens a problem.
    pub(super) begin: &'static str,
}

pub(crate) const ENGLISH: Language = Language {
    name: "English",
    begin: "beginproblem",
    problem: &[
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
    ],
    ends: &[
        ("endproblem", Keyword::EndProblem),
        ("nextproblem", Keyword::NextProblem),
    ],
    twins: &[
        ("twin", Keyword::Twin),
        ("zeroposition", Keyword::ZeroPosition),
    ],
    options: OPTIONS_EN,
    option_aliases: &[("whitebegins", WHITE_TO_PLAY)],
    colours: &[
        ("white", Colour::White),
        ("black", Colour::Black),
        ("neutral", Colour::Neutral),
        ("totalinvisible", Colour::TotalInvisible),
    ],
    attributes: ATTRIBUTES_EN,
    twinnings: TWINNINGS_EN,
    letters: ['k', 'q', 'r', 'b', 's', 'p'],
};

pub(crate) const GERMAN: Language = Language {
    name: "German",
    begin: "anfangproblem",
    problem: &[
        ("bemerkung", Keyword::Remark),
        ("sforderung", Keyword::SStipulation),
        ("autor", Keyword::Author),
        ("quelle", Keyword::Origin),
        ("steine", Keyword::Pieces),
        ("bedingung", Keyword::Condition),
        ("option", Keyword::Option),
        ("forderung", Keyword::Stipulation),
        ("protokoll", Keyword::Protocol),
        ("titel", Keyword::Title),
        ("latex", Keyword::LaTeX),
        ("latexsteine", Keyword::LaTeXPieces),
        ("auszeichnung", Keyword::Award),
        ("partieanfangsstellung", Keyword::InitialGameArray),
        ("forsyth", Keyword::Forsyth),
    ],
    ends: &[
        ("endeproblem", Keyword::EndProblem),
        ("weiteresproblem", Keyword::NextProblem),
    ],
    twins: &[
        ("zwilling", Keyword::Twin),
        ("nullstellung", Keyword::ZeroPosition),
    ],
    options: OPTIONS_DE,
    option_aliases: &[],
    colours: &[
        ("weiss", Colour::White),
        ("schwarz", Colour::Black),
        ("neutral", Colour::Neutral),
        ("totalunsichtbar", Colour::TotalInvisible),
    ],
    attributes: ATTRIBUTES_DE,
    twinnings: TWINNINGS_DE,
    letters: ['k', 'd', 't', 'l', 's', 'b'],
};

pub(crate) const FRENCH: Language = Language {
    name: "French",
    begin: "debutprobleme",
    problem: &[
        ("remarque", Keyword::Remark),
        ("senonce", Keyword::SStipulation),
        ("auteur", Keyword::Author),
        ("source", Keyword::Origin),
        ("pieces", Keyword::Pieces),
        ("condition", Keyword::Condition),
        ("option", Keyword::Option),
        ("enonce", Keyword::Stipulation),
        ("protocol", Keyword::Protocol),
        ("titre", Keyword::Title),
        ("latex", Keyword::LaTeX),
        ("pieceslatex", Keyword::LaTeXPieces),
        ("prix", Keyword::Award),
        ("positioninitialepartie", Keyword::InitialGameArray),
        ("forsyth", Keyword::Forsyth),
    ],
    ends: &[
        ("finprobleme", Keyword::EndProblem),
        ("asuivre", Keyword::NextProblem),
    ],
    twins: &[
        ("jumeau", Keyword::Twin),
        ("zeroposition", Keyword::ZeroPosition),
    ],
    options: OPTIONS_FR,
    option_aliases: &[],
    colours: &[
        ("blanc", Colour::White),
        ("noir", Colour::Black),
        ("neutre", Colour::Neutral),
        ("totalinvisible", Colour::TotalInvisible),
    ],
    attributes: ATTRIBUTES_FR,
    twinnings: TWINNINGS_FR,
    letters: ['r', 'd', 't', 'f', 'c', 'p'],
};

pub(crate) const LANGUAGES: [&Language; 3] = [&ENGLISH, &GERMAN, &FRENCH];

impl Language {
    /// The language whose opening word `word` abbreviates (three letters at
    /// least: `beg`, `anf`, `deb`; Popeye takes one, but a shorter word is
    /// too likely to be something else).
    pub(crate) fn of_begin(word: &str) -> Option<&'static Language> {
        let lower = word.to_ascii_lowercase();
        LANGUAGES
            .into_iter()
            .find(|l| lower.len() >= 3 && l.begin.starts_with(&lower))
    }

    /// Looks a command word up as Popeye does: first among the diagram's
    /// commands, then `endproblem`/`nextproblem`, then `twin`/`zeroposition`;
    /// the first table the word fits decides. A word that opens a problem in
    /// this language is `BeginProblem`.
    pub(super) fn keyword(&self, word: &str) -> Lookup<Keyword> {
        for table in [self.problem, self.ends, self.twins] {
            match lookup(entries(table), word) {
                Lookup::NotFound => continue,
                found => return found,
            }
        }
        lookup([(self.begin, Keyword::BeginProblem)], word)
    }

    /// True when `word` is a command word of this language.
    pub(super) fn is_keyword(&self, word: &str) -> bool {
        self.keyword(word) != Lookup::NotFound
    }

    /// The name of a keyword in this language.
    pub(super) fn keyword_name(&self, keyword: Keyword) -> &'static str {
        [self.problem, self.ends, self.twins]
            .into_iter()
            .flatten()
            .find(|(_, k)| *k == keyword)
            .map_or(self.begin, |(name, _)| name)
    }

    /// The orthodox role of a piece letter of this language.
    pub(super) fn role(&self, letter: char) -> Option<Role> {
        let roles = [
            Role::King,
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ];
        let letter = letter.to_ascii_lowercase();
        self.letters
            .iter()
            .position(|&l| l == letter)
            .map(|i| roles[i])
    }

    /// This language's options, each with what it means.
    pub(super) fn option_table(&self) -> impl Iterator<Item = (&'static str, OptionSpec)> + Clone {
        self.options
            .iter()
            .copied()
            .zip(SPECS.iter().copied())
            .chain(self.option_aliases.iter().copied())
    }

    /// The commands expected inside a problem, for error messages.
    pub(super) fn expected_keywords(&self) -> String {
        let names: Vec<&str> = [
            Keyword::Pieces,
            Keyword::Forsyth,
            Keyword::Stipulation,
            Keyword::Option,
            Keyword::Author,
            Keyword::Origin,
            Keyword::Title,
            Keyword::Remark,
            Keyword::Twin,
            Keyword::NextProblem,
            Keyword::EndProblem,
        ]
        .into_iter()
        .map(|k| self.keyword_name(k))
        .collect();
        names.join(", ")
    }
}
