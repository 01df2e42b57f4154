//! Everything about chess problems that cookd judges: the problem model and
//! its file formats, stipulations, the legality stage, the verdict, and (in
//! later stages) the solvers. No daemon concerns live here: no files watched,
//! no mail, no SQL.

pub mod check;
pub mod engine;
pub mod legality;
pub mod mate;
pub mod oracle;
pub mod problem;
pub mod proofgame;
pub mod recognizer;
pub mod search;
pub mod stipulation;
pub mod tablebase;
pub mod verdict;

pub use problem::{parse, ParseError, Problem};
pub use stipulation::Stipulation;
pub use verdict::Verdict;
