//! Format: one problem per line, `FEN ; stipulation`, or an EPD line with a
//! `stip` opcode.
//!
//! ```text
//! % comment lines start with % (or #); blank lines are skipped
//! 8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2
//! 2k5/8/8/8/8/8/8/R3K3 ; #2
//! 8/8/8/8/8/8/8/K1k5 w - - stip "#2"; id "dm001";
//! ```
//!
//! The FEN may be a full FEN (4 to 6 fields) or the board field alone. With
//! the board alone, the side to move follows from the stipulation, castling
//! rights are granted to kings and rooks on their home squares (Popeye's
//! default) and there is no en-passant square. Knights may be written `N` or
//! `S`.
//!
//! EPD opcodes read: `stip` (the stipulation), `id`, `hmvc` and `fmvn` (the
//! move counters); `dm n` stands for `#n` when there is no `stip`. Other
//! opcodes are skipped.
//!
//! This module also holds the FEN reader the other formats share: it reports
//! the byte offset of the first wrong character, so that every format can
//! point its error at the right column.

use std::num::NonZeroU32;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Setup, Square};

use super::{
    default_castling_rights, Location, Origin, ParseError, ParseErrorKind, Problem, Stated,
};
use crate::stipulation::Stipulation;

/// Something wrong at a byte offset of the text being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spot {
    pub offset: usize,
    pub kind: ParseErrorKind,
}

impl Spot {
    fn fen(offset: usize, message: String) -> Spot {
        Spot {
            offset,
            kind: ParseErrorKind::Fen(message),
        }
    }
}

/// What a FEN said beyond its board field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FenState {
    pub turn: Color,
    /// Byte offset of the side-to-move field, for errors about it.
    pub turn_offset: usize,
    pub castling_rights: Bitboard,
    pub ep_square: Option<Square>,
    pub halfmoves: Option<u32>,
    pub fullmoves: Option<NonZeroU32>,
}

/// A FEN as read: the board, and the other fields when they were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedFen {
    pub board: Board,
    pub state: Option<FenState>,
    /// Byte offset just after the last field read.
    pub end: usize,
}

impl ParsedFen {
    /// The setup this FEN describes; `default_turn` is used when the FEN is
    /// the board alone, with castling rights by Popeye's default.
    pub fn into_setup(self, default_turn: Color) -> Setup {
        let mut setup = Setup::empty();
        match self.state {
            Some(state) => {
                setup.turn = state.turn;
                setup.castling_rights = state.castling_rights;
                setup.ep_square = state.ep_square;
                setup.halfmoves = state.halfmoves.unwrap_or(0);
                setup.fullmoves = state.fullmoves.unwrap_or(NonZeroU32::MIN);
            }
            None => {
                setup.turn = default_turn;
                setup.castling_rights = default_castling_rights(&self.board);
            }
        }
        setup.board = self.board;
        setup
    }
}

/// The piece a FEN letter stands for. `S` is accepted for knights because
/// problemists (Stelvio, Popeye) write it so.
pub(crate) fn fen_piece(c: char) -> Option<Piece> {
    let role = match c.to_ascii_lowercase() {
        'k' => Role::King,
        'q' => Role::Queen,
        'r' => Role::Rook,
        'b' => Role::Bishop,
        'n' | 's' => Role::Knight,
        'p' => Role::Pawn,
        _ => return None,
    };
    Some(role.of(Color::from_white(c.is_ascii_uppercase())))
}

