//! The manual's links cannot break: every relative link of README.md, of the book
//! (docs/**/*.md) and of the results' index (bench/results/README.md), `[text](path#anchor)` or
//! `![alt](path)`, must point to an existing file or folder; an `#anchor` into a markdown file
//! (or into the page itself) must be the id mdBook gives one of its headings; a link of the book
//! must stay inside docs/src/, the only folder mdBook renders; and every chapter under docs/src/
//! must be listed in SUMMARY.md. Links with a scheme (`https:`, `mailto:`) and links inside code
//! are not checked.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The checked pages: README.md, bench/results/README.md and every .md under docs/ but the
/// built book (docs/book/).
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md"), root.join("bench/results/README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p != root.join("docs/book") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The page's text outside fenced code blocks, with inline code spans blanked, line by line.
fn prose_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                out.push(String::new());
                continue;
            }
            (Some(f), Some(m)) if f == m => {
                fence = None;
                out.push(String::new());
                continue;
            }
            (Some(_), _) => {
                out.push(String::new());
                continue;
            }
            (None, None) => {}
        }
        // Blank code spans (a run of backticks up to the same run).
        let mut kept = String::new();
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            kept.push_str(&rest[..start]);
            let run = rest[start..].chars().take_while(|&c| c == '`').count();
            let after = &rest[start + run..];
            match after.find(&"`".repeat(run)) {
                Some(end) => rest = &after[end + run..],
                None => {
                    rest = after;
                    break;
                }
            }
        }
        kept.push_str(rest);
        out.push(kept);
    }
    out
}

/// The link targets of a page, each with its line number: inline links and images
/// `[text](target "title")` and reference definitions `[label]: target`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in prose_lines(text).iter().enumerate() {
        let trimmed = line.trim_start();
        if let Some(label_end) = trimmed.strip_prefix('[').and_then(|t| t.find(']')) {
            if let Some(rest) = trimmed[label_end + 2..].strip_prefix(':') {
                let target = rest.split_whitespace().next().unwrap_or("");
                out.push((i + 1, target.trim_matches(['<', '>']).to_string()));
                continue;
            }
        }
        let bytes = line.as_bytes();
        let mut at = 0;
        while let Some(found) = line[at..].find("](") {
            let open = at + found + 2;
            // The target runs to the `)` that balances the `(`.
            let mut depth = 1;
            let mut end = open;
            while end < bytes.len() {
                match bytes[end] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                end += 1;
            }
            let inner = line[open..end].trim();
            let target = match inner.strip_prefix('<') {
                Some(rest) => rest.split('>').next().unwrap_or(""),
                None => inner.split_whitespace().next().unwrap_or(""),
            };
            out.push((i + 1, target.to_string()));
            at = end.min(bytes.len());
        }
    }
    out
}

/// The id mdBook gives a heading of this text: its text content (code spans, links and
/// emphasis reduced to their text) trimmed and lowercased, alphanumerics, `_` and `-` kept,
/// whitespace made `-`, everything else dropped (mdbook-html's `id_from_content`).
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // [text](target) -> text
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else { break };
        let Some(close) = rest[open + mid..].find(')') else { break };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.replace(['`', '*'], "")
        .replace("\\|", "|")
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// The ids of a page's headings, numbered as mdBook numbers repeats (`x`, `x-1`, `x-2`).
fn anchors(text: &str) -> HashSet<String> {
    let mut used = HashSet::new();
    for line in prose_raw_headings(text) {
        let id = slug(&line);
        if used.insert(id.clone()) {
            continue;
        }
        let mut n = 1;
        while !used.insert(format!("{id}-{n}")) {
            n += 1;
        }
    }
    used
}

/// The text of the ATX headings (`# …` to `###### …`) outside fenced code blocks.
fn prose_raw_headings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.starts_with("    ") {
            continue;
        }
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t']) {
            out.push(t[hashes..].trim().trim_end_matches('#').trim().to_string());
        }
    }
    out
}

