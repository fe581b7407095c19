//! What the fan-out's tests share (tests only): corpora dealt over backends, a fake backend
//! with Zoekt's novelty boost, fan-outs of fakes, and walks of every page; and, for the tools'
//! tests, a pager over a fan-out with one backend away.
//!
//! Only `fan.rs` is imported here (and through it `rest.rs`), and neither has tests: the
//! tests that use this file live in the files above them, so no import runs round a loop.

use super::fan::FanOut;
use crate::engine::Pager;
use crate::engine::backend::{
    Backend, BackendError, BackendErrorKind, FileSearch, RankedFile, RankedFiles, Readiness,
    RepoListing, Shape,
};
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::page::Page;
use crate::engine::testing::{FakeBackend, LineArgs, LineItem, LineTool};

/// The query: the engine's test tool sends it to the backend as it is.
pub(crate) const TEXT: &str = "unit";

/// The query, owned.
pub(crate) fn q() -> String {
    TEXT.to_string()
}

/// 90 files over 6 repositories, with many exact ties (scores from a small set) and
/// several extensions (so the novelty boost has something to move).
pub(crate) fn corpus() -> Vec<RankedFile> {
    corpus_of(7)
}

/// [`corpus`] with another seed.
pub(crate) fn corpus_of(mut seed: u64) -> Vec<RankedFile> {
    (0..90)
        .map(|i| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let ext = [".go", ".rs", ".md"][(seed >> 40) as usize % 3];
            RankedFile {
                repo: format!("r{}", i % 6),
                path: format!("f{i:02}{ext}"),
                score: 10.0 + ((seed >> 33) % 12) as f64,
                path_matched: true,
                ..Default::default()
            }
        })
        .collect()
}

/// Zoekt's answer as `docs/zoekt.md` ("Sort") describes it: every file sorted by score,
/// then the first file from position 3 on whose extension the top two lack, scoring at
/// least 0.9 of the third, moved up to position 3, then the cut.
pub(crate) struct Boosting(pub(crate) FakeBackend);

impl Backend for Boosting {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        let mut all = self
            .0
            .search(&FileSearch {
                // Every file (the fake's own failures apply to any size asked).
                max_files: u32::MAX,
                ..search.clone()
            })
            .await?;
        let ext = |p: &str| p.rsplit('.').next().unwrap_or("").to_string();
        if all.files.len() > 3 {
            let (a, b) = (ext(&all.files[0].path), ext(&all.files[1].path));
            let floor = 0.9 * all.files[2].score;
            if let Some(i) = (2..all.files.len()).find(|&i| {
                let e = ext(&all.files[i].path);
                e != a && e != b && all.files[i].score >= floor
            }) {
                let f = all.files.remove(i);
                all.files.insert(2, f);
            }
        }
        if search.max_files > 0 {
            all.files.truncate(search.max_files as usize);
        }
        Ok(all)
    }
    async fn repos(&self, q: &str, t: std::time::Duration) -> Result<RepoListing, BackendError> {
        self.0.repos(q, t).await
    }
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        self.0.readiness().await
    }
}

/// `files` dealt over `parts` backends by repository (`r<n>` to backend `n % parts`).
pub(crate) fn split(files: &[RankedFile], parts: usize) -> Vec<Vec<RankedFile>> {
    let mut out = vec![Vec::new(); parts];
    for f in files {
        let repo: usize = f.repo[1..].parse().unwrap();
        out[repo % parts].push(f.clone());
    }
    out
}

/// Backends `a`, `b`, ... holding `parts`, as they are (no boost), so that what each was
/// asked can be read back.
pub(crate) fn plain_fan(parts: Vec<Vec<RankedFile>>) -> FanOut<FakeBackend> {
    let members = parts
        .into_iter()
        .zip('a'..)
        .map(|(files, name)| (name.to_string(), FakeBackend::new().with(&q(), files)))
        .collect();
    FanOut::new(members, false).unwrap()
}

/// Backends `zoekt-0`, `zoekt-1`, ... holding `parts`, each boosting as Zoekt does.
pub(crate) fn fan(parts: Vec<Vec<RankedFile>>, require_all: bool) -> FanOut<Boosting> {
    let members = parts
        .into_iter()
        .enumerate()
        .map(|(i, files)| {
            (
                format!("zoekt-{i}"),
                Boosting(FakeBackend::new().with(&q(), files)),
            )
        })
        .collect();
    FanOut::new(members, require_all).unwrap()
}

/// The search for `max_files` files of the test query.
pub(crate) fn search_of(max_files: u32) -> FileSearch {
    FileSearch {
        query: q(),
        effort: Default::default(),
        max_files,
        context_lines: 0,
        shape: Shape::Lines,
    }
}

/// Every page of the test query, with these limits in turn.
pub(crate) async fn walk<B: Backend>(p: &Pager<B>, limits: &[u32]) -> Vec<Page<LineItem>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0.. {
        let page = p
            .page::<LineTool>(&LineArgs {
                query: TEXT.into(),
                limit: Some(limits[i % limits.len()]),
                cursor: cursor.clone(),
                ..Default::default()
            })
            .await
            .expect("page");
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() {
            return pages;
        }
    }
    unreachable!()
}

/// `repo/path` of every item of `pages`, in order.
pub(crate) fn names(pages: &[Page<LineItem>]) -> Vec<String> {
    pages
        .iter()
        .flat_map(|p| p.items.iter().map(|i| format!("{}/{}", i.repo, i.path)))
        .collect()
}

/// Why the first page of the test query over `p` fails.
pub(crate) async fn first_page_error<B: Backend>(p: &Pager<B>) -> Error {
    p.page::<LineTool>(&LineArgs {
        query: TEXT.into(),
        ..Default::default()
    })
    .await
    .unwrap_err()
}

/// The backends missing from a search of ten files over `fan`.
pub(crate) async fn missing<B: Backend>(fan: &FanOut<B>) -> u64 {
    fan.search(&search_of(10))
        .await
        .unwrap()
        .stats
        .missing_backends
}

/// A pager over backends `a` and `b` as a fan-out, `b` unreachable (every call fails) until
/// healed: what a page meets while one webserver is down.
pub(crate) fn fan_with_b_away(a: FakeBackend, b: FakeBackend) -> Pager<FanOut<FakeBackend>> {
    let fan =
        FanOut::new(vec![("a".to_string(), a), ("b".to_string(), b)], false).expect("two backends");
    fan.members()[1]
        .backend
        .fail(BackendErrorKind::Unreachable, 0);
    Pager::new(fan, PagerConfig::default())
}
