//! The ground truth a walk must reproduce, computed WITHOUT the code under test.
//!
//! One raw POST to Zoekt's /api/search (hand-written JSON, the engine's default per-shard cap
//! and no cross-shard cap), decoded with serde_json and base64 here. `search` gives Zoekt's
//! answer as sent; the truths built on `files` take every file (no display cut), ordered by
//! the contract's rule (score descending, then the file key: a hash of repository, path and
//! branches, written out here from the contract), and items inside a file by position. Items are compared as keys (repo, path, line and, for symbols, the
//! name), which is what makes an item's identity and place; tests compare fields separately.
//! This is the one place tests talk to raw Zoekt.
//!
//! Queries are literal strings in the tests, not built by `zoekt_pager::zoekt::query`.

use std::collections::BTreeSet;

use base64::Engine as _;
use serde_json::{Value, json};

/// `ShardMaxMatchCount`: the engine's documented default. No `TotalMaxMatchCount` is sent
/// (0: no cross-shard cap, docs/zoekt.md), since a total cap stops dispatching shards at a
/// timing-dependent point without saying so in FilesSkipped or ShardsSkipped; a shard that
/// reaches its own cap does say so (FilesSkipped), and that fails the truth.
pub const SHARD_MAX_MATCH_COUNT: u64 = 10_000;

/// One file of Zoekt's answer, decoded.
#[derive(Debug, Clone)]
pub struct RawFile {
    pub repo: String,
    pub path: String,
    /// As Zoekt sent them (empty for plain-folder indexes).
    pub branches: Vec<String>,
    pub score: f64,
    pub lines: Vec<RawLine>,
}

/// One line match of a file.
#[derive(Debug, Clone)]
pub struct RawLine {
    pub number: u32,
    pub file_name: bool,
    pub text: String,
    /// (byte offset into the line, symbol name when the fragment came from `sym:`)
    pub fragments: Vec<(u64, Option<String>)>,
}

impl RawFile {
    /// Every matching line number, ascending and once each (0: the path matched).
    pub fn line_numbers(&self) -> Vec<u32> {
        let numbers: BTreeSet<u32> = self.lines.iter().map(|l| l.number).collect();
        numbers.into_iter().collect()
    }
}

fn b64(v: &Value) -> String {
    let s = v.as_str().unwrap_or_default();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .unwrap_or_else(|e| panic!("Zoekt sent bad base64 {s:?}: {e}"));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What Zoekt said it left out of an answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    pub files: u64,
    pub shards: u64,
    pub crashes: u64,
    pub match_count: u64,
}

/// Zoekt's answer to `q` exactly as it sent it: at most `max_docs` files (0: no cut), in
/// Zoekt's own order (unstable among equal scores, one novel extension boosted to third).
/// Panics when the answer was partial (skipped files or shards, crashes): a truth must be whole.
pub async fn search(url: &str, q: &str, max_docs: u32) -> Vec<RawFile> {
    let (files, skipped) = search_capped(url, q, max_docs, SHARD_MAX_MATCH_COUNT).await;
    assert_eq!(
        (skipped.files, skipped.shards, skipped.crashes),
        (0, 0, 0),
        "files, shards skipped and crashes in the truth for {q:?}"
    );
    files
}

/// Zoekt's whole JSON answer to a hand-written `/api/search` request body.
pub async fn raw_search(url: &str, body: &Value) -> Value {
    reqwest::Client::new()
        .post(format!("{url}/api/search"))
        .json(body)
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .unwrap_or_else(|e| panic!("raw Zoekt search {} at {url}: {e}", body["Q"]))
        .json()
        .await
        .expect("raw Zoekt JSON")
}

