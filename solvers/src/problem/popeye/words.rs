//! Popeye input as words: the lexer over a problem file, and the words of
//! one line of text (YAML's option strings).

use super::*;

/// One word of the input and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    pub text: &'a str,
    pub at: Location,
}

impl Word<'_> {
    /// The location `chars` characters into the word (on the same line).
    pub(super) fn offset(&self, chars: usize) -> Location {
        Location {
            line: self.at.line,
            column: self.at.column + chars,
        }
    }
}

/// A source of words that can be looked at before being taken; options are
/// read through it from Popeye input and from YAML option strings alike.
pub(crate) trait Words<'a> {
    fn peek(&self) -> Option<Word<'a>>;
    /// The word after the next one.
    fn peek_after(&self) -> Option<Word<'a>>;
    fn bump(&mut self);
}

/// Splits Popeye input into words, keeping track of line and column.
#[derive(Debug, Clone)]
pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lexer {
            text,
            pos: 0,
            line: 1,
            column: 1,
        }
    }

    pub(super) fn current(&self) -> Option<char> {
        self.text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
    }

    pub(super) fn advance(&mut self) {
        if let Some(c) = self.current() {
            self.pos += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    pub(super) fn location(&self) -> Location {
        Location {
            line: self.line,
            column: self.column,
        }
    }

    pub(super) fn next_word(&mut self) -> Option<Word<'a>> {
        while self.current().is_some_and(char::is_whitespace) {
            self.advance();
        }
        let start = self.pos;
        let at = self.location();
        while self.current().is_some_and(|c| !c.is_whitespace()) {
            self.advance();
        }
        let text = self.text.get(start..self.pos).filter(|t| !t.is_empty())?;
        Some(Word { text, at })
    }

    /// The rest of the current line, trimmed; Popeye's text commands read it.
    pub(super) fn rest_of_line(&mut self) -> Word<'a> {
        while self
            .current()
            .is_some_and(|c| c.is_whitespace() && c != '\n')
        {
            self.advance();
        }
        let start = self.pos;
        let at = self.location();
        while self.current().is_some_and(|c| c != '\n') {
            self.advance();
        }
        let text = self.text.get(start..self.pos).unwrap_or("").trim_end();
        Word { text, at }
    }

    pub(super) fn end_of_file(&self) -> Location {
        location_of(self.text.as_bytes())
    }
}

impl<'a> Words<'a> for Lexer<'a> {
    fn peek(&self) -> Option<Word<'a>> {
        self.clone().next_word()
    }

    fn peek_after(&self) -> Option<Word<'a>> {
        let mut ahead = self.clone();
        ahead.next_word();
        ahead.next_word()
    }

    fn bump(&mut self) {
        self.next_word();
    }
}

/// Words taken from a short text (a YAML option string); locations are
/// relative: line 1, column 1 is the first character of the text.
#[derive(Debug)]
pub(crate) struct TextWords<'a> {
    words: Vec<Word<'a>>,
    next: usize,
}

impl<'a> TextWords<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut words = Vec::new();
        let mut start = None;
        for (column, (i, c)) in text.char_indices().enumerate() {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some((i, column + 1)),
                (true, Some((from, col))) => {
                    words.push(Word {
                        text: &text[from..i],
                        at: Location {
                            line: 1,
                            column: col,
                        },
                    });
                    start = None;
                }
                _ => {}
            }
        }
        if let Some((from, col)) = start {
            words.push(Word {
                text: &text[from..],
                at: Location {
                    line: 1,
                    column: col,
                },
            });
        }
        TextWords { words, next: 0 }
    }
}

impl<'a> Words<'a> for TextWords<'a> {
    fn peek(&self) -> Option<Word<'a>> {
        self.words.get(self.next).copied()
    }

    fn peek_after(&self) -> Option<Word<'a>> {
        self.words.get(self.next + 1).copied()
    }

    fn bump(&mut self) {
        self.next += 1;
    }
}
