//! Where in a JSON text something is: the JSON path at a byte offset (for a syntax error
//! serde_json reports by line and column) and the byte offset of a path (for an error found in
//! a parsed value). A lenient scanner: it follows brackets, keys, commas and strings, and stops
//! where the text stops making sense, so it answers for broken texts too.

use std::fmt::Write as _;

/// One step of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    /// An object member: its key once read.
    Key(Option<String>),
    /// An array element.
    Index(usize),
}

/// The path as text: `$.strings[3].text` (`$` alone for the root).
fn show(stack: &[Step]) -> String {
    let mut s = String::from("$");
    for step in stack {
        match step {
            Step::Key(Some(k)) => {
                let _ = write!(s, ".{k}");
            }
            Step::Key(None) => {}
            Step::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// Walk `text`, calling `visit(path, offset)` at the first byte of every value; stops when
/// `visit` returns true or the text ends.
fn walk(text: &[u8], mut visit: impl FnMut(&[Step], usize) -> bool) {
    let mut stack: Vec<Step> = Vec::new();
    // inside an object: the next string is a key
    let mut want_key = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | b':' => i += 1,
            b',' => {
                match stack.last_mut() {
                    Some(Step::Index(n)) => *n += 1,
                    Some(Step::Key(k)) => {
                        *k = None;
                        want_key = true;
                    }
                    None => {}
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                want_key = false;
                i += 1;
            }
            _ => {
                if c == b'"' {
                    let start = i + 1;
                    i = start;
                    while i < text.len() && text[i] != b'"' {
                        i += if text[i] == b'\\' { 2 } else { 1 };
                    }
                    let end = i.min(text.len());
                    i += 1;
                    if want_key {
                        let key = String::from_utf8_lossy(&text[start..end]).into_owned();
                        if let Some(Step::Key(k)) = stack.last_mut() {
                            *k = Some(key);
                        }
                        want_key = false;
                        continue;
                    }
                    if visit(&stack, start - 1) {
                        return;
                    }
                    continue;
                }
                if visit(&stack, i) {
                    return;
                }
                match c {
                    b'{' => {
                        stack.push(Step::Key(None));
                        want_key = true;
                        i += 1;
                    }
                    b'[' => {
                        stack.push(Step::Index(0));
                        i += 1;
                    }
                    _ => {
                        // a number or literal: up to the next delimiter
                        while i < text.len() && !b",]}: \t\r\n\"".contains(&text[i]) {
                            i += 1;
                        }
                        if i < text.len() && text[i] == b'"' {
                            i += 1;
                        }
                    }
                }
            }
        }
    }
}

/// The JSON path of the value that holds byte `offset` (the innermost one started at or
/// before it).
pub fn path_at(text: &[u8], offset: usize) -> String {
    let mut found = String::from("$");
    walk(text, |stack, at| {
        if at > offset {
            return true;
        }
        found = show(stack);
        false
    });
    found
}

/// The byte offset where the value at `path` starts (`path` as [`path_at`] writes it).
pub fn offset_of(text: &[u8], path: &str) -> Option<usize> {
    let mut found = None;
    walk(text, |stack, at| {
        if show(stack) == path {
            found = Some(at);
            return true;
        }
        false
    });
    found
}

/// The byte offset of a 1-based `line` and `column` (serde_json's error position; the column
/// counts bytes). Past the end: the text's length.
pub fn offset_of_line_column(text: &[u8], line: usize, column: usize) -> usize {
    let mut at = 0;
    for _ in 1..line {
        match text[at..].iter().position(|&b| b == b'\n') {
            Some(p) => at += p + 1,
            None => return text.len(),
        }
    }
    (at + column.saturating_sub(1)).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"tool": "x", "strings": [{"column": 0, "row": 1, "text": "a"}, {"column": 2, "text": [1, {"k": "v\"}"}]}]}"#;

    #[test]
    fn paths_and_offsets_agree_with_hand_counted_positions() {
        let b = DOC.as_bytes();
        let second = DOC.find(r#"{"column": 2"#).unwrap();
        assert_eq!(offset_of(b, "$.strings[1]"), Some(second));
        assert_eq!(path_at(b, second + 3), "$.strings[1]");
        let text0 = DOC.find(r#""a""#).unwrap();
        assert_eq!(offset_of(b, "$.strings[0].text"), Some(text0));
        assert_eq!(path_at(b, text0), "$.strings[0].text");
        let v = DOC.find(r#""v\"}""#).unwrap();
        assert_eq!(path_at(b, v + 2), "$.strings[1].text[1].k");
        assert_eq!(offset_of(b, "$.tool"), Some(9));
        assert_eq!(path_at(b, 0), "$");
        assert_eq!(offset_of(b, "$.nothing"), None);
    }

    #[test]
    fn broken_texts_still_answer() {
        let t = br#"{"strings": [{"column": 0, "row": tru"#;
        assert_eq!(path_at(t, t.len() - 1), "$.strings[0].row");
        let t = b"{\"a\": \"unterminated";
        assert_eq!(path_at(t, t.len()), "$.a");
        assert_eq!(offset_of_line_column(b"ab\ncd\n", 2, 2), 4);
        assert_eq!(offset_of_line_column(b"ab", 9, 1), 2);
    }
}
