//! The solution tree as text, in the usual notation (`1.Qf2! (2.Qb2#)`).

use super::*;

/// The Popeye-like text of a tree: the key with `!` and its threat (or
/// zugzwang), one line per defence indented under the move it answers,
/// several continuations joined by `/` and marked `(minor dual)` or
/// `(major dual)`, short variations marked `(short)`, then the tries, the
/// Black duals (those that are not just the threat carried out) and a
/// truncation note. For example (Armeni, dm016, abridged):
///
/// ```text
/// 1.f4! (threat: 2.fxe5#)
///     1...gxf3 2.Nb7#
///     1...Rd1 2.fxe5#/2.Rxd1# (minor dual)
///     1...Rb8+ 2.cxb8=Q#/2.cxb8=B# (major dual)
/// 1.c8=Q? but 1...Rxc8!
/// black dual: 1.f4 1...R8xf4/1...Rf5 2.c8=N#
/// ```
///
/// Deeper trees put White's next move on the defence's line and Black's
/// replies to it below; moves of the same number line up (White's move m
/// at column 8(m-1), Black's at 8(m-1)+4), and a dual's continuations, when
/// they have replies of their own, each get a line:
///
/// ```text
/// 1.Rh3+!
///     1...Kb2 (major dual)
///         2.Kd1 (zugzwang)
///             2...Kb1 3.Rb3#
///         2.Kd2 (zugzwang)
///             2...Kb1 3.Rb3#
///     1...Kc2 2.Rb4 (zugzwang)
///             2...Kc1 3.Rc3#
/// ```
pub fn render(tree: &Tree) -> String {
    let mut out = String::new();
    render_play(&mut out, &tree.key, 1, 0, "!");
    for t in &tree.tries {
        out.push_str(&format!("1.{}? but 1...{}!\n", t.san, t.refutation_san));
    }
    for b in tree.black_duals.iter().filter(|b| !b.threat) {
        out.push_str(&format!(
            "black dual: {} {} {}\n",
            b.line,
            b.defences.join("/"),
            b.continuation
        ));
    }
    match tree.truncated {
        Some(Truncation::Size) => out.push_str("(tree truncated: too many variations)\n"),
        Some(Truncation::Deadline) => out.push_str("(tree truncated: the budget ran out)\n"),
        None => {}
    }
    out
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(self))
    }
}

/// A play is a leaf when nothing is printed below it.
pub(super) fn is_leaf(play: &Play) -> bool {
    play.variations.is_empty() && play.threat.as_ref().is_none_or(|t| t.iter().all(is_leaf))
}

/// `2.Qe2 (threat: 3.Qd2#)`, `2.Qd3 (zugzwang)`: the move and what it threatens
/// when that fits on the line.
pub(super) fn play_head(play: &Play, number: u32, mark: &str) -> String {
    let mut head = format!("{number}.{}{mark}", play.san);
    if play.zugzwang {
        head.push_str(" (zugzwang)");
    }
    if let Some(threats) = &play.threat {
        if threats.iter().all(is_leaf) {
            let list: Vec<String> = threats
                .iter()
                .map(|t| format!("{}.{}", number + 1, t.san))
                .collect();
            head.push_str(&format!(" (threat: {})", list.join("/")));
        } else {
            head.push_str(" threat:");
        }
    }
    head
}

/// What follows a play's head: the threat lines (when they did not fit on
/// the line) and the variations, indented.
pub(super) fn render_below(out: &mut String, play: &Play, number: u32, indent: usize) {
    if let Some(threats) = &play.threat {
        if !threats.iter().all(is_leaf) {
            for t in threats {
                render_play(out, t, number + 1, indent + 8, "");
            }
        }
    }
    for v in &play.variations {
        render_variation(out, v, number, indent + 4);
    }
}

pub(super) fn render_play(out: &mut String, play: &Play, number: u32, indent: usize, mark: &str) {
    out.push_str(&format!(
        "{:indent$}{}\n",
        "",
        play_head(play, number, mark)
    ));
    render_below(out, play, number, indent);
}

pub(super) fn render_variation(out: &mut String, v: &Variation, number: u32, indent: usize) {
    let mut marks = String::new();
    if v.short {
        marks.push_str(" (short)");
    }
    if let Some(kind) = v.dual {
        marks.push_str(&format!(" ({} dual)", kind.as_str()));
    }
    let head = format!("{:indent$}{number}...{}", "", v.san);
    match v.continuations.as_slice() {
        [] => out.push_str(&format!("{head}{marks}\n")),
        several if several.iter().all(is_leaf) => {
            let list: Vec<String> = several
                .iter()
                .map(|c| play_head(c, number + 1, ""))
                .collect();
            out.push_str(&format!("{head} {}{marks}\n", list.join("/")));
        }
        [only] => {
            out.push_str(&format!(
                "{head} {}{marks}\n",
                play_head(only, number + 1, "")
            ));
            render_below(out, only, number + 1, indent + 4);
        }
        several => {
            out.push_str(&format!("{head}{marks}\n"));
            for c in several {
                render_play(out, c, number + 1, indent + 4, "");
            }
        }
    }
}
