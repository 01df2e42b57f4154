//! What one YAML file may cost to read, checked on its text before the
//! YAML library reads it: the library keeps every event of a document and
//! then its whole value in memory, and its scanner is quadratic in the
//! nesting of flow collections, so a file within the byte limit could
//! still cost hundreds of MiB or minutes.

use super::super::location_of;
use super::Location;

/// The most YAML nodes (list items, keys, values) one file may have, as
/// counted on the text by their marks (line breaks, `- `, `:`, `?`, `,`,
/// `[` and `{`). A yacpdb entry has 20 to 60, so this reads one to two
/// thousand problems from one file; at the limit the parser peaks at about
/// 30 MiB (a file of 3 million items, within the 8 MiB byte limit, took
/// 691 MiB before this limit).
pub const MAX_NODES: usize = 50_000;

/// Where `text` has more than [`MAX_NODES`] node marks, if it does. A node
/// of a YAML document starts at a line start or after an indicator: `- `
/// (a list item), `:` (a value), `?` (a key), `,`, `[` or `{`. Counting
/// these bytes wherever they stand, in quotes and comments too, never
/// counts fewer marks than the library makes nodes, but for the few empty
/// nodes one indicator can make (`? ` alone is a key and a value), so the
/// count bounds the memory whatever the text hides in quotes; real
/// problem files have few of these bytes beyond their nodes.
pub(super) fn too_many_nodes(text: &str) -> Option<Location> {
    let bytes = text.as_bytes();
    let mut marks = 1; // the document's root
    for (at, &byte) in bytes.iter().enumerate() {
        let mark = match byte {
            b'\n' | b':' | b'?' | b',' | b'[' | b'{' => true,
            b'-' => matches!(bytes.get(at + 1), None | Some(b' ' | b'\t' | b'\n')),
            _ => false,
        };
        if mark {
            marks += 1;
            if marks > MAX_NODES {
                return Some(location_of(&bytes[..at]));
            }
        }
    }
    None
}

/// The deepest nesting of flow collections read. libyaml's scanner looks
/// at every open level for each token, so n nested brackets cost O(n²)
/// before the deserializer's own recursion limit (128 levels) refuses them:
/// 40,000 took 2.6 s and 400,000 took 296 s (found by fuzzing). Nothing
/// nested deeper than that limit can be read anyway.
pub const MAX_FLOW_DEPTH: usize = 128;

