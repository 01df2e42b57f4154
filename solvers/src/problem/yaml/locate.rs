//! Positions in the YAML text: a serde walk that finds the line and column
//! of a node by its path, since the parsed value keeps none.

use super::*;

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    Index(usize),
    Key(String),
}

/// A node of a document: the value at `path`, or the key that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pointer {
    pub(super) path: Vec<Step>,
    pub(super) key: bool,
    /// Characters into the scalar (for errors inside a piece or a FEN).
    pub(super) chars: usize,
}

impl Pointer {
    pub(super) fn value(path: &[Step]) -> Pointer {
        Pointer {
            path: path.to_vec(),
            key: false,
            chars: 0,
        }
    }

    pub(super) fn key(path: &[Step], key: &str) -> Pointer {
        Pointer {
            path: child(path, Step::Key(key.to_owned())),
            key: true,
            chars: 0,
        }
    }

    pub(super) fn at_char(mut self, chars: usize) -> Pointer {
        self.chars = chars;
        self
    }
}

pub(super) fn child(path: &[Step], step: Step) -> Vec<Step> {
    let mut path = path.to_vec();
    path.push(step);
    path
}

/// An error in an entry, and the node it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fault {
    pub(super) at: Pointer,
    pub(super) kind: ParseErrorKind,
}

pub(super) fn fault(at: Pointer, kind: ParseErrorKind) -> Fault {
    Fault { at, kind }
}

pub(super) fn syntax(at: Pointer, message: impl Into<String>) -> Fault {
    fault(at, ParseErrorKind::Syntax(message.into()))
}

/// What the finder's error says when it reached its node.
pub(super) const FOUND: &str = "\u{1}cookd: node found";

/// Walks to the node at `path` and fails there.
pub(super) struct Finder<'p> {
    pub(super) path: &'p [Step],
    pub(super) key: bool,
}

impl<'de> DeserializeSeed<'de> for Finder<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.path.split_first() {
            None => deserializer.deserialize_any(FailVisitor),
            Some((Step::Key(key), rest)) => deserializer.deserialize_any(MapFinder {
                key,
                rest,
                key_target: self.key,
            }),
            Some((Step::Index(index), rest)) => deserializer.deserialize_any(SeqFinder {
                index: *index,
                rest,
                key_target: self.key,
            }),
        }
    }
}

/// Fails on whatever it is given, so that the error carries its position.
pub(super) struct FailVisitor;

impl<'de> Visitor<'de> for FailVisitor {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

pub(super) struct MapFinder<'p> {
    pub(super) key: &'p str,
    pub(super) rest: &'p [Step],
    pub(super) key_target: bool,
}

impl<'de> Visitor<'de> for MapFinder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let fail_on_key = self.key_target && self.rest.is_empty();
        while let Some(matched) = map.next_key_seed(KeySeed {
            name: self.key,
            fail: fail_on_key,
        })? {
            if matched {
                return map.next_value_seed(Finder {
                    path: self.rest,
                    key: self.key_target,
                });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

pub(super) struct SeqFinder<'p> {
    pub(super) index: usize,
    pub(super) rest: &'p [Step],
    pub(super) key_target: bool,
}

impl<'de> Visitor<'de> for SeqFinder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for _ in 0..self.index {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Finder {
            path: self.rest,
            key: self.key_target,
        })?;
        Ok(())
    }
}

/// Reads a key and says whether it is the wanted one (failing there when
/// the key itself is wanted).
pub(super) struct KeySeed<'p> {
    pub(super) name: &'p str,
    pub(super) fail: bool,
}

impl KeySeed<'_> {
    pub(super) fn check<E: de::Error>(&self, key: &str) -> Result<bool, E> {
        match key == self.name {
            true if self.fail => Err(E::custom(FOUND)),
            matched => Ok(matched),
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        self.check(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<bool, E> {
        self.check(&v.to_string())
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.check("null")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

/// Finds positions of nodes in one text, a limited number of times.
pub(super) struct Locator<'t> {
    pub(super) text: &'t str,
    pub(super) budget: usize,
}

impl Locator<'_> {
    /// Line and column of the node `at` in document `doc`.
    pub(super) fn locate(&mut self, doc: usize, at: &Pointer) -> Option<Location> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let deserializer = yaml_serde::Deserializer::from_str(self.text).nth(doc)?;
        let finder = Finder {
            path: &at.path,
            key: at.key,
        };
        let error = finder.deserialize(deserializer).err()?;
        if !error.to_string().contains(FOUND) {
            return None;
        }
        let found = error.location()?;
        let mut location = Location {
            line: found.line().max(1),
            column: found.column().max(1),
        };
        if at.chars > 0 {
            location.column += at.chars + self.quote_width(location);
        }
        Some(location)
    }

    /// Where the comment that swallowed an empty value starts, if one follows
    /// it on the line (`stipulation: #2`): that is what the user must fix.
    pub(super) fn comment_after(&self, location: Location) -> Location {
        let line = self.text.lines().nth(location.line - 1).unwrap_or("");
        let rest = line.chars().skip(location.column - 1);
        let blanks = rest.clone().take_while(|c| *c == ' ' || *c == '\t').count();
        match rest.clone().nth(blanks) {
            Some('#') => Location {
                line: location.line,
                column: location.column + blanks,
            },
            _ => location,
        }
    }

    /// 1 when the scalar at `location` opens with a quote, else 0.
    pub(super) fn quote_width(&self, location: Location) -> usize {
        let line = self.text.lines().nth(location.line - 1).unwrap_or("");
        let first = line.chars().nth(location.column - 1);
        usize::from(matches!(first, Some('"' | '\'')))
    }
}

/// First lines of the documents of a stream, and of the items of a list at
/// the top of a document; used for problems' origins (a plain scan, since
/// locating every entry would re-read the file once per problem).
#[derive(Debug, Default)]
pub(super) struct DocumentLines {
    pub(super) start: Option<usize>,
    pub(super) items: Vec<usize>,
    pub(super) item_indent: Option<usize>,
}

pub(super) fn document_lines(text: &str) -> Vec<DocumentLines> {
    let mut documents: Vec<DocumentLines> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if let Some(rest) = line.strip_prefix("---") {
            documents.push(DocumentLines::default());
            open = true;
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                if let Some(doc) = documents.last_mut() {
                    doc.start = Some(number);
                }
            }
            continue;
        }
        if line.starts_with("...") {
            open = false;
            continue;
        }
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') || line.starts_with('%') {
            continue;
        }
        if !open {
            documents.push(DocumentLines::default());
            open = true;
        }
        let Some(doc) = documents.last_mut() else {
            continue;
        };
        let indent = line.len() - content.len();
        let is_item = content == "-" || content.starts_with("- ");
        if doc.start.is_none() {
            doc.start = Some(number);
            if is_item {
                doc.item_indent = Some(indent);
            }
        }
        if is_item && doc.item_indent == Some(indent) {
            doc.items.push(number);
        }
    }
    documents
}
