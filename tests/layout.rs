//! The source tree's own rules, checked over `src/`: each word that docs/ARCHITECTURE.md's
//! Words section defines names things only in the places it lists there, so that a word keeps
//! one meaning; and no file grows past 600 lines before its tests.

use std::path::{Path, PathBuf};

/// A word of the Words section and where things may be named by it.
#[derive(Debug)]
struct Word {
    word: String,
    homes: Vec<String>,
}

/// The words of docs/ARCHITECTURE.md's Words section: each entry `* **word** (`home`, ...):`,
/// or `* **word**, **other** (...)`, where a home is a directory (ending in `/`) or a file.
fn words(architecture: &str) -> Vec<Word> {
    let section = architecture.split("\n## Words\n").nth(1).expect("a Words section");
    let section = section.split("\n## ").next().unwrap();
    let mut words = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("* **")) {
        let (head, _) = line.split_once("):").unwrap_or_else(|| panic!("no `(homes):` in {line:?}"));
        let (names, homes) = head.split_once(" (").unwrap_or_else(|| panic!("no homes in {line:?}"));
        let names = names.trim_start_matches("* ");
        let homes: Vec<String> = homes.split(", ").map(|h| h.trim_matches('`').to_owned()).collect();
        for name in names.split(", ") {
            let word = name.trim_matches('*').to_owned();
            assert!(word.chars().all(|c| c.is_ascii_lowercase()), "{word:?} in {line:?}");
            words.push(Word { word, homes: homes.clone() });
        }
    }
    words
}

/// The source with comments, strings and character literals taken out (lines kept).
fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let mut code = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '/' if chars.peek() == Some(&'/') => break,
                '"' => {
                    while let Some(s) = chars.next() {
                        match s {
                            '\\' => {
                                chars.next();
                            }
                            '"' => break,
                            _ => {}
                        }
                    }
                    code.push_str("\"\"");
                }
                // A character literal ('a', '\n', b'x'), not a lifetime ('a, 'static).
                '\'' => {
                    let rest: String = chars.clone().take(3).collect();
                    if rest.starts_with('\\') || rest.chars().nth(1) == Some('\'') {
                        while let Some(s) = chars.next() {
                            if s == '\\' {
                                chars.next();
                            } else if s == '\'' {
                                break;
                            }
                        }
                        code.push_str("' '");
                    } else {
                        code.push(c);
                    }
                }
                _ => code.push(c),
            }
        }
        out.push_str(&code);
        out.push('\n');
    }
    out
}

/// The names `code` defines, with their lines: items, bindings, loop variables, fields and
/// parameters.
fn defined_names(code: &str) -> Vec<(usize, String)> {
    let keywords =
        ["fn", "const", "static", "struct", "enum", "type", "mod", "trait", "let", "mut", "for", "macro_rules!"];
    let mut names = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let tokens: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '!'))
            .filter(|t| !t.is_empty())
            .collect();
        for pair in tokens.windows(2) {
            if keywords.contains(&pair[0]) && !keywords.contains(&pair[1]) {
                names.push((n + 1, pair[1].to_owned()));
            }
        }
        // `name: Type` (fields, parameters, typed bindings), not `path::to`.
        let bytes = line.as_bytes();
        for (at, _) in line.match_indices(':') {
            let double = bytes.get(at + 1) == Some(&b':') || (at > 0 && bytes[at - 1] == b':');
            if double {
                continue;
            }
            let before = line[..at].trim_end();
            let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
            let name = &before[start..];
            if name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
                names.push((n + 1, name.to_owned()));
            }
        }
    }
    names
}

/// The words of an identifier, lower case: `SHARED_STRETCH` and `sharedStretch` are `shared`,
/// `stretch`.
fn segments(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut word = String::new();
        let chars: Vec<char> = part.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let boundary = i > 0
                && c.is_ascii_uppercase()
                && (chars[i - 1].is_ascii_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
            if boundary {
                words.push(std::mem::take(&mut word));
            }
            word.push(c.to_ascii_lowercase());
        }
        words.push(word);
    }
    words
}

/// Whether a segment is `word` or its plural.
fn is_word(segment: &str, word: &str) -> bool {
    segment == word || segment.strip_suffix('s').is_some_and(|s| s == word || s.strip_suffix('e') == Some(word))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Where each reserved word names something outside its homes, as `file:line: name (word)`.
fn collisions(root: &Path, architecture: &str) -> Vec<String> {
    let words = words(architecture);
    assert!(words.len() >= 10, "only {} words read: {words:?}", words.len());
    let mut found = Vec::new();
    for file in sources(&root.join("src")) {
        let relative = file.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        for (line, name) in defined_names(&code) {
            for segment in segments(&name) {
                for word in words.iter().filter(|w| is_word(&segment, &w.word)) {
                    if !word.homes.iter().any(|home| relative == *home || relative.starts_with(home.as_str())) {
                        found.push(format!("{relative}:{line}: {name} ({}: {})", word.word, word.homes.join(", ")));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn each_word_names_things_only_where_its_meaning_lives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let found = collisions(root, &architecture);
    assert!(
        found.is_empty(),
        "names that use a word of docs/ARCHITECTURE.md's Words outside the places it lists:\n{}",
        found.join("\n")
    );
}

/// The check itself finds a word used for something else (so that a test that cannot fail
/// does not pass for this one).
#[test]
fn a_word_with_another_meaning_is_found() {
    let code = code_only("const STRETCH: usize = 64 * 254; // stretch\nfn f(slots: &[u8]) { let s = \"window\"; }\n");
    let mut names: Vec<String> = defined_names(&code).into_iter().map(|(_, n)| n).collect();
    names.sort();
    assert_eq!(names, ["STRETCH", "f", "s", "slots"]);
    assert!(segments("SHARED_STRETCH").contains(&"stretch".to_owned()));
    assert!(segments("WordWindows").contains(&"windows".to_owned()));
    assert!(is_word("windows", "window") && is_word("batches", "batch") && !is_word("strategic", "strategy"));
    let words = words(
        "\n## Words\n\n* **stretch** (`src/input/`): a stretch.\n* **slot**, **area** (`src/cat/x.rs`): room.\n\n## Next\n",
    );
    assert_eq!(words.len(), 3);
    assert_eq!(words[2].homes, ["src/cat/x.rs"]);
}

/// Lines of `source` before its unit tests (`#[cfg(test)]` then `mod tests`), or all.
fn lines_before_tests(source: &str) -> usize {
    let lines: Vec<&str> = source.lines().collect();
    (1..lines.len())
        .find(|&i| lines[i - 1] == "#[cfg(test)]" && lines[i].starts_with("mod tests"))
        .map_or(lines.len(), |i| i - 1)
}

/// The house plan's rule: a file that grows past 600 lines before its tests is split by job.
#[test]
fn no_source_file_is_longer_than_600_lines_before_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for file in sources(&root.join("src")) {
        let name = file.file_name().unwrap().to_str().unwrap();
        if name == "tests.rs" {
            continue;
        }
        let lines = lines_before_tests(&std::fs::read_to_string(&file).unwrap());
        if lines > 600 {
            long.push(format!("{}: {lines}", file.strip_prefix(root).unwrap().display()));
        }
    }
    assert!(long.is_empty(), "files over 600 lines before their tests:\n{}", long.join("\n"));
}
