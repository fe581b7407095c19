//! A MODEL of zoekt-webserver's JSON API, for tests only. It is not Zoekt and it does not
//! replace the live tests: it exists so the paging contract can be checked on every machine,
//! against the real fixture corpus, under Zoekt's documented traps, made worse on purpose:
//! - symbols come from the real universal-ctags (kind, scope) over the corpus;
//! - scores are coarse so ties are common, and tied files are SHUFFLED on every request
//!   (Zoekt's unstable sort across parallel shards);
//! - the first "novel extension" file of the full list is moved to position 3 BEFORE the
//!   display cut, so it may come from far below the window;
//! - with `ShardMaxMatchCount == 0` the caps are derived from `MaxDocDisplayCount`, so a pager
//!   that does not send fixed caps sees different candidate sets per page;
//! - `FileCount`/`MatchCount` are counted before the display cut; `Files` is `null` when empty.
//!
//! Query support is the subset the pager sends: `sym: file: f: content: c: repo: r: lang:
//! case:` atoms, `-` negation, and bare terms (content or path), all ANDed.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[derive(Debug, Clone)]
pub struct Symbol {
    pub name: String,
    pub line: u32,
    pub kind: String,
    pub parent: String,
    pub parent_kind: String,
}

#[derive(Debug, Clone)]
pub struct Doc {
    pub repo: String,
    pub path: String,
    pub language: String,
    pub lines: Vec<String>,
    pub symbols: Vec<Symbol>,
}

/// The indexed corpus: documents in "index order" (repo, then path).
#[derive(Debug)]
pub struct Corpus {
    pub docs: Vec<Doc>,
}

fn language(path: &str) -> &'static str {
    match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("rs") => "Rust",
        Some("go") => "Go",
        Some("py") => "Python",
        Some("ts") => "TypeScript",
        Some("md") => "Markdown",
        Some("json") => "JSON",
        Some("toml") => "TOML",
        _ => "",
    }
}

fn ctags_binary() -> String {
    for c in ["ctags-universal", "universal-ctags"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return c.to_string();
        }
    }
    panic!(
        "universal-ctags is needed by the Zoekt model: run scripts/zoekt.sh install (or apt-get install universal-ctags)"
    );
}