/// Reads a FEN board field (`field` starts at byte `base` of the text).
pub(crate) fn parse_board(field: &str, base: usize) -> Result<Board, Spot> {
    let mut board = Board::empty();
    let mut rank_index = 0u32; // 0 is rank 8, the first one written
    let mut file = 0u32;
    let rank_name = |index: u32| 8 - index;
    for (i, c) in field.char_indices() {
        let at = base + i;
        match c {
            '/' => {
                if file != 8 {
                    let msg = format!(
                        "rank {} has {file} squares: expected 8 before '/'",
                        rank_name(rank_index)
                    );
                    return Err(Spot::fen(at, msg));
                }
                rank_index += 1;
                if rank_index > 7 {
                    return Err(Spot::fen(
                        at,
                        "more than 8 ranks: expected 8 ranks separated by '/'".into(),
                    ));
                }
                file = 0;
            }
            '1'..='8' => {
                file += c.to_digit(10).unwrap_or(0);
                if file > 8 {
                    let msg = format!(
                        "rank {} has {file} squares: expected 8",
                        rank_name(rank_index)
                    );
                    return Err(Spot::fen(at, msg));
                }
            }
            _ => {
                let Some(piece) = fen_piece(c) else {
                    let msg = format!(
                        "unexpected {c:?} in the board: expected a piece letter (KQRBNP for White, kqrbnp for Black), a digit 1-8 or '/'"
                    );
                    return Err(Spot::fen(at, msg));
                };
                if file >= 8 {
                    let msg = format!(
                        "rank {} has more than 8 squares: expected 8",
                        rank_name(rank_index)
                    );
                    return Err(Spot::fen(at, msg));
                }
                let square = square_at(file, 7 - rank_index);
                board.set_piece_at(square, piece);
                file += 1;
            }
        }
    }
    let end = base + field.len();
    if rank_index != 7 {
        let msg = format!(
            "the board has {} ranks: expected 8 separated by '/'",
            rank_index + 1
        );
        return Err(Spot::fen(end, msg));
    }
    if file != 8 {
        return Err(Spot::fen(
            end,
            format!("rank 1 has {file} squares: expected 8"),
        ));
    }
    Ok(board)
}

/// The square of 0-based `file` and `rank`, both known to be below 8.
fn square_at(file: u32, rank: u32) -> Square {
    Square::from_coords(File::new(file), Rank::new(rank))
}

/// True for the characters that separate FEN fields.
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r'
}

/// Byte offset of the first non-blank character at or after `from`.
pub(crate) fn skip_blanks(text: &str, from: usize) -> usize {
    text.get(from..)
        .and_then(|rest| rest.find(|c: char| !is_blank(c)))
        .map_or(text.len(), |i| from + i)
}

/// The field starting at `from`: up to a blank, a `;` or the end.
fn field_at(text: &str, from: usize) -> &str {
    let rest = text.get(from..).unwrap_or("");
    let len = rest
        .find(|c: char| is_blank(c) || c == ';')
        .unwrap_or(rest.len());
    &rest[..len]
}

/// Reads a FEN starting at byte `from` of `text`: the board field, then, if
/// the next field is `w` or `b`, the side to move, castling rights,
/// en-passant square and the optional move counters. Stops before whatever
/// follows (a `;`, an EPD opcode, the end), which the caller judges.
pub(crate) fn parse_fen_at(text: &str, from: usize) -> Result<ParsedFen, Spot> {
    let board_at = skip_blanks(text, from);
    let board_field = field_at(text, board_at);
    if board_field.is_empty() {
        return Err(Spot::fen(
            board_at,
            "expected a FEN board like 8/8/8/8/8/8/8/K1k5".into(),
        ));
    }
    let board = parse_board(board_field, board_at)?;
    let mut end = board_at + board_field.len();

    let turn_at = skip_blanks(text, end);
    let turn = match field_at(text, turn_at) {
        "w" => Color::White,
        "b" => Color::Black,
        _ => {
            return Ok(ParsedFen {
                board,
                state: None,
                end,
            })
        }
    };
    end = turn_at + 1;

    let castling_at = skip_blanks(text, end);
    let castling_field = field_at(text, castling_at);
    if castling_field.is_empty() {
        let msg = "expected castling rights (like KQkq, or -) after the side to move".into();
        return Err(Spot::fen(castling_at, msg));
    }
    let castling_rights = parse_castling(castling_field, castling_at, &board)?;
    end = castling_at + castling_field.len();

    let ep_at = skip_blanks(text, end);
    let ep_field = field_at(text, ep_at);
    let ep_square = parse_ep(ep_field, ep_at)?;
    end = ep_at + ep_field.len();

    let mut state = FenState {
        turn,
        turn_offset: turn_at,
        castling_rights,
        ep_square,
        halfmoves: None,
        fullmoves: None,
    };
    let half_at = skip_blanks(text, end);
    let half_field = field_at(text, half_at);
    if is_number(half_field) {
        state.halfmoves = Some(parse_counter(half_field, half_at, "half-move clock")?);
        end = half_at + half_field.len();
        let full_at = skip_blanks(text, end);
        let full_field = field_at(text, full_at);
        if is_number(full_field) {
            let full = parse_counter(full_field, full_at, "move number")?;
            // FEN move numbers start at 1; a 0 is a common slip for it.
            state.fullmoves = Some(NonZeroU32::new(full).unwrap_or(NonZeroU32::MIN));
            end = full_at + full_field.len();
        }
    }
    Ok(ParsedFen {
        board,
        state: Some(state),
        end,
    })
}

