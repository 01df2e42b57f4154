//! Format: Stelvio `problems.txt`, proof games as pairs of lines.
//!
//! ```text
//! 1nbq4/ppk1p3/Rp5p/3npr2/R3P3/2br1B1P/PP2P2P/1NBQNK2
//! 65
//! ```
//!
//! The first line of a pair is the diagram as a FEN (the board field alone,
//! or a full FEN; knights `N` or `S`), the second the exact length of the
//! proof game in half-moves. Blank lines (and `%` or `#` comment lines) may
//! stand between and inside pairs. The side to move follows from the parity
//! of the length; a full FEN must agree with it. Castling rights and
//! en-passant squares are not part of a proof-game diagram (the solver finds
//! what the history allows), so none are set. A count of 0 is kept as
//! `SPG 0`; some collections use it for "any length", which is for the
//! proof-game stage to decide.

use shakmaty::Color;

use super::fenline::{column_of, parse_fen_at, skip_blanks, ParsedFen, Spot};
use super::{
    bare_setup, location_of, Location, Origin, ParseError, ParseErrorKind, Problem, Stated,
};
use crate::stipulation::{ParseStipulationError, Stipulation, MAX_MOVES};

/// Reads every proof game of a Stelvio file.
pub fn parse(name: &str, text: &str) -> Vec<Result<Problem, ParseError>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(_, line)| {
            let trimmed = line.trim();
            !trimmed.is_empty() && !trimmed.starts_with(['%', '#'])
        })
        .peekable();
    let mut results = Vec::new();
    while let Some((fen_line_number, fen_line)) = lines.next() {
        let index = results.len();
        let error = |line: usize, column: usize, kind: ParseErrorKind| {
            ParseError::new(name, Location { line, column }, index, kind)
        };
        let fen = match read_fen_line(fen_line) {
            Ok(fen) => fen,
            Err(spot) => {
                let column = column_of(fen_line, spot.offset);
                results.push(Err(error(fen_line_number, column, spot.kind)));
                // The count of a broken pair belongs to it, not to the next one.
                if lines.peek().is_some_and(|(_, l)| is_count_line(l)) {
                    lines.next();
                }
                continue;
            }
        };
        let (count_number, count_text) = match lines.peek() {
            None => {
                let eof = location_of(text.as_bytes());
                let kind = ParseErrorKind::UnexpectedEnd(
                    "the number of half-moves on the line after the FEN",
                );
                results.push(Err(error(eof.line, eof.column, kind)));
                continue;
            }
            Some(&(next_number, line)) if looks_like_fen(line) => {
                // Not consumed: that FEN starts the next pair.
                let kind = ParseErrorKind::Syntax(format!(
                    "expected the number of half-moves after the FEN of line {fen_line_number}, found another FEN"
                ));
                let column = column_of(line, skip_blanks(line, 0));
                results.push(Err(error(next_number, column, kind)));
                continue;
            }
            Some(&next) => {
                lines.next();
                next
            }
        };
        let stipulation = match read_count(count_text) {
            Ok(stipulation) => stipulation,
            Err(spot) => {
                let column = column_of(count_text, spot.offset);
                results.push(Err(error(count_number, column, spot.kind)));
                continue;
            }
        };
        if let Err(spot) = check_turn(&fen, stipulation) {
            let column = column_of(fen_line, spot.offset);
            results.push(Err(error(fen_line_number, column, spot.kind)));
            continue;
        }
        results.push(Ok(Problem {
            origin: Origin {
                file: name.to_owned(),
                line: fen_line_number,
                index,
                entry: index,
            },
            id: None,
            authors: Vec::new(),
            source: None,
            stipulation,
            setup: bare_setup(fen.board, stipulation.side_to_move()),
            // Stelvio's format has no place for them.
            stated: Stated::default(),
            options: Vec::new(),
            intended_solutions: None,
            twin: None,
            solution: None,
        }));
    }
    results
}

/// A FEN that fills its whole line.
fn read_fen_line(line: &str) -> Result<ParsedFen, Spot> {
    let fen = parse_fen_at(line, 0)?;
    let after = skip_blanks(line, fen.end);
    match line.get(after..) {
        Some(rest) if !rest.is_empty() => Err(Spot {
            offset: after,
            kind: ParseErrorKind::Syntax(format!(
                "unexpected {:?} after the FEN: expected the half-move count on the next line",
                rest.trim_end()
            )),
        }),
        _ => Ok(fen),
    }
}

fn is_count_line(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit())
}

fn looks_like_fen(line: &str) -> bool {
    line.contains('/')
}

/// The proof-game stipulation of a count line.
fn read_count(line: &str) -> Result<Stipulation, Spot> {
    let at = skip_blanks(line, 0);
    let count = line.trim();
    if let Some(bad) = count.find(|c: char| !c.is_ascii_digit()) {
        let kind = ParseErrorKind::Syntax(format!(
            "expected the number of half-moves (digits only), found {count:?}"
        ));
        return Err(Spot {
            offset: at + bad,
            kind,
        });
    }
    let too_long = || Spot {
        offset: at,
        kind: ParseErrorKind::Stipulation(ParseStipulationError::TooLong(format!(
            "{count} half-moves"
        ))),
    };
    let plies: u32 = count.parse().map_err(|_| too_long())?;
    if plies > 2 * MAX_MOVES + 1 {
        return Err(too_long());
    }
    Ok(Stipulation::ProofGame { plies })
}

/// A full FEN must put the side on move that the length implies.
fn check_turn(fen: &ParsedFen, stipulation: Stipulation) -> Result<(), Spot> {
    let Some(state) = &fen.state else {
        return Ok(());
    };
    let implied = stipulation.side_to_move();
    if state.turn == implied {
        return Ok(());
    }
    let plies = match stipulation {
        Stipulation::ProofGame { plies } => plies,
        _ => 0,
    };
    Err(Spot {
        offset: state.turn_offset,
        kind: ParseErrorKind::Fen(format!(
            "the FEN has {} to move, but after {plies} half-moves {} is to move",
            color_name(state.turn),
            color_name(implied)
        )),
    })
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Writes a proof game as a Stelvio pair of lines (board FEN, half-move
/// count). Other stipulations have no Stelvio form: `None`.
pub fn to_stelvio(problem: &Problem) -> Option<String> {
    match problem.stipulation {
        Stipulation::ProofGame { plies } => {
            Some(format!("{}\n{plies}\n", problem.setup.board.board_fen()))
        }
        _ => None,
    }
}
