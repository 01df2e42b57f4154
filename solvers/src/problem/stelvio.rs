//! Format: stelvio.

use super::{ParseError, Problem};

/// Reads every problem of a stelvio file.
pub fn parse(name: &str, _text: &str) -> Vec<Result<Problem, ParseError>> {
    vec![Err(ParseError {
        file: name.to_owned(),
        location: super::Location { line: 1, column: 1 },
        index: 0,
        kind: super::ParseErrorKind::UnknownFormat,
    })]
}