fn is_number(field: &str) -> bool {
    !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit())
}

fn parse_counter(field: &str, at: usize, what: &str) -> Result<u32, Spot> {
    field
        .parse()
        .map_err(|_| Spot::fen(at, format!("{what} {field} is too large")))
}

/// Reads the castling field (`KQkq`, `-`, or Shredder-FEN file letters) into
/// rook squares, the way shakmaty does.
fn parse_castling(field: &str, at: usize, board: &Board) -> Result<Bitboard, Spot> {
    if field == "-" {
        return Ok(Bitboard::EMPTY);
    }
    let mut rights = Bitboard::EMPTY;
    for (i, c) in field.char_indices() {
        let color = Color::from_white(c.is_ascii_uppercase());
        let backrank = color.backrank();
        let rooks_and_king = board.by_color(color) & (board.rooks() | board.kings()) & backrank;
        let home = |file| Square::from_coords(file, backrank);
        let square = match c.to_ascii_lowercase() {
            'k' => rooks_and_king
                .last()
                .filter(|sq| board.rooks().contains(*sq))
                .unwrap_or(home(File::H)),
            'q' => rooks_and_king
                .first()
                .filter(|sq| board.rooks().contains(*sq))
                .unwrap_or(home(File::A)),
            letter @ 'a'..='h' => match File::from_char(letter) {
                Some(file) => home(file),
                None => return Err(bad_castling(at + i, c)),
            },
            _ => return Err(bad_castling(at + i, c)),
        };
        if rights.contains(square) {
            let msg = format!("castling right {c:?} is given twice");
            return Err(Spot::fen(at + i, msg));
        }
        rights.add(square);
        if (rights & backrank).count() > 2 {
            let msg =
                format!("more than two castling rights for {color}: expected at most KQ and kq");
            return Err(Spot::fen(at + i, msg));
        }
    }
    Ok(rights)
}

fn bad_castling(at: usize, c: char) -> Spot {
    Spot::fen(
        at,
        format!("unexpected {c:?} in castling rights: expected K, Q, k, q (or -)"),
    )
}

fn parse_ep(field: &str, at: usize) -> Result<Option<Square>, Spot> {
    if field == "-" {
        return Ok(None);
    }
    let expected = "expected an en-passant square on rank 3 or 6, or -";
    if field.is_empty() {
        return Err(Spot::fen(
            at,
            format!("{expected}, after the castling rights"),
        ));
    }
    match field.parse::<Square>() {
        Ok(square) if matches!(square.rank(), Rank::Third | Rank::Sixth) => Ok(Some(square)),
        _ => Err(Spot::fen(at, format!("{expected}, found {field:?}"))),
    }
}

/// 1-based column of byte `offset` in `line`.
pub(crate) fn column_of(line: &str, offset: usize) -> usize {
    let offset = offset.min(line.len());
    let prefix = line.get(..offset).unwrap_or(line);
    prefix.chars().count() + 1
}

