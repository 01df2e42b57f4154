//! Solution lines as the verdict prints them: SAN with move numbers, and
//! UCI.

use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::Line;

pub(super) fn render_lines(start: &Chess, lines: &[Vec<Move>]) -> Vec<Line> {
    lines.iter().map(|line| render_line(start, line)).collect()
}

/// `1.Kb8 O-O 2.g2 Rf8#` (or `1...Kb8` when Black starts). Proof games
/// print theirs the same way, from the initial array.
pub(crate) fn render_line(start: &Chess, line: &[Move]) -> Line {
    let mut pos = start.clone();
    let mut san = String::new();
    let mut number = 1;
    for (i, m) in line.iter().enumerate() {
        if !san.is_empty() {
            san.push(' ');
        }
        if pos.turn().is_white() {
            san.push_str(&format!("{number}."));
        } else if i == 0 {
            san.push_str(&format!("{number}..."));
        }
        if pos.turn().is_black() {
            number += 1;
        }
        san.push_str(&SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
    }
    Line {
        san,
        uci: line
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect(),
    }
}