/// Zoekt's answer to `q` with this per-shard cap and no cross-shard cap, and what it left out
/// (a shard reaching its cap leaves files out, the same ones every time).
pub async fn search_capped(
    url: &str,
    q: &str,
    max_docs: u32,
    shard_cap: u64,
) -> (Vec<RawFile>, Skipped) {
    let body = json!({
        "Q": q,
        "Opts": {
            "MaxDocDisplayCount": max_docs,
            "ShardMaxMatchCount": shard_cap,
            "MaxWallTime": 10_000_000_000u64,
        }
    });
    let resp = raw_search(url, &body).await;
    let result = &resp["Result"];
    let stat = |k: &str| result[k].as_u64().unwrap_or(0);
    let skipped = Skipped {
        files: stat("FilesSkipped"),
        shards: stat("ShardsSkipped"),
        crashes: stat("Crashes"),
        match_count: stat("MatchCount"),
    };
    let files = result["Files"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|f| RawFile {
            repo: f["Repository"].as_str().unwrap().to_string(),
            path: f["FileName"].as_str().unwrap().to_string(),
            branches: f["Branches"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|b| b.as_str().unwrap().to_string())
                .collect(),
            score: f["Score"].as_f64().unwrap_or(0.0),
            lines: f["LineMatches"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|l| RawLine {
                    number: l["LineNumber"].as_u64().unwrap() as u32,
                    file_name: l["FileName"].as_bool().unwrap_or(false),
                    text: b64(&l["Line"]),
                    fragments: l["LineFragments"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                        .iter()
                        .map(|fr| {
                            (
                                fr["LineOffset"].as_u64().unwrap(),
                                fr["SymbolInfo"]["Sym"].as_str().map(String::from),
                            )
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    (files, skipped)
}

/// The contract's file key (docs/contract.md, "Order"), written out here from the contract:
/// the first 8 bytes of SHA-256 over the repository, the path and the sorted branches, each
/// as an 8-byte big-endian length and its bytes, read as a big-endian number.
pub fn file_key(repo: &str, path: &str, branches: &[String]) -> u64 {
    use sha2::Digest;
    let mut sorted: Vec<&String> = branches.iter().collect();
    sorted.sort();
    let mut h = sha2::Sha256::new();
    for part in [repo, path]
        .into_iter()
        .chain(sorted.iter().map(|b| b.as_str()))
    {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    u64::from_be_bytes(digest[..8].try_into().unwrap())
}

/// Sorts files into the contract's order: score descending, then file key ascending.
pub fn contract_order(files: &mut [RawFile]) {
    files.sort_by_cached_key(|f| {
        (
            std::cmp::Reverse(OrdF64(f.score)),
            file_key(&f.repo, &f.path, &f.branches),
        )
    });
}

/// An f64 ordered by `total_cmp`, for sort keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrdF64(pub f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Every file Zoekt holds for `q` (no display cut), in contract order.
pub async fn files(url: &str, q: &str) -> Vec<RawFile> {
    let mut out = search(url, q, 0).await;
    contract_order(&mut out);
    let distinct: BTreeSet<_> = out
        .iter()
        .map(|f| (&f.repo, &f.path, &f.branches))
        .collect();
    assert_eq!(
        distinct.len(),
        out.len(),
        "one file twice in the truth for {q:?}"
    );
    out
}

/// (repo, path, line, symbol name) of every symbol fragment, by file then position.
pub async fn symbols(url: &str, q: &str) -> Vec<(String, String, u32, String)> {
    let mut out = Vec::new();
    for f in files(url, q).await {
        let mut here: Vec<(u32, u64, String)> = f
            .lines
            .iter()
            .filter(|l| !l.file_name)
            .flat_map(|l| {
                l.fragments
                    .iter()
                    .filter_map(move |(off, sym)| sym.clone().map(|s| (l.number, *off, s)))
            })
            .collect();
        here.sort();
        here.dedup();
        out.extend(
            here.into_iter()
                .map(|(line, _, name)| (f.repo.clone(), f.path.clone(), line, name)),
        );
    }
    out
}

/// (repo, path) of every file whose path matched.
pub async fn file_names(url: &str, q: &str) -> Vec<(String, String)> {
    files(url, q)
        .await
        .into_iter()
        .filter(|f| f.lines.iter().any(|l| l.file_name))
        .map(|f| (f.repo, f.path))
        .collect()
}

/// (repo, path, line) of every matching line (line 0: the path matched), by file then line.
pub async fn lines(url: &str, q: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for f in files(url, q).await {
        out.extend(
            f.line_numbers()
                .into_iter()
                .map(|n| (f.repo.clone(), f.path.clone(), n)),
        );
    }
    out
}

/// Whether `word` occurs in `text` as a whole token (letters, digits and `_` make words).
pub fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|t| t == word)
}

/// find_references' truth for an identifier `symbol`: every definition (a `sym:` fragment
/// named exactly `symbol`), then every other line holding it as a whole, case-sensitive word,
/// in the order of the contract's usages query (which also asks `sym:`, so Zoekt scores
/// definition files as such). Each as (is_definition, repo, path, line).
pub async fn references(url: &str, symbol: &str) -> Vec<(bool, String, String, u32)> {
    let mut defs = Vec::new();
    for f in files(url, &format!("case:yes sym:^{symbol}$")).await {
        let mut here: Vec<u32> = f
            .lines
            .iter()
            .filter(|l| {
                l.fragments
                    .iter()
                    .any(|(_, s)| s.as_deref() == Some(symbol))
            })
            .map(|l| l.number)
            .collect();
        here.sort();
        here.dedup();
        defs.extend(
            here.into_iter()
                .map(|n| (true, f.repo.clone(), f.path.clone(), n)),
        );
    }
    let def_lines: BTreeSet<_> = defs
        .iter()
        .map(|(_, r, p, n)| (r.clone(), p.clone(), *n))
        .collect();
    let mut uses = Vec::new();
    for f in files(
        url,
        &format!(r"case:yes (sym:^{symbol}$ or content:\b{symbol}\b)"),
    )
    .await
    {
        let mut here: Vec<u32> = f
            .lines
            .iter()
            .filter(|l| !l.file_name && has_word(&l.text, symbol))
            .map(|l| l.number)
            .filter(|n| !def_lines.contains(&(f.repo.clone(), f.path.clone(), *n)))
            .collect();
        here.sort();
        here.dedup();
        uses.extend(
            here.into_iter()
                .map(|n| (false, f.repo.clone(), f.path.clone(), n)),
        );
    }
    defs.into_iter().chain(uses).collect()
}
