//! What the `search` tool's help tells a model about Zoekt's query syntax (its `query`
//! argument; docs/zoekt.md section 4), checked through the pager against the real Zoekt on
//! fixtures/corpus, over the suite's transport. Models type code as they read it, such as a Go
//! method's receiver: the help must say how to find it. Expected lines come from reading the
//! fixture files, not from Zoekt or the pager.

use std::path::Path;

use crate::support;

use support::{ToolCalls, all_items, keys, pager, walk};

/// The live Zoekt on fixtures/corpus.
fn zoekt() -> String {
    support::fixture_zoekt("tests/live/query_syntax.rs")
}

/// Every (repo, path, line) of fixtures/corpus whose text holds `needle`, sorted: each top
/// folder is a repository.
fn fixture_lines(needle: &str) -> Vec<(String, String, u32)> {
    fn visit(dir: &Path, root: &Path, needle: &str, out: &mut Vec<(String, String, u32)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                visit(&path, root, needle, out);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let (repo, file) = rel.split_once('/').unwrap();
            for (n, line) in text.lines().enumerate() {
                if line.contains(needle) {
                    out.push((repo.to_string(), file.to_string(), n as u32 + 1));
                }
            }
        }
    }
    let root = support::fixtures_corpus();
    let mut out = Vec::new();
    visit(&root, &root, needle, &mut out);
    out.sort();
    out
}

/// Every line item the pager gives for `q`, walked to the end, as (repo, path, line), sorted.
async fn lines(url: &str, q: &str) -> Vec<(String, String, u32)> {
    let p = pager(url);
    let pages = walk(&[30], async |a| p.lines(q, 0, a).await).await;
    let mut out: Vec<_> = all_items(&pages).iter().map(keys::line).collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_literal_parenthesis_is_escaped_and_an_unescaped_one_groups_even_in_quotes() {
    let url = zoekt();
    let want = fixture_lines("func (s *Store)");
    assert_eq!(want.len(), 1, "fixture fact: one method on *Store");
    // The two forms the help gives: escaped outside quotes (a space too), doubled inside.
    for q in [r"func\ \(s\ \*Store\)", r#""func \\(s \\*Store\\)""#] {
        assert_eq!(lines(&url, q).await, want, "{q}");
    }
    // Unescaped, `(s *Store)` is a regex group (`func s*Store`), quoted or not; a single
    // backslash inside quotes only escapes the next character for the quote.
    for q in [r#""func (s *Store)""#, r#""func \(s \*Store\)""#] {
        assert_eq!(lines(&url, q).await, [], "{q}");
    }
}

#[tokio::test]
async fn a_quoted_phrase_is_one_term_and_words_each_match_anywhere_in_the_file() {
    let url = zoekt();
    let phrase = fixture_lines("key string");
    assert_eq!(phrase.len(), 3, "fixture fact: three lines in store.go");
    assert_eq!(lines(&url, r#""key string""#).await, phrase);
    // Unquoted, each word matches on its own, anywhere in a file that holds both: lines
    // holding only one of them come too.
    let words = lines(&url, "key string").await;
    assert!(phrase.iter().all(|l| words.contains(l)), "{words:?}");
    assert!(words.len() > phrase.len(), "{words:?}");
}