/// Reads every problem of a `FEN ; stipulation` (or EPD) file.
pub fn parse(name: &str, text: &str) -> Vec<Result<Problem, ParseError>> {
    let mut results = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['%', '#']) {
            continue;
        }
        let index = results.len();
        let origin = Origin {
            file: name.to_owned(),
            line: number + 1,
            index,
            entry: index,
        };
        let result = parse_line(line).map_err(|spot| {
            let location = Location {
                line: number + 1,
                column: column_of(line, spot.offset),
            };
            ParseError::new(name, location, index, spot.kind)
        });
        results.push(result.map(|fields| fields.into_problem(origin)));
    }
    results
}

/// What one line holds.
#[derive(Debug)]
struct LineFields {
    fen: ParsedFen,
    stipulation: Stipulation,
    id: Option<String>,
    halfmoves: Option<u32>,
    fullmoves: Option<u32>,
}

impl LineFields {
    fn into_problem(self, origin: Origin) -> Problem {
        let stated = if self.fen.state.is_some() {
            Stated::BOTH
        } else {
            Stated::default()
        };
        let mut setup = self.fen.into_setup(self.stipulation.side_to_move());
        if let Some(halfmoves) = self.halfmoves {
            setup.halfmoves = halfmoves;
        }
        if let Some(fullmoves) = self.fullmoves {
            setup.fullmoves = NonZeroU32::new(fullmoves).unwrap_or(NonZeroU32::MIN);
        }
        Problem {
            origin,
            id: self.id,
            authors: Vec::new(),
            source: None,
            stipulation: self.stipulation,
            setup,
            stated,
            options: Vec::new(),
            intended_solutions: None,
            twin: None,
            solution: None,
        }
    }
}

fn parse_line(line: &str) -> Result<LineFields, Spot> {
    let fen = parse_fen_at(line, 0)?;
    let after = skip_blanks(line, fen.end);
    let rest = line.get(after..).unwrap_or("");
    if let Some(stip_text) = rest.strip_prefix(';') {
        let stip_at = skip_blanks(line, after + 1);
        let stipulation = parse_stipulation(stip_text, stip_at)?;
        return Ok(LineFields {
            fen,
            stipulation,
            id: None,
            halfmoves: None,
            fullmoves: None,
        });
    }
    let starts_opcode = rest.starts_with(|c: char| c.is_ascii_alphabetic());
    match &fen.state {
        Some(_) if starts_opcode => parse_epd_operations(line, after, fen),
        Some(_) if rest.is_empty() => Err(Spot {
            offset: after,
            kind: ParseErrorKind::Syntax(
                "expected ' ; ' and a stipulation after the FEN (or an EPD stip opcode)".into(),
            ),
        }),
        Some(_) => Err(Spot {
            offset: after,
            kind: ParseErrorKind::Syntax(format!(
                "expected ' ; ' and a stipulation after the FEN, found {:?}",
                field_at(line, after)
            )),
        }),
        None if rest.is_empty() => Err(Spot {
            offset: after,
            kind: ParseErrorKind::Syntax("expected ' ; ' and a stipulation after the board".into()),
        }),
        None => Err(Spot::fen(
            after,
            format!(
                "expected the side to move (w or b) or ' ; ' after the board, found {:?}",
                field_at(line, after)
            ),
        )),
    }
}

/// Reads a stipulation written at byte `at`; empty text is an error too.
fn parse_stipulation(text: &str, at: usize) -> Result<Stipulation, Spot> {
    text.trim().parse().map_err(|e| Spot {
        offset: at,
        kind: ParseErrorKind::Stipulation(e),
    })
}

/// One EPD operation: its opcode and operands, with byte offsets.
#[derive(Debug)]
struct Operation<'a> {
    opcode: &'a str,
    operands: Vec<(&'a str, usize)>,
    at: usize,
}