/// Where `text` opens a flow collection deeper than [`MAX_FLOW_DEPTH`], if
/// it does. The count never falls below YAML's own nesting, whatever the
/// text hides: every `[` and `{` counts, wherever it stands (escaped, in
/// quotes and comments too), and a `]` or `}` in what looks like a quoted
/// scalar or a comment can close only brackets opened inside it. Outside
/// those, closers count; in a flow collection plain scalars cannot hold
/// them, so the only closers that YAML reads as text there are those of
/// quoted scalars and comments, and a quote is taken as opening wherever
/// YAML could open one (after a blank, a line start, an indicator or
/// another quote), the quote running on past the line's end while a
/// collection is open. Mistaking text for structure only makes the count
/// higher: balanced brackets in text never add up, a file with more than
/// 128 unclosed ones in its text is refused (no problem file has that
/// many).
pub fn too_deep(text: &str) -> Option<Location> {
    let mut depth = 0usize;
    // The open quote, and the depth that text (a quote or comment) may
    // not close below.
    let mut quote = None;
    let mut floor = 0usize;
    for (number, line) in text.lines().enumerate() {
        if depth == 0 {
            // Out of every collection a quote spanning lines holds no
            // closer that matters; stopping it bounds a misread one.
            quote = None;
        }
        let mut comment = false;
        let mut previous = ' ';
        let mut escaped = false;
        let mut chars = line.char_indices().peekable();
        while let Some((column, c)) = chars.next() {
            let in_text = quote.is_some() || comment;
            match c {
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some(Location {
                            line: number + 1,
                            column: line[..column].chars().count() + 1,
                        });
                    }
                }
                ']' | '}' if !in_text => depth = depth.saturating_sub(1),
                ']' | '}' if depth > floor => depth -= 1,
                _ => {}
            }
            match (quote, c) {
                _ if comment => {}
                (Some('"'), _) if escaped => escaped = false,
                (Some('"'), '\\') => escaped = true,
                (Some('\''), '\'') if chars.peek().is_some_and(|&(_, n)| n == '\'') => {
                    chars.next();
                }
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"')
                    if previous.is_whitespace() || "[]{},:?'\"".contains(previous) =>
                {
                    quote = Some(c);
                    floor = depth;
                }
                (None, '#') if previous.is_whitespace() => {
                    comment = true;
                    floor = depth;
                }
                _ => {}
            }
            previous = c;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use crate::problem::ParseErrorKind;

    /// The finding behind [`MAX_NODES`]: a 6 MB list of 3 million items,
    /// within the byte limit, took the parser 691 MiB. It is refused with
    /// the limit named, at the mark past it, before the library reads it.
    #[test]
    fn a_file_of_millions_of_items_is_refused_at_the_node_past_the_limit() {
        let text = format!("items: [{}0]", "0,".repeat(3_000_000));
        let results = crate::problem::parse("items.yaml", text.as_bytes());
        assert_eq!(results.len(), 1);
        let error = results[0].as_ref().unwrap_err();
        assert_eq!(error.kind, ParseErrorKind::TooManyNodes { limit: 50_000 });
        // Marks: the root, `:`, `[`, then one per `,`: the 49,998th comma,
        // at byte 7 + 2 × 49,998, is the one past the limit.
        assert_eq!(
            error.location,
            Location {
                line: 1,
                column: 8 + 2 * 49_998
            }
        );
        assert!(
            error.to_string().contains("more than 50000 nodes"),
            "{error}"
        );
    }

    /// One item of a block list is two marks (`- ` and its line break): a
    /// list that reaches the limit exactly is read item by item, one more
    /// item is refused.
    #[test]
    fn the_node_limit_counts_each_list_item() {
        let items = (MAX_NODES - 1) / 2;
        let read = parse("list.yaml", &"- 0\n".repeat(items));
        assert_eq!(read.len(), items);
        assert!(read.iter().all(|r| r
            .as_ref()
            .is_err_and(|e| e.to_string().contains("expected a problem"))));
        let refused = parse("list.yaml", &"- 0\n".repeat(items + 1));
        assert_eq!(refused.len(), 1);
        let error = refused[0].as_ref().unwrap_err();
        assert_eq!(
            error.kind,
            ParseErrorKind::TooManyNodes { limit: MAX_NODES }
        );
        assert_eq!(error.location.line, items + 1);
    }

    /// Real problem files stay far below the limit: fifteen hundred yacpdb
    /// entries are all read.
    #[test]
    fn thousands_of_real_entries_fit_under_the_node_limit() {
        let entry = "- authors: [Schöpfer, G.]\n  source: Neue Leipziger Zeitung, 1927\n  stipulation: \"#2\"\n  algebraic:\n    white: [Ke1, Qa7, Rh1]\n    black: [Kc1]\n  solution: |\n    1.Qf2! (2.Qd2#)\n    1...Kb1 2.Qb2#, 1...Kd1 2.Qd2#\n  keywords: [Castling, Flight-giving]\n";
        let results = parse("many.yaml", &entry.repeat(1_500));
        assert_eq!(results.len(), 1_500);
        assert!(results.iter().all(Result::is_ok));
    }

    /// Found by fuzzing (the yaml target, 23,529 `[` with some text: a
    /// hang of 1.4 s): deep flow nesting is refused before libyaml scans
    /// it in quadratic time.
    #[test]
    fn deeply_nested_flow_collections_are_refused_at_the_first_too_deep() {
        let text = format!("a: {}", "[".repeat(400_000));
        let results = parse("deep.yaml", &text);
        assert_eq!(results.len(), 1);
        let error = results[0].as_ref().unwrap_err();
        assert_eq!(
            error.location,
            Location {
                line: 1,
                column: 4 + 128
            }
        );
        assert!(
            error.to_string().contains("nested more than 128 deep"),
            "{error}"
        );
        // Nesting that YAML can read, balanced brackets in quotes and
        // comments, and closed collections are not counted against it.
        let fine = format!(
            "stipulation: \"#2\"\nfen: 8/8/8/8/8/8/8/K1k5 w - - 0 1\n# {}\nnote: '{}'\nx: {}\ny: \"it's [{}]\"\n",
            "[a] ".repeat(300),
            "{}".repeat(300),
            "[a], ".repeat(300),
            "]".repeat(300)
        );
        assert!(too_deep(&fine).is_none());
        assert!(too_deep(&format!("x: {}", "[".repeat(128))).is_none());
    }

    /// Found by reading the check: text that looks quoted or commented to
    /// a line-by-line scan but not to YAML hid the brackets after it, and
    /// 20,000 of them took the fuzz build 10 s. Each is refused now.
    #[test]
    fn nesting_is_counted_whatever_quotes_and_comments_hide() {
        let deep = "[".repeat(20_000);
        for (text, line) in [
            // A quote inside a plain scalar is text, not a quote.
            (format!("x: [a', {deep}"), 1),
            // A quote spanning lines: the `#` is text, not a comment.
            (format!("x: [\"a\n # \", {deep}"), 2),
            // Closers in text close only brackets opened there.
            (format!("x: [{}", "[\"]]]]\", ".repeat(200)), 1),
            (format!("x: [{}", "[ # ]]]]\n".repeat(200)), 128),
        ] {
            let results = parse("deep.yaml", &text);
            let error = results[0].as_ref().unwrap_err();
            assert!(
                error.to_string().contains("nested more than 128 deep"),
                "{error}"
            );
            assert_eq!(error.location.line, line);
        }
    }
}
