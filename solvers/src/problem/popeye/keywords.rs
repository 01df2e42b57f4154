//! Popeye's keywords, matched by unambiguous prefix.

/// Result of looking a word up in a table of names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lookup<T> {
    Found(T),
    Ambiguous(Vec<&'static str>),
    NotFound,
}

/// Finds `word` in `table`, case-insensitively: an exact name, or a prefix
/// of at least three letters that fits one entry only (entries with equal
/// values, like aliases, count as one).
pub(super) fn lookup<T: Copy + PartialEq>(table: &[(&'static str, T)], word: &str) -> Lookup<T> {
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

/// Popeye's English keywords.
pub(super) const KEYWORDS: &[(&str, Keyword)] = &[
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

pub(super) const EXPECTED_KEYWORDS: &str =
    "pieces, forsyth, stipulation, option, author, origin, title, remark, next or endproblem";

/// True for the commands whose text runs to the end of the line.
pub(super) fn takes_rest_of_line(keyword: Keyword) -> bool {
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