/// `a/b/../c` without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// What is wrong with the links of `page` (of the repository at `root`), one line each.
fn broken(root: &Path, page: &Path, text: &str) -> Vec<String> {
    let name = page.strip_prefix(root).unwrap_or(page).display().to_string();
    let book = root.join("docs/src");
    let mut out = Vec::new();
    for (line, target) in links(text) {
        let at = format!("{name}:{line}: ({target})");
        if target.is_empty() {
            out.push(format!("{at}: an empty link"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() { page.to_path_buf() } else { normalize(&page.parent().unwrap().join(path)) };
        if page.starts_with(&book) && !file.starts_with(&book) {
            out.push(format!("{at}: leaves docs/src/, which is all the built book holds"));
            continue;
        }
        if !file.exists() {
            out.push(format!("{at}: no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            if file.extension().is_some_and(|x| x == "md") {
                let linked = std::fs::read_to_string(&file).unwrap();
                if !anchors(&linked).contains(anchor) {
                    let linked_name = file.strip_prefix(root).unwrap_or(&file).display().to_string();
                    out.push(format!("{at}: no heading of {linked_name} has the id '{anchor}'"));
                }
            }
        }
    }
    out
}

/// The chapters under `src` (every .md but SUMMARY.md) that SUMMARY.md does not link.
fn unlisted(src: &Path) -> Vec<String> {
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap_or_default();
    let listed: HashSet<PathBuf> =
        links(&summary).into_iter().map(|(_, t)| normalize(&src.join(t.split('#').next().unwrap()))).collect();
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") && p != src.join("SUMMARY.md") && !listed.contains(&p) {
                out.push(p.strip_prefix(src).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_link_of_the_manual_resolves() {
    let root = root();
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in pages(&root) {
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        checked += links(&text).len();
        problems.extend(broken(&root, &page, &text));
    }
    for chapter in unlisted(&root.join("docs/src")) {
        problems.push(format!("docs/src/{chapter}: a chapter that docs/src/SUMMARY.md does not list"));
    }
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
    // The README links into the book and the results; the book links between its chapters.
    assert!(checked >= 50, "only {checked} links found");
}

#[test]
fn a_made_up_book_with_broken_links_fails() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let src = root.join("docs/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("SUMMARY.md"), "# Summary\n\n- [Good](good.md)\n- [Gone](gone.md)\n").unwrap();
    std::fs::write(
        src.join("good.md"),
        "# Good\n\n## The `--gpu-dfs` switch: on/off\n\n## Twice\n\n## Twice\n\nSee [below](#twice-1).\n",
    )
    .unwrap();
    std::fs::write(src.join("orphan.md"), "# Not in the summary\n").unwrap();
    std::fs::write(root.join("data.csv"), "a,b\n").unwrap();
    let page = src.join("page.md");
    let text = "# Page\n\n\
        [fine](good.md), [fine too](good.md#the---gpu-dfs-switch-onoff), [here](#page),\n\
        [web](https://example.org/x(y)), `[code](nowhere.md)`,\n\
        [missing file](nowhere.md) and ![missing image](img/plot.svg)\n\
        [bad anchor](good.md#no-such-heading), [bad self anchor](#nowhere)\n\
        [out of the book](../../data.csv)\n\n\
        ```\n[in a code block](nowhere.md)\n```\n\n\
        [ref]: missing-too.md\n";
    std::fs::write(&page, text).unwrap();
    let problems = broken(&root, &page, text);
    let expect = [
        "docs/src/page.md:5: (nowhere.md): no such file",
        "docs/src/page.md:5: (img/plot.svg): no such file",
        "docs/src/page.md:6: (good.md#no-such-heading): no heading of",
        "docs/src/page.md:6: (#nowhere): no heading of",
        "docs/src/page.md:7: (../../data.csv): leaves docs/src/",
        "docs/src/page.md:13: (missing-too.md): no such file",
    ];
    assert_eq!(problems.len(), expect.len(), "{problems:#?}");
    for (p, e) in problems.iter().zip(expect) {
        assert!(p.starts_with(e), "{p} should start with {e}");
    }
    // The SUMMARY's link to gone.md is a missing file, and two chapters are not listed.
    assert_eq!(
        broken(&root, &src.join("SUMMARY.md"), &std::fs::read_to_string(src.join("SUMMARY.md")).unwrap()).len(),
        1
    );
    assert_eq!(unlisted(&src), ["orphan.md", "page.md"]);
    // Ids as mdBook makes them.
    assert_eq!(slug("Strategies: `--gpu-strategy`"), "strategies---gpu-strategy");
    assert_eq!(
        slug("Tree patterns enumerated on the GPU (GGQ's thread IDs)"),
        "tree-patterns-enumerated-on-the-gpu-ggqs-thread-ids"
    );
    assert_eq!(slug("See [Formats](formats.md) for `.sgb`"), "see-formats-for-sgb");
}
