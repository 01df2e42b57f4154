//! Format: Popeye input, orthodox subset, in Popeye's three languages.
//!
//! ```text
//! beginproblem                      anfangproblem
//! author   Samuel Loyd              autor   Samuel Loyd
//! origin   Chess Monthly 1857       quelle  Chess Monthly 1857
//! pieces   white Kb1 Qd1 Sc3        steine  weiss Kb1 Dd1 Sc3
//!          black Ka3 pa4b5                  schwarz Ka3 ba4b5
//! stipulation #2                    forderung #2
//! option   variations               option  varianten
//! twin     move b1 c1               zwilling versetze b1 c1
//! endproblem                        endeproblem
//! ```
//!
//! Popeye input is a stream of whitespace-separated words; line breaks only
//! matter for the text commands (`author`, `origin`, `title`, `remark`,
//! `award`, `protocol`), whose text runs to the end of their line. The word
//! that opens a problem (`beginproblem`, `anfangproblem`, `debutprobleme`)
//! sets the language of every later keyword, option, colour, piece letter
//! and twinning command (`keywords.rs`: the tables are Popeye's). Words
//! are case-insensitive and may be abbreviated to any prefix that fits one
//! entry of the table Popeye looks them up in (`stip`, `ford`, `wh`).
//! Several problems are joined by `next` (`weiteresproblem`, `asuivre`) or
//! given as several `beginproblem … endproblem` blocks.
//!
//! Pieces use the language's letters: K Q R B **S** P in English (`N` is
//! Popeye's nightrider, a fairy piece, and is refused with a hint), K D T L
//! S B in German, R D T F C P in French. A piece letter may be followed by
//! several squares (`pa2b3c4`) or stand alone before them (`s a1b2`).
//! `forsyth` reads Popeye's Forsyth notation as Popeye does: empty squares
//! run on across ranks and `/` is only for the eye (`56/BK4bk/`).
//!
//! Twins (`twin`, `zwilling`, `jumeau`; `twins.rs`) make one problem each,
//! labelled a), b), …; `zeroposition` makes the diagram a zero position
//! that is not solved itself.
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
//! pieces (hunters included), neutral pieces and piece attributes,
//! `condition` (also as a twin), `sstipulation`, and options that change
//! what is solved (`duplex`, `halfduplex`, `quodlibet`, `goalisend`,
//! `nullmoves`, `castlingmutuallyexclusive`). After such an error the
//! problem is still read command by command, so that it ends where Popeye
//! ends it.

use shakmaty::{Bitboard, Board, Color, File, Rank, Role, Setup, Square};

use super::{
    default_castling_rights, location_of, Location, Origin, ParseError, ParseErrorKind, Problem,
    Stated,
};
use crate::stipulation::Stipulation;

mod keywords;
mod options;
mod pieces;
mod twins;
mod words;
use keywords::*;
pub(crate) use keywords::{Language, ENGLISH};
#[cfg(test)]
use keywords::{FRENCH, GERMAN};
use options::*;
pub(crate) use options::{read_option, Located, Rules};
use pieces::*;
pub(crate) use twins::{expand, label, read_twin, Position, TwinSpec};
use words::*;
pub(crate) use words::{TextWords, Word, Words};

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
    /// The twins, in order, each read or refused on its own; none for a
    /// problem without twins.
    twins: Vec<Result<TwinSpec, Located>>,
    /// The diagram is a zero position: only its twins are problems.
    zero_position: bool,
}

/// Reads the commands of one problem up to `endproblem`, `next`, or the end.
/// Returns the draft (or the first error), how it ended, and where.
///
/// After an error the problem is still read to its end, command by command,
/// so that its end is found where Popeye would find it: only the words that
/// follow the faulty command up to the next command are skipped (the
/// arguments of a condition cookd does not know, say).
fn read_problem(
    lexer: &mut Lexer<'_>,
    language: &Language,
) -> (Result<Draft, Located>, End, Location) {
    let mut draft = Draft::default();
    let mut first_error: Option<Located> = None;
    let mut fail = |error: Located, lexer: &mut Lexer<'_>| {
        first_error.get_or_insert(error);
        skip_to_command(lexer, language);
    };
    loop {
        let Some(word) = lexer.peek() else {
            let kind = ParseErrorKind::UnexpectedEnd("endproblem (or next) to close the problem");
            let eof = lexer.end_of_file();
            return (Err(first_error.unwrap_or((eof, kind))), End::Eof, eof);
        };
        let keyword = match language.keyword(word.text) {
            Lookup::Found(keyword) => keyword,
            Lookup::Ambiguous(names) => {
                let message = format!(
                    "ambiguous keyword {:?}: could be {}",
                    word.text,
                    names.join(", ")
                );
                lexer.bump();
                fail(syntax(word.at, message), lexer);
                continue;
            }
            Lookup::NotFound => {
                let message = format!(
                    "unknown keyword {:?}: expected {} ({} keywords, as the file's first word says)",
                    word.text,
                    language.expected_keywords(),
                    language.name
                );
                lexer.bump();
                fail(syntax(word.at, message), lexer);
                continue;
            }
        };
        if keyword == Keyword::BeginProblem {
            let message = "beginproblem inside a problem: expected endproblem first".to_owned();
            let error = first_error.unwrap_or(syntax(word.at, message));
            return (Err(error), End::Begin, word.at);
        }
        lexer.bump();
        let end = match keyword {
            Keyword::EndProblem => End::Closed,
            Keyword::NextProblem => End::Next,
            _ => {
                if let Err(error) = command(keyword, &word, lexer, &mut draft, language) {
                    fail(error, lexer);
                }
                continue;
            }
        };
        let result = match first_error {
            Some(error) => Err(error),
            None => Ok(draft),
        };
        return (result, end, word.at);
    }
}