/// Splits the EPD operations starting at byte `from`: `opcode operand...;`
/// with operands bare or in double quotes.
fn epd_operations(line: &str, from: usize) -> Result<Vec<Operation<'_>>, Spot> {
    let mut operations = Vec::new();
    let mut pos = skip_blanks(line, from);
    while pos < line.len() {
        let opcode = field_at(line, pos);
        if opcode.is_empty() || !opcode.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(Spot {
                offset: pos,
                kind: ParseErrorKind::Syntax(format!(
                    "expected an EPD opcode like stip, found {:?}",
                    line.get(pos..)
                        .unwrap_or("")
                        .chars()
                        .take(12)
                        .collect::<String>()
                )),
            });
        }
        let mut operation = Operation {
            opcode,
            operands: Vec::new(),
            at: pos,
        };
        pos = skip_blanks(line, pos + opcode.len());
        loop {
            let rest = line.get(pos..).unwrap_or("");
            if rest.is_empty() {
                break; // a missing final ';' is forgiven
            }
            if let Some(stripped) = rest.strip_prefix(';') {
                pos = skip_blanks(line, line.len() - stripped.len());
                break;
            }
            if let Some(quoted) = rest.strip_prefix('"') {
                let Some(close) = quoted.find('"') else {
                    return Err(Spot {
                        offset: pos,
                        kind: ParseErrorKind::Syntax(
                            "unterminated string: expected a closing \"".into(),
                        ),
                    });
                };
                operation.operands.push((&quoted[..close], pos + 1));
                pos = skip_blanks(line, pos + 1 + close + 1);
            } else {
                let operand = field_at(line, pos);
                operation.operands.push((operand, pos));
                pos = skip_blanks(line, pos + operand.len());
            }
        }
        operations.push(operation);
    }
    Ok(operations)
}

fn parse_epd_operations(line: &str, from: usize, fen: ParsedFen) -> Result<LineFields, Spot> {
    let mut stipulation = None;
    let mut mate_in = None;
    let mut fields = LineFields {
        fen,
        stipulation: Stipulation::Win, // replaced below
        id: None,
        halfmoves: None,
        fullmoves: None,
    };
    for operation in epd_operations(line, from)? {
        let first = operation.operands.first().copied();
        let number = |what: &str| -> Result<u32, Spot> {
            match first {
                Some((text, at)) => text.parse().map_err(|_| Spot {
                    offset: at,
                    kind: ParseErrorKind::Syntax(format!(
                        "expected a number after {what}, found {text:?}"
                    )),
                }),
                None => Err(missing_operand(&operation, "a number")),
            }
        };
        match operation.opcode {
            "stip" => {
                let (text, at) = first
                    .ok_or_else(|| missing_operand(&operation, "a stipulation like \"#2\""))?;
                stipulation = Some(parse_stipulation(text, at)?);
            }
            "id" => {
                let (text, _) =
                    first.ok_or_else(|| missing_operand(&operation, "an identifier"))?;
                fields.id = Some(text.to_owned());
            }
            "hmvc" => fields.halfmoves = Some(number("hmvc")?),
            "fmvn" => fields.fullmoves = Some(number("fmvn")?),
            "dm" => mate_in = Some((number("dm")?, operation.at)),
            _ => {}
        }
    }
    fields.stipulation = match (stipulation, mate_in) {
        (Some(stipulation), _) => stipulation,
        (None, Some((moves, at))) => parse_stipulation(&format!("#{moves}"), at)?,
        (None, None) => {
            return Err(Spot {
                offset: line.trim_end().len(),
                kind: ParseErrorKind::Missing(
                    "stipulation: expected an EPD opcode like stip \"#2\";",
                ),
            })
        }
    };
    Ok(fields)
}

fn missing_operand(operation: &Operation<'_>, what: &str) -> Spot {
    Spot {
        offset: operation.at,
        kind: ParseErrorKind::Syntax(format!("expected {what} after {}", operation.opcode)),
    }
}

/// The full FEN of a setup; castling rights a FEN cannot hold are dropped.
pub(crate) fn full_fen(setup: &Setup) -> String {
    Fen::try_from_setup(setup.clone())
        .unwrap_or_else(shakmaty::fen::LossyFenError::ignore)
        .to_string()
}