impl Corpus {
    /// Loads every folder of `root` as one repository, with ctags symbols.
    pub fn load(root: &Path) -> Corpus {
        let ctags = ctags_binary();
        let mut repos: Vec<PathBuf> = std::fs::read_dir(root)
            .unwrap_or_else(|e| panic!("cannot read corpus {}: {e}", root.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        repos.sort();
        let mut docs = Vec::new();
        for repo_dir in repos {
            let repo = repo_dir.file_name().unwrap().to_string_lossy().to_string();
            let symbols = ctags_symbols(&ctags, &repo_dir);
            let mut files = Vec::new();
            walk(&repo_dir, &mut files);
            files.sort();
            for file in files {
                let rel = file
                    .strip_prefix(&repo_dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let bytes = std::fs::read(&file).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                let lines = text.split_inclusive('\n').map(str::to_string).collect();
                docs.push(Doc {
                    repo: repo.clone(),
                    language: language(&rel).to_string(),
                    symbols: symbols.get(&rel).cloned().unwrap_or_default(),
                    path: rel,
                    lines,
                });
            }
        }
        Corpus { docs }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn ctags_symbols(ctags: &str, repo_dir: &Path) -> HashMap<String, Vec<Symbol>> {
    let out = Command::new(ctags)
        .current_dir(repo_dir)
        .args(["--output-format=json", "--fields=+nKZ", "-R", "."])
        .output()
        .expect("run ctags");
    assert!(
        out.status.success(),
        "ctags failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: HashMap<String, Vec<Symbol>> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["_type"] != "tag" {
            continue;
        }
        let path = v["path"]
            .as_str()
            .unwrap_or("")
            .trim_start_matches("./")
            .to_string();
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        map.entry(path).or_default().push(Symbol {
            name: s("name"),
            line: v["line"].as_u64().unwrap_or(0) as u32,
            kind: s("kind"),
            parent: s("scope"),
            parent_kind: s("scopeKind"),
        });
    }
    map
}

/// A fragment: byte offset in the line, length, symbol if from `sym:`.
type Fragment<'a> = (usize, usize, Option<&'a Symbol>);

#[derive(Debug)]
enum AtomKind {
    Sym,
    File,
    Content,
    Bare,
    Repo,
    Lang,
}

#[derive(Debug)]
struct Atom {
    kind: AtomKind,
    negated: bool,
    re: Option<Regex>,
    text: String,
}

/// Parses the query subset; `Err` is the 400 text.
fn parse(q: &str) -> Result<Vec<Atom>, String> {
    let toks: Vec<&str> = q.split_whitespace().collect();
    let mut case: Option<bool> = None;
    for t in &toks {
        match *t {
            "case:yes" => case = Some(true),
            "case:no" => case = Some(false),
            _ => {}
        }
    }
    let mut atoms = Vec::new();
    for t in toks {
        if t.starts_with("case:") {
            continue;
        }
        let (negated, t) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        let (kind, pat) = if let Some(p) = t.strip_prefix("sym:") {
            (AtomKind::Sym, p)
        } else if let Some(p) = t.strip_prefix("file:").or_else(|| t.strip_prefix("f:")) {
            (AtomKind::File, p)
        } else if let Some(p) = t.strip_prefix("content:").or_else(|| t.strip_prefix("c:")) {
            (AtomKind::Content, p)
        } else if let Some(p) = t.strip_prefix("repo:").or_else(|| t.strip_prefix("r:")) {
            (AtomKind::Repo, p)
        } else if let Some(p) = t.strip_prefix("lang:") {
            (AtomKind::Lang, p)
        } else if t.starts_with("type:") {
            return Err("model: type: is not supported".into());
        } else {
            (AtomKind::Bare, t)
        };
        let pat = pat.trim_matches('"');
        if pat.is_empty() {
            return Err(format!("query: missing argument in {t}"));
        }
        let re = if matches!(kind, AtomKind::Lang) {
            None
        } else {
            let sensitive = case.unwrap_or_else(|| pat.chars().any(|c| c.is_uppercase()));
            Some(
                RegexBuilder::new(pat)
                    .case_insensitive(!sensitive)
                    .build()
                    .map_err(|e| format!("error parsing regexp: {e}"))?,
            )
        };
        atoms.push(Atom {
            kind,
            negated,
            re,
            text: pat.to_string(),
        });
    }
    if atoms.is_empty() {
        return Err("query: empty query".into());
    }
    Ok(atoms)
}

struct Hit {
    doc: usize,
    score: f64,
    matches: Vec<Value>,
    match_count: u64,
}

fn b64(s: &str) -> String {
    B64.encode(s.as_bytes())
}

fn line_match(
    doc: &Doc,
    line_no: u32,
    frags: Vec<(usize, usize, Option<&Symbol>)>,
    ctx: usize,
) -> Value {
    let idx = line_no as usize - 1;
    let line = &doc.lines[idx];
    let start: usize = doc.lines[..idx].iter().map(String::len).sum();
    let before = if ctx > 0 && idx > 0 {
        Some(doc.lines[idx.saturating_sub(ctx)..idx].concat())
    } else {
        None
    };
    let after = if ctx > 0 && idx + 1 < doc.lines.len() {
        Some(doc.lines[idx + 1..(idx + 1 + ctx).min(doc.lines.len())].concat())
    } else {
        None
    };
    json!({
        "Line": b64(line), "LineNumber": line_no, "LineStart": start, "LineEnd": start + line.len(),
        "Before": before.map(|b| b64(&b)), "After": after.map(|a| b64(&a)), "FileName": false, "Score": 1.0,
        "LineFragments": frags.into_iter().map(|(off, len, sym)| json!({
            "LineOffset": off, "Offset": start + off, "MatchLength": len,
            "SymbolInfo": sym.map(|s| json!({"Sym": s.name, "Kind": s.kind, "Parent": s.parent, "ParentKind": s.parent_kind})),
        })).collect::<Vec<_>>(),
    })
}

fn file_name_match(doc: &Doc) -> Value {
    json!({"Line": b64(&doc.path), "LineNumber": 0, "LineStart": 0, "LineEnd": 0, "Before": null,
           "After": null, "FileName": true, "Score": 1.0, "LineFragments": []})
}

/// Evaluates the query on one document: `None` if it does not match.
fn eval(doc: &Doc, atoms: &[Atom], ctx: usize, budget: u64) -> Option<(Vec<Value>, u64)> {
    let producing = atoms.iter().any(|a| {
        !a.negated && matches!(a.kind, AtomKind::Sym | AtomKind::Content | AtomKind::Bare)
    });
    let mut by_line: BTreeMap<u32, Vec<Fragment>> = BTreeMap::new();
    let mut name_match = false;
    for a in atoms {
        let re = a.re.as_ref();
        let hit = match a.kind {
            AtomKind::Lang => doc.language.eq_ignore_ascii_case(&a.text),
            AtomKind::Repo => re.unwrap().is_match(&doc.repo),
            AtomKind::File => {
                let m = re.unwrap().is_match(&doc.path);
                if m && !producing && !a.negated {
                    name_match = true;
                }
                m
            }
            AtomKind::Sym => {
                let mut any = false;
                for s in doc.symbols.iter().filter(|s| re.unwrap().is_match(&s.name)) {
                    any = true;
                    if !a.negated && s.line > 0 && (s.line as usize) <= doc.lines.len() {
                        let line = &doc.lines[s.line as usize - 1];
                        let off = line.find(&s.name).unwrap_or(0);
                        by_line
                            .entry(s.line)
                            .or_default()
                            .push((off, s.name.len(), Some(s)));
                    }
                }
                any
            }
            AtomKind::Content | AtomKind::Bare => {
                let mut any = false;
                for (i, line) in doc.lines.iter().enumerate() {
                    for m in re.unwrap().find_iter(line.trim_end_matches('\n')) {
                        any = true;
                        if !a.negated {
                            by_line.entry(i as u32 + 1).or_default().push((
                                m.start(),
                                m.len(),
                                None,
                            ));
                        }
                    }
                }
                if matches!(a.kind, AtomKind::Bare) && re.unwrap().is_match(&doc.path) {
                    any = true;
                    if !a.negated {
                        name_match = true;
                    }
                }
                any
            }
        };
        if hit == a.negated {
            return None;
        }
    }
    let mut matches = Vec::new();
    let mut count = 0u64;
    if name_match {
        matches.push(file_name_match(doc));
        count += 1;
    }
    for (line, mut frags) in by_line {
        if count >= budget {
            break;
        }
        frags.sort_by_key(|f| f.0);
        count += frags.len() as u64;
        matches.push(line_match(doc, line, frags, ctx));
    }
    if producing && matches.is_empty() {
        return None;
    }
    Some((matches, count))
}

/// Shared state of one model server: the corpus, a shuffle seed, and fault switches.
pub struct Model {
    corpus: Arc<Corpus>,
    seed: AtomicU64,
}

impl Model {
    fn next_rand(&self) -> u64 {
        // xorshift: each request reshuffles ties differently.
        let mut x = self
            .seed
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            | 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }

    fn search(&self, body: &Value) -> Result<Value, String> {
        let q = body["Q"].as_str().unwrap_or("");
        if q.trim().is_empty() {
            return Err("empty query".into());
        }
        let atoms = parse(q)?;
        let opts = &body["Opts"];
        let n = opts["MaxDocDisplayCount"].as_u64().unwrap_or(0) as usize;
        let mut shard_max = opts["ShardMaxMatchCount"].as_u64().unwrap_or(0);
        let mut total_max = opts["TotalMaxMatchCount"].as_u64().unwrap_or(0);
        if n > 0 && shard_max == 0 {
            // Zoekt's heuristic: caps follow the page size, so candidate sets differ by page.
            // (Tight here on purpose, so the trap shows on a small corpus.)
            shard_max = n as u64;
            total_max = (n as u64) * 2;
        }
        let ctx = opts["NumContextLines"].as_u64().unwrap_or(0) as usize;
        let whole = opts["Whole"].as_bool().unwrap_or(false);
        let mut hits = Vec::new();
        let mut per_repo: HashMap<&str, u64> = HashMap::new();
        let mut total = 0u64;
        for (i, doc) in self.corpus.docs.iter().enumerate() {
            let used = per_repo.entry(&doc.repo).or_default();
            if shard_max > 0 && *used >= shard_max || total_max > 0 && total >= total_max {
                continue;
            }
            let budget = if shard_max > 0 {
                shard_max - *used
            } else {
                u64::MAX
            };
            if let Some((matches, count)) = eval(doc, &atoms, ctx, budget) {
                *used += count;
                total += count;
                // Coarse score: ties are the rule, not the exception.
                let score = 100.0 * (count.min(3) as f64)
                    + if doc.path.contains("registry") {
                        50.0
                    } else {
                        0.0
                    };
                hits.push(Hit {
                    doc: i,
                    score,
                    matches,
                    match_count: count,
                });
            }
        }
        let file_count = hits.len();
        let match_count: u64 = hits.iter().map(|h| h.match_count).sum();
        // Unstable order among ties: shuffle, then a stable sort by score.
        for i in (1..hits.len()).rev() {
            let j = (self.next_rand() % (i as u64 + 1)) as usize;
            hits.swap(i, j);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        self.boost_novel_extension(&mut hits);
        if n > 0 {
            hits.truncate(n);
        }
        let files: Vec<Value> = hits
            .into_iter()
            .map(|h| {
                let d = &self.corpus.docs[h.doc];
                json!({"FileName": d.path, "Repository": d.repo, "Language": d.language, "Score": h.score,
                       "Version": "", "LineMatches": h.matches, "ChunkMatches": null,
                       "Checksum": "AAAAAAAAAAA=",
                       "Content": if whole { Value::String(b64(&d.lines.concat())) } else { Value::Null }})
            })
            .collect();
        Ok(json!({"Result": {
            "FileCount": file_count, "MatchCount": match_count, "FilesSkipped": 0, "ShardsSkipped": 0,
            "Crashes": 0, "Duration": 1_000_000, "FilesConsidered": self.corpus.docs.len(),
            "Files": if files.is_empty() { Value::Null } else { Value::Array(files) },
            "RepoURLs": {}, "LineFragments": {},
        }}))
    }

    /// Moves the first file whose extension is not among the top 3's to position 3, taken from
    /// the whole list (before truncation), like Zoekt.
    fn boost_novel_extension(&self, hits: &mut Vec<Hit>) {
        if hits.len() <= 3 {
            return;
        }
        let ext = |h: &Hit| {
            let p = &self.corpus.docs[h.doc].path;
            Path::new(p)
                .extension()
                .map(|e| e.to_string_lossy().to_string())
                .unwrap_or_default()
        };
        let top: Vec<String> = hits[..3].iter().map(ext).collect();
        if let Some(k) = (3..hits.len()).find(|&k| !top.contains(&ext(&hits[k]))) {
            let h = hits.remove(k);
            hits.insert(2, h);
        }
    }

    fn list(&self) -> Value {
        let mut repos: BTreeMap<&str, u64> = BTreeMap::new();
        for d in &self.corpus.docs {
            *repos.entry(&d.repo).or_default() += 1;
        }
        let entries: Vec<Value> = repos
            .iter()
            .rev() // Zoekt's order is arbitrary: make sure callers sort.
            .map(|(name, docs)| json!({
                "Repository": {"Name": name, "URL": "", "Branches": null, "HasSymbols": true, "Rank": 0},
                "IndexMetadata": {"IndexTime": "2026-11-01T00:00:00Z", "ZoektVersion": "model"},
                "Stats": {"Repos": 1, "Shards": 1, "Documents": docs, "IndexBytes": 1, "ContentBytes": 1},
            }))
            .collect();
        json!({"List": {"Repos": entries, "Crashes": 0, "Stats": {"Repos": repos.len(), "Shards": repos.len(),
               "Documents": self.corpus.docs.len()}}})
    }
}

struct SearchResponder(Arc<Model>);
impl Respond for SearchResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = match serde_json::from_slice(&req.body) {
            Ok(v) => v,
            Err(e) => {
                return ResponseTemplate::new(400).set_body_json(json!({"Error": e.to_string()}));
            }
        };
        match self.0.search(&body) {
            Ok(v) => ResponseTemplate::new(200).set_body_json(v),
            Err(e) => ResponseTemplate::new(400).set_body_json(json!({"Error": e})),
        }
    }
}

struct ListResponder(Arc<Model>);
impl Respond for ListResponder {
    fn respond(&self, _req: &Request) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(self.0.list())
    }
}

/// A running model server over `corpus`.
pub struct ModelServer {
    pub server: MockServer,
}

impl ModelServer {
    pub async fn start(corpus: Arc<Corpus>) -> ModelServer {
        Self::serve(corpus, MockServer::start().await).await
    }

    /// Serves on a given listener (a fixed port, for the `zoekt_model` example).
    pub async fn start_on(corpus: Arc<Corpus>, listener: std::net::TcpListener) -> ModelServer {
        Self::serve(
            corpus,
            MockServer::builder().listener(listener).start().await,
        )
        .await
    }

    async fn serve(corpus: Arc<Corpus>, server: MockServer) -> ModelServer {
        let model = Arc::new(Model {
            corpus,
            seed: AtomicU64::new(0x2545_F491_4F6C_DD1D),
        });
        Mock::given(method("POST"))
            .and(path("/api/search"))
            .respond_with(SearchResponder(model.clone()))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/api/list"))
            .respond_with(ListResponder(model))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/readyz"))
            .respond_with(ResponseTemplate::new(200).set_body_string("ready"))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/healthz"))
            .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
            .mount(&server)
            .await;
        ModelServer { server }
    }

    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// Bodies of every /api/search request received so far.
    pub async fn search_requests(&self) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.url.path() == "/api/search")
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect()
    }
}