/// Skips words up to the next command: a keyword of three letters or more
/// (shorter abbreviations are too likely to be arguments: `cond vault n`).
fn skip_to_command(lexer: &mut Lexer<'_>, language: &Language) {
    while let Some(word) = lexer.peek() {
        if word.text.chars().count() >= 3 && language.is_keyword(word.text) {
            break;
        }
        lexer.bump();
    }
}

/// Carries out one command (the keyword is already read).
fn command(
    keyword: Keyword,
    word: &Word<'_>,
    lexer: &mut Lexer<'_>,
    draft: &mut Draft,
    language: &Language,
) -> Result<(), Located> {
    let after_twins = !draft.twins.is_empty() || draft.zero_position;
    let diagram_command = !matches!(
        keyword,
        Keyword::Twin | Keyword::ZeroPosition | Keyword::Remark | Keyword::Protocol
    );
    if after_twins && diagram_command {
        let message = format!(
            "{} after the twins: the diagram's commands come before the first {}",
            word.text,
            language.keyword_name(Keyword::Twin)
        );
        return Err(syntax(word.at, message));
    }
    match keyword {
        Keyword::Stipulation => {
            let (stipulation, at) = read_stipulation(lexer, word, language)?;
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
            let ends = |w: &str| language.is_keyword(w);
            read_pieces(lexer, board, word, language, Occupied::Refuse, &ends)?;
        }
        Keyword::Forsyth => {
            let Some(forsyth) = lexer.next_word() else {
                let kind = ParseErrorKind::UnexpectedEnd("a position after forsyth");
                return Err((lexer.end_of_file(), kind));
            };
            if language.is_keyword(forsyth.text) {
                let message = format!(
                    "expected a position after forsyth, found {:?}",
                    forsyth.text
                );
                return Err(syntax(forsyth.at, message));
            }
            let board = parse_forsyth(forsyth.text, language)
                .map_err(|(i, kind)| (forsyth.offset(i), kind))?;
            draft.board = Some(board);
        }
        Keyword::InitialGameArray => draft.board = Some(Board::new()),
        Keyword::Option => read_options(lexer, word, &mut draft.rules, language)?,
        Keyword::Author | Keyword::Origin | Keyword::Title => {
            let text = lexer.rest_of_line();
            if text.text.is_empty() {
                let message = format!("expected text after {} on the same line", word.text);
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
        Keyword::Remark | Keyword::Protocol | Keyword::Award => {
            lexer.rest_of_line();
        }
        Keyword::LaTeX | Keyword::LaTeXPieces => {
            if keyword == Keyword::LaTeX {
                lexer.rest_of_line();
            }
            // Piece names for the LaTeX diagram: a piece of one or two
            // letters, its abbreviation, its full name to the end of the line.
            // Popeye takes any word of one or two characters here for a
            // piece, keyword abbreviations (`z`, `p`) included.
            while lexer.peek().is_some_and(|w| {
                w.text.len() <= 2 && w.text.chars().all(|c| c.is_ascii_alphanumeric())
            }) {
                lexer.bump();
                lexer.bump();
                lexer.rest_of_line();
            }
        }
        Keyword::Condition => {
            let name = lexer.peek().filter(|w| !language.is_keyword(w.text));
            let (at, what) = name.map_or((word.at, "condition".to_owned()), |w| {
                (w.at, format!("condition {}", w.text))
            });
            return Err((at, ParseErrorKind::Unsupported(what)));
        }
        Keyword::SStipulation => {
            let message = "structured stipulation (sstipulation)".to_owned();
            return Err((word.at, ParseErrorKind::Unsupported(message)));
        }
        Keyword::Twin => {
            // A twin cookd cannot read is refused alone; the others stand.
            let twin = read_twin(lexer, language, word.at, false);
            if twin.is_err() {
                skip_to_command(lexer, language);
            }
            draft.twins.push(twin);
        }
        Keyword::ZeroPosition => {
            if after_twins {
                let message = format!("{} after the twins: it comes before them", word.text);
                return Err(syntax(word.at, message));
            }
            draft.zero_position = true;
            // The commands after it make twin a (there may be none).
            let twin = read_twin(lexer, language, word.at, true)?;
            if !twin.changes.is_empty() {
                draft.twins.push(Ok(twin));
            }
        }
        Keyword::BeginProblem | Keyword::EndProblem | Keyword::NextProblem => {}
    }
    Ok(())
}

/// Reads the stipulation word; `SPG 8.5` written as two words is joined.
fn read_stipulation(
    lexer: &mut Lexer<'_>,
    command: &Word<'_>,
    language: &Language,
) -> Result<(Stipulation, Location), Located> {
    let Some(word) = lexer.peek() else {
        let kind = ParseErrorKind::UnexpectedEnd("a stipulation like #2 after stipulation");
        return Err((lexer.end_of_file(), kind));
    };
    if language.is_keyword(word.text) && !word.text.contains(|c: char| !c.is_alphabetic()) {
        let message = format!(
            "expected a stipulation like #2 after {}, found {:?}",
            command.text, word.text
        );
        return Err(syntax(word.at, message));
    }
    twins::read_stipulation_word(lexer, command)
}

fn read_options(
    lexer: &mut Lexer<'_>,
    keyword: &Word<'_>,
    rules: &mut Rules,
    language: &Language,
) -> Result<(), Located> {
    let mut count = 0;
    loop {
        let at = lexer.peek().map_or(keyword.at, |w| w.at);
        match read_option(lexer, language)? {
            Some(effect) => {
                rules.add(effect, at);
                count += 1;
            }
            None => break,
        }
    }
    let next = lexer.peek();
    let not_keyword = next.filter(|w| !language.is_keyword(w.text));
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

/// A twin refused on its own, with its entry and label when the problem
/// has twins.
pub(crate) struct TwinError {
    pub error: Located,
    pub label: Option<(usize, String)>,
}

/// Turns a finished draft into its problems: one, or one per twin.
fn finish(
    draft: Draft,
    end: Location,
    origin: &Origin,
) -> Result<Vec<Result<Problem, TwinError>>, Located> {
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
    let zero = Position { board, stipulation };
    let twinned = !draft.twins.is_empty() || draft.zero_position;
    let twins = expand(zero, draft.zero_position, &draft.twins);
    let problems = twins
        .into_iter()
        .enumerate()
        .map(|(i, twin)| {
            // A twin refused alone keeps its label for its id.
            let label = twinned.then(|| (origin.entry, twins::label(i)));
            let refused = |error: Located| TwinError {
                error,
                label: label.clone(),
            };
            let (position, twin) = twin.map_err(refused)?;
            let stipulation = draft
                .rules
                .stipulation(position.stipulation)
                .map_err(refused)?;
            let setup = draft.rules.setup(position.board, stipulation);
            Ok(Problem {
                origin: Origin {
                    index: origin.index + i,
                    ..origin.clone()
                },
                id: draft.id.clone(),
                authors: draft.authors.clone(),
                source: (!draft.source.is_empty()).then(|| draft.source.join("\n")),
                stipulation,
                stated: draft.rules.stated(&setup.board),
                setup,
                options: draft.rules.kept.clone(),
                intended_solutions: None,
                solution: None,
                twin: twinned.then_some(twin),
            })
        })
        .collect();
    Ok(problems)
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

/// Reads every problem of a Popeye input file, in the language its
/// opening word (`beginproblem`, `anfangproblem`, `debutprobleme`) names.
/// Each twin is a problem of its own; twins of one entry share its
/// `Origin::entry`.
pub fn parse(name: &str, text: &str) -> Vec<Result<Problem, ParseError>> {
    let mut lexer = Lexer::new(text);
    let mut results: Vec<Result<Problem, ParseError>> = Vec::new();
    let mut entry = 0;
    let error =
        |location: Location, index: usize, kind| ParseError::new(name, location, index, kind);
    let opens = |word: &str| {
        Language::of_begin(word).filter(|l| l.keyword(word) == Lookup::Found(Keyword::BeginProblem))
    };
    while let Some(word) = lexer.next_word() {
        let Some(language) = opens(word.text) else {
            // Popeye stops reading at `endproblem`, so text after the last
            // problem is ignored; text before another problem is an error.
            while lexer.peek().is_some_and(|next| opens(next.text).is_none()) {
                lexer.bump();
            }
            if lexer.peek().is_some() || results.is_empty() {
                let message = format!(
                    "expected beginproblem (or anfangproblem, debutprobleme), found {:?}",
                    word.text
                );
                let kind = ParseErrorKind::Syntax(message);
                results.push(Err(error(word.at, results.len(), kind)));
            }
            continue;
        };
        let mut start = word.at;
        loop {
            let origin = Origin {
                file: name.to_owned(),
                line: start.line,
                index: results.len(),
                entry,
            };
            entry += 1;
            let (draft, end, end_at) = read_problem(&mut lexer, language);
            match draft.and_then(|draft| finish(draft, end_at, &origin)) {
                Ok(problems) => {
                    for problem in problems {
                        let index = results.len();
                        results.push(problem.map_err(|refused| {
                            let (at, kind) = refused.error;
                            ParseError {
                                twin: refused.label,
                                ..error(at, index, kind)
                            }
                        }));
                    }
                }
                Err((location, kind)) => results.push(Err(error(location, origin.index, kind))),
            }
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
mod tests;
