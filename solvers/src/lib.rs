//! Everything about chess problems that cookd judges. No daemon concerns
//! live here: no files watched, no mail, no SQL.
//!
//! The front door is [`stage`]: a [`Problem`] (from [`parse`]) and the
//! long-lived [`stage::Resources`] in, its part of the [`Verdict`] out, one
//! module per stage. Behind it:
//!
//! | concept | module |
//! |---|---|
//! | problem model, file formats | [`problem`], [`stipulation`] |
//! | legality of a diagram | [`legality`] |
//! | direct, self and help mates; solution trees | [`mate`] |
//! | proof games | [`proofgame`] |
//! | endgame tables, studies | [`tablebase`], [`recognizer`], [`engine`] |
//! | the verdict and its words | [`verdict`] |
//! | shared search machinery | [`transposition`] (the transposition table), [`checking`] (which moves give check), [`stalemating`] (which moves may stalemate) |
//! | a reference to test against | [`oracle`] |

pub mod checking;
pub mod engine;
mod fxhash;
pub mod legality;
pub mod mate;
pub mod oracle;
pub mod problem;
pub mod proofgame;
pub mod recognizer;
pub mod stage;
pub mod stalemating;
pub mod stipulation;
pub mod tablebase;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod transposition;
pub mod verdict;

pub use problem::{parse, ParseError, Problem};
pub use stipulation::{Goal, Stipulation};
pub use verdict::Verdict;