/// Writes a problem as one line that [`parse`] reads back to the same
/// problem: `FEN ; stipulation`, or an EPD line when the problem has an
/// identifier. Authors, source, options and the solution have no place in
/// this format and are left out.
pub fn to_fenline(problem: &Problem) -> String {
    let Some(id) = &problem.id else {
        return format!("{} ; {}\n", full_fen(&problem.setup), problem.stipulation);
    };
    let fen = full_fen(&problem.setup);
    let four_fields: Vec<&str> = fen.split(' ').take(4).collect();
    // EPD strings cannot hold quotes or line breaks.
    let id: String = id
        .chars()
        .map(|c| match c {
            '"' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let mut line = format!(
        "{} stip \"{}\"; id \"{}\";",
        four_fields.join(" "),
        problem.stipulation,
        id
    );
    let setup = &problem.setup;
    if setup.halfmoves != 0 {
        line.push_str(&format!(" hmvc {};", setup.halfmoves));
    }
    if setup.fullmoves != NonZeroU32::MIN {
        line.push_str(&format!(" fmvn {};", setup.fullmoves));
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(line: &str) -> (usize, ParseErrorKind) {
        let spot = parse_line(line).unwrap_err();
        (column_of(line, spot.offset), spot.kind)
    }

    #[test]
    fn reads_board_only_and_full_fens() {
        let fields = parse_line("2k5/8/8/8/8/8/8/R3K3 ; h#2").unwrap();
        let setup = fields.fen.clone().into_setup(Color::Black);
        assert_eq!(setup.turn, Color::Black);
        assert_eq!(setup.castling_rights, Bitboard::from(Square::A1));
        let fields = parse_line("8/Q7/8/8/8/8/8/2k1K2R w K - 3 7;#2").unwrap();
        let setup = fields.fen.into_setup(Color::Black);
        assert_eq!(setup.turn, Color::White);
        assert_eq!(setup.halfmoves, 3);
        assert_eq!(setup.fullmoves.get(), 7);
        assert_eq!(fields.stipulation, "#2".parse().unwrap());
    }

    #[test]
    fn errors_point_into_the_line() {
        let (column, kind) = spot("rnbqkbnrr/8/8/8/8/8/8/8 w - - ; #2");
        assert_eq!(column, 9);
        assert!(matches!(kind, ParseErrorKind::Fen(_)), "{kind}");
        let (column, kind) = spot("8/8/8/8/8/8/8/K1k5 w - - ; #x");
        assert_eq!(column, 28);
        assert!(matches!(kind, ParseErrorKind::Stipulation(_)));
        let (column, _) = spot("8/8/8/8/8/8/8/K1k5 w KX - ; #2");
        assert_eq!(column, 23);
        let (column, _) = spot("8/8/8/8/8/8/8/K1k5 w - e4 ; #2");
        assert_eq!(column, 24);
        let (column, _) = spot("8/8/8/8/8/8/8/K1k5 w - -");
        assert_eq!(column, 25);
        let (column, _) = spot("8/8/8/8/8/8/8/K1k5 W - - ; #2");
        assert_eq!(column, 20);
        let (column, _) = spot("8/8/8/8/8/8/8/K1k5 w");
        assert_eq!(column, 21);
    }

    #[test]
    fn reads_epd_operations() {
        let fields =
            parse_line("8/8/8/8/8/8/8/K1k5 w - - stip \"h#2.5\"; id \"a;b\"; c0 \"x\";").unwrap();
        assert_eq!(fields.stipulation, "h#2.5".parse().unwrap());
        assert_eq!(fields.id.as_deref(), Some("a;b"));
        let fields = parse_line("8/8/8/8/8/8/8/K1k5 w - - bm Kb2; dm 3;").unwrap();
        assert_eq!(fields.stipulation, "#3".parse().unwrap());
        let (column, kind) = spot("8/8/8/8/8/8/8/K1k5 w - - id \"x\";");
        assert_eq!(column, 33);
        assert!(matches!(kind, ParseErrorKind::Missing(_)));
    }
}
