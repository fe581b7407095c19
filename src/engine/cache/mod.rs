//! The window cache: a walk's pages cut from one growing answer instead of a new Zoekt
//! request, from item 0, for every page.
//!
//! What is kept, per request (the cursor's request hash, which names the tool, its query and
//! the settings of the order), per backend query and context lines: the largest [`Answer`]
//! fetched so far, ordered and flattened. A page whose window that answer covers
//! ([`Answer::covers`]) is read off it with no request; a page beyond it fetches a bigger one,
//! at least four times the size ([`GROWTH`]) and at least 1/[`STEP_SHARE`] of the cache's
//! bytes, so a walk of N items costs O(log N) requests (2 for most walks). Since Zoekt's
//! answer for fewer files is a prefix of its answer for more, a page served from the cache is
//! the page a fresh request would give: the cache changes cost, never content.
//!
//! Concurrent pages needing the same fetch share one request (moka's `try_get_with`), and
//! after a page is served the next bigger fetch may start in the background (a prefetch),
//! bounded in number and dropped on shutdown. Entries are weighed in bytes and expire after a
//! time to live and an idle time. See `docs/contract.md`, "The window cache".

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use moka::future::Cache;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

mod entry;

use super::answer::{Answer, Collectable, Flatten};
use super::backend::{Backend, BackendError, BackendErrorKind, FileSearch, RankedFiles, Shape};
use super::config::CacheConfig;
use super::fetch::WindowSpec;
use super::weight::{answer_weight, raw_weight};
use super::window::Cut;
pub(crate) use entry::{AnswerKey, Kept};
use entry::{Key, Value};

/// How much bigger than the kept answer a new fetch is, at least. Zoekt's cost for one query
/// is mostly fixed (every window searches the same candidates under the same caps; on the
/// generated corpus, 34 files take 45 ms and 3,376 take 70 ms), so fewer, bigger steps are
/// cheaper than many small ones.
const GROWTH: u32 = 4;

/// A fetch beyond the first aims to fill this fraction of the cache's bytes (4 MiB of the
/// default 64 MiB): enough for a long walk in one step, few enough that many walks fit.
const STEP_SHARE: u64 = 16;

/// Foreground fetches in flight at which the server counts as busy: no prefetch starts then,
/// so background work never competes with pages being waited for.
const BUSY_FETCHES: usize = 4;

/// Counts kept by the cache, for `/metrics`.
#[derive(Debug, Default)]
struct Counters {
    /// Fetches in flight for pages being waited for (not prefetches).
    foreground: std::sync::atomic::AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    prefetches: AtomicU64,
    prefetches_skipped: AtomicU64,
}

/// What the cache holds and has done, since the start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Windows read off a cached answer.
    pub hits: u64,
    /// Windows that needed a fetch (shared or not).
    pub misses: u64,
    /// Entries dropped for size or age.
    pub evictions: u64,
    /// Background fetches started.
    pub prefetches: u64,
    /// Background fetches not started because enough were running or the server was busy.
    pub prefetches_skipped: u64,
    /// Bytes held (estimated).
    pub bytes: u64,
    /// Entries held.
    pub entries: u64,
    /// The bound on `bytes`.
    pub capacity: u64,
}

/// The cache of ordered, flattened Zoekt answers; cheap to clone (shared).
#[derive(Clone)]
pub struct WindowCache {
    store: Cache<Key, Value>,
    counters: Arc<Counters>,
    prefetch_slots: Arc<Semaphore>,
    shutdown: CancellationToken,
    capacity: u64,
    /// No answer older than this is used, however it reached the cache.
    ttl: Duration,
}

impl std::fmt::Debug for WindowCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowCache")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl WindowCache {
    /// A cache with these bounds, or `None` when it is off (`--cache-bytes 0`).
    pub fn new(cfg: &CacheConfig) -> Option<WindowCache> {
        if cfg.cache_bytes == 0 {
            return None;
        }
        let ttl = Duration::from_secs(cfg.cache_ttl_secs.max(1));
        let counters = Arc::new(Counters::default());
        let evicted = Arc::clone(&counters);
        let store = Cache::builder()
            .max_capacity(cfg.cache_bytes)
            .weigher(|_k: &Key, v: &Value| v.weight())
            .time_to_live(ttl)
            .time_to_idle(Duration::from_secs(cfg.cache_idle_secs.max(1)))
            .eviction_listener(move |_k, _v, cause| {
                if cause.was_evicted() {
                    evicted.evictions.fetch_add(1, Ordering::Relaxed);
                }
            })
            .build();
        Some(WindowCache {
            store,
            counters,
            prefetch_slots: Arc::new(Semaphore::new(cfg.cache_prefetch)),
            shutdown: CancellationToken::new(),
            capacity: cfg.cache_bytes,
            ttl,
        })
    }

    /// Counts and size, for `/metrics`.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            hits: c.hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            evictions: c.evictions.load(Ordering::Relaxed),
            prefetches: c.prefetches.load(Ordering::Relaxed),
            prefetches_skipped: c.prefetches_skipped.load(Ordering::Relaxed),
            bytes: self.store.weighted_size(),
            entries: self.store.entry_count(),
            capacity: self.capacity,
        }
    }

    /// Stops every prefetch and starts no new one (the server is shutting down).
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Brings the counts of [`WindowCache::stats`] up to date (moka applies writes lazily).
    pub async fn sync(&self) {
        self.store.run_pending_tasks().await;
    }

    /// What is kept whole by `key`, if any (`names.rs`).
    pub(crate) async fn kept<T: Send + Sync + 'static>(&self, key: &Kept) -> Option<Arc<T>> {
        let kept = match self.store.get(&Key::Kept(key.clone())).await {
            Some(Value::Answer(any, _)) => any.downcast::<T>().ok(),
            _ => None,
        };
        if kept.is_some() && matches!(key, Kept::Names(_)) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
        }
        kept
    }

    /// Keeps `value` whole by `key`, weighing `bytes`, made because none was kept (for a
    /// listing of names, a miss).
    pub(crate) async fn keep<T: Send + Sync + 'static>(
        &self,
        key: Kept,
        value: Arc<T>,
        bytes: u32,
    ) {
        if matches!(key, Kept::Names(_)) {
            self.counters.misses.fetch_add(1, Ordering::Relaxed);
        }
        self.store
            .insert(Key::Kept(key), Value::Answer(value, bytes))
            .await;
        self.store.run_pending_tasks().await;
    }

    /// The largest answer kept for `key`, if any younger than the time to live. (moka counts
    /// an entry's life from its insertion; a prefetched answer is inserted after Zoekt gave
    /// it, so its age is checked here too.)
    async fn largest<T: Send + Sync + 'static>(&self, key: &AnswerKey) -> Option<Arc<Answer<T>>> {
        match self.store.get(&Key::Largest(key.clone())).await? {
            Value::Answer(any, _) => any
                .downcast::<Answer<T>>()
                .ok()
                .filter(|a| a.age() < self.ttl),
            Value::Raw(..) | Value::Files(_) => None,
        }
    }

    /// The fewest files whose answer for `key` was too big to read, if seen within the time
    /// to live. Answers grow with the window, so no bigger window's answer fits either: the
    /// size bound ([`super::fetch::fetch`]) is found once per request, not once per page.
    async fn too_big_from(&self, key: &AnswerKey) -> Option<u32> {
        match self.store.get(&Key::TooBig(key.clone())).await? {
            Value::Files(files) => Some(files),
            _ => None,
        }
    }

    /// Notes that the answer for `files` files of `key` was too big to read.
    async fn note_too_big(&self, key: &AnswerKey, files: u32) {
        let known = self.too_big_from(key).await;
        if known.is_none_or(|k| files < k) {
            self.store
                .insert(Key::TooBig(key.clone()), Value::Files(files))
                .await;
        }
    }

    /// An answer covering Zoekt's answer for `files` files of `spec`'s query: the kept one,
    /// or a new fetch of at least `files` and at least [`GROWTH`] times the kept one's size
    /// (at most `spec.max_files`; a count's, of exactly `files`). Counts the requests it makes
    /// into `requests`.
    pub(crate) async fn answer<B: Backend + ?Sized, T: Collectable>(
        &self,
        backend: &B,
        key: &AnswerKey,
        spec: &WindowSpec<'_>,
        files: u32,
        flatten: &impl Flatten<T>,
        requests: &AtomicU32,
    ) -> Result<Arc<Answer<T>>, BackendError> {
        let kept = self.largest::<T>(key).await;
        if let Some(kept) = kept.as_ref().filter(|a| a.covers(files)) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Arc::clone(kept));
        }
        // An answer cut at the byte bound is the answer for any bigger window too: no more
        // files can be read.
        if let Some(cut) = kept.as_ref().filter(|a| a.cut_below(files)) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Arc::clone(cut));
        }
        let too_big = self.too_big_from(key).await;
        if let Some(limit) = too_big.filter(|&limit| files >= limit) {
            return Err(BackendError {
                kind: BackendErrorKind::TooBig,
                message: format!("the answer for {limit} files was too big to read"),
                files_within: None,
            });
        }
        self.counters.misses.fetch_add(1, Ordering::Relaxed);
        // A count's window of every file is what it asks for: Zoekt holds no more, and a
        // bigger window too big to read would be asked again at `files`.
        let mut size = if spec.count {
            files
        } else {
            self.fetch_size(kept.as_deref(), files, spec.max_files, too_big)
        };
        let (value, fetch_key) = loop {
            let fetch_key = Key::Fetch(key.clone(), size);
            let fetched = self
                .store
                .try_get_with(fetch_key.clone(), async {
                    // Another page may have kept a covering answer since this one looked.
                    if let Some(kept) = self.largest::<T>(key).await.filter(|a| a.covers(files)) {
                        return Ok(answer_value(kept));
                    }
                    let search = spec.search(size);
                    let (ranked, fetched_at) = self.raw(backend, &search, Some(requests)).await?;
                    self.store.invalidate(&Key::Raw(search)).await;
                    let answer = Answer::new(&ranked, size, flatten).fetched_at(fetched_at);
                    // Noted only with the start kept beside it (an answer cut by time or
                    // loading is not kept, below): a bigger window is then served the start,
                    // where the note alone would send the page to a bisection.
                    let transient = Cut::of(answer.search_stats(), &spec.effort).is_transient();
                    if answer.cut_at_bytes() && !transient {
                        self.note_too_big(key, answer.asked() + 1).await;
                    }
                    let weight = answer_weight(&answer, spec.shape == Shape::NamesCarryingLines);
                    Ok::<_, BackendError>(answer_value(Arc::new(answer.weighed(weight))))
                })
                .await
                .map_err(|e| (*e).clone());
            match fetched {
                Ok(value) => break (value, fetch_key),
                // The step past the page's window was too big to read; the window itself may
                // not be. Ask for it alone, or the cache would change what the page holds.
                Err(e) if e.kind == BackendErrorKind::TooBig => {
                    self.note_too_big(key, size).await;
                    if size == files {
                        return Err(e);
                    }
                    size = files;
                }
                Err(e) => return Err(e),
            }
        };
        let Value::Answer(any, _) = &value else {
            unreachable!("fetch entries hold answers")
        };
        let answer = Arc::clone(any)
            .downcast::<Answer<T>>()
            .expect("the key names the item type");
        // Keep it as the request's answer when it is the biggest, then end the fetch entry
        // (in that order: a page arriving in between finds one or the other).
        let bigger = match self.largest::<T>(key).await {
            Some(k) => !k.ran_out() && k.asked() < answer.asked(),
            None => true,
        };
        // An answer cut by timing or loading (time ran out, shards still loading) is not
        // kept: asking again may find more, and a page that says "retry" must not be served
        // the same cut from the cache until the TTL ends.
        let transient = Cut::of(answer.search_stats(), &spec.effort).is_transient();
        if bigger && !transient {
            self.store.insert(Key::Largest(key.clone()), value).await;
        }
        self.store.invalidate(&fetch_key).await;
        // moka drops what it no longer holds (Zoekt's raw answer, the answer this one
        // replaces) only when it applies its pending writes, which it otherwise does later:
        // until then a heavy walk held each window's answer beside the next one's
        // (docs/bench/memory.md).
        self.store.run_pending_tasks().await;
        Ok(answer)
    }

    /// How many files to fetch for a window of `files` files beyond `kept` (the request's
    /// answer): at least [`GROWTH`] times `kept`, and at least as many as fill
    /// [`STEP_SHARE`] of the cache at `kept`'s bytes per file, within `max_files` (unless the
    /// window itself is bigger). Zoekt's cost per request is mostly fixed, so a walk is
    /// cheapest in few big steps; the byte share keeps one step's memory bounded whatever
    /// the files hold. A first fetch (nothing kept) asks for the window only: a first page
    /// costs what it would without the cache.
    fn fetch_size<T>(
        &self,
        kept: Option<&Answer<T>>,
        files: u32,
        max_files: u32,
        too_big: Option<u32>,
    ) -> u32 {
        let Some(kept) = kept else {
            return files;
        };
        // Below the fewest files known to be too big, halfway from the kept answer: each
        // step that is too big again halves the gap, instead of edging down one file a page.
        let max_files = too_big.map_or(max_files, |limit| {
            let asked = kept.asked().min(limit);
            max_files.min(asked + (limit - asked) / 2)
        });
        let asked = u64::from(kept.asked());
        let by_bytes = match u64::from(kept.weight()) {
            0 => 0,
            weight => asked.saturating_mul(self.capacity / STEP_SHARE) / weight,
        };
        let grown = asked.saturating_mul(u64::from(GROWTH)).max(by_bytes);
        files.max(u32::try_from(grown).unwrap_or(u32::MAX).min(max_files))
    }

    /// Zoekt's answer to `search`, shared with any fetch of it in flight or prefetched.
    async fn raw<B: Backend + ?Sized>(
        &self,
        backend: &B,
        search: &FileSearch,
        requests: Option<&AtomicU32>,
    ) -> Result<(Arc<RankedFiles>, Instant), BackendError> {
        let value = self
            .store
            .try_get_with(Key::Raw(search.clone()), async {
                let _busy = requests.map(|r| {
                    r.fetch_add(1, Ordering::Relaxed);
                    Foreground::enter(&self.counters)
                });
                let ranked = backend.search_window(search).await?;
                let weight = raw_weight(&ranked);
                Ok::<_, BackendError>(Value::Raw(Arc::new(ranked), weight, Instant::now()))
            })
            .await
            .map_err(|e| (*e).clone())?;
        match value {
            Value::Raw(ranked, _, at) => Ok((ranked, at)),
            Value::Answer(..) | Value::Files(_) => unreachable!("raw entries hold Zoekt's answers"),
        }
    }

    /// Starts fetching, in the background, the answer `next_page` would fetch, when `kept`
    /// (the request's answer) does not cover its window sequence. Skipped when
    /// enough prefetches run already or the server is busy with pages being waited for
    /// ([`BUSY_FETCHES`]); dropped on shutdown. It fills the cache only, so it
    /// never changes a page.
    pub(crate) async fn prefetch<B, T>(
        &self,
        backend: &Arc<B>,
        key: &AnswerKey,
        next_page: &WindowSpec<'_>,
        kept: &Arc<Answer<T>>,
    ) where
        B: Backend + 'static,
    {
        if self.shutdown.is_cancelled() {
            return;
        }
        let Some(next_files) = next_page.first_uncovered(kept) else {
            return;
        };
        // The next page will be bound below a window known to be too big: nothing to fetch.
        let too_big = self.too_big_from(key).await;
        if too_big.is_some_and(|limit| next_files >= limit) {
            return;
        }
        let size = self.fetch_size(Some(kept), next_files, next_page.max_files, too_big);
        let busy = self.counters.foreground.load(Ordering::Relaxed) >= BUSY_FETCHES;
        let slot = Arc::clone(&self.prefetch_slots).try_acquire_owned();
        let (Ok(slot), false) = (slot, busy) else {
            self.counters
                .prefetches_skipped
                .fetch_add(1, Ordering::Relaxed);
            return;
        };
        self.counters.prefetches.fetch_add(1, Ordering::Relaxed);
        let cache = self.clone();
        let backend = Arc::clone(backend);
        let search = next_page.search(size);
        let key = key.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = cache.shutdown.cancelled() => {}
                // An error is not kept (the page that needs the answer asks again), but a
                // window too big is remembered. An answer cut by time or crashed shards is
                // dropped too: a page must never be served a cut that asking again may not
                // repeat (the same rule as for the request's answer, in `answer`).
                fetched = cache.raw(backend.as_ref(), &search, None) => match fetched {
                    Err(e) if e.kind == BackendErrorKind::TooBig => {
                        cache.note_too_big(&key, size).await;
                    }
                    Ok((ranked, _)) if Cut::of(&ranked.stats, &search.effort).is_transient() => {
                        cache.store.invalidate(&Key::Raw(search.clone())).await;
                    }
                    _ => {}
                }
            }
            drop(slot);
        });
    }
}

/// Counts a foreground fetch in flight while it lives.
struct Foreground<'a>(&'a Counters);

impl<'a> Foreground<'a> {
    fn enter(counters: &'a Counters) -> Foreground<'a> {
        counters.foreground.fetch_add(1, Ordering::Relaxed);
        Foreground(counters)
    }
}

impl Drop for Foreground<'_> {
    fn drop(&mut self) {
        self.0.foreground.fetch_sub(1, Ordering::Relaxed);
    }
}

fn answer_value<T: Send + Sync + 'static>(answer: Arc<Answer<T>>) -> Value {
    let weight = answer.weight();
    Value::Answer(answer, weight)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::engine::Pager;
    use crate::engine::backend::RankedFile;
    use crate::engine::config::PagerConfig;
    use crate::engine::page::Page;
    use crate::engine::testing::{
        FakeBackend, LineArgs, LineItem, LineTool, file, line, pages_at_once,
    };
    use crate::engine::tool::{PageArgs, PagedArgs};

    const NAME: &str = "cached";

    /// 600 files of 1 to 3 symbols each, scores in tied groups of 4, listed out of order.
    fn files() -> Vec<RankedFile> {
        (0..600)
            .rev()
            .map(|i| {
                let lines = (0..(i % 3 + 1))
                    .map(|k| line(10 * (k + 1), &format!("func cached{i}_{k}() {{")))
                    .collect();
                RankedFile {
                    repo: format!("r{}", i % 7),
                    path: format!("p/f{i:04}.go"),
                    score: 1000.0 - (i / 4) as f64,
                    ..file(lines)
                }
            })
            .collect()
    }

    fn backend() -> FakeBackend {
        FakeBackend::new().with(NAME, files())
    }

    fn cached(backend: FakeBackend, cfg: CacheConfig) -> Pager<FakeBackend> {
        Pager::new(backend, PagerConfig::default()).with_cache(WindowCache::new(&cfg))
    }

    /// Searches of lines so far (a broad first page's census is a search of names beside
    /// them, which these tests of windows leave aside).
    fn searches(p: &Pager<FakeBackend>) -> usize {
        p.backend().line_searches()
    }

    /// Every page of a walk with these page sizes (the last repeats).
    async fn walk(p: &Pager<FakeBackend>, limits: &[u32]) -> Vec<Page<LineItem>> {
        let mut args = LineArgs {
            query: NAME.into(),
            ..Default::default()
        };
        let mut pages: Vec<Page<LineItem>> = Vec::new();
        loop {
            let limit = limits[pages.len().min(limits.len() - 1)];
            let cursor = pages.last().and_then(|p| p.next_cursor.clone());
            if !pages.is_empty() && cursor.is_none() {
                return pages;
            }
            args.set_paging(PageArgs {
                limit: Some(limit),
                cursor,
                ..PageArgs::default()
            });
            pages.push(p.page::<LineTool>(&args).await.expect("page"));
            assert!(pages.len() < 2000, "runaway walk");
        }
    }

    /// What each page says, as text to compare: everything but the requests it cost and how
    /// it was cut (which the page's form reads, and which no reader sees).
    fn json(pages: &[Page<LineItem>]) -> Vec<String> {
        pages
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p.zoekt_requests = 0;
                p.ends = None;
                format!("{p:?}")
            })
            .collect()
    }

    /// Answers of more than 150 files are too big to read: the walk is bound there, the
    /// cache's bigger steps, too big themselves, must not bind it anywhere else, and the
    /// cache remembers the bound instead of asking for too much on every page.
    #[tokio::test]
    async fn a_size_bound_walk_is_the_same_with_the_cache_on_and_off() {
        for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
            let off = Pager::new(backend(), PagerConfig::default());
            let on = cached(backend(), CacheConfig::DEFAULT);
            off.backend().fail(BackendErrorKind::TooBig, 150);
            on.backend().fail(BackendErrorKind::TooBig, 150);
            let reference = walk(&off, &limits).await;
            let pages = walk(&on, &limits).await;
            assert_eq!(json(&pages), json(&reference), "limits {limits:?}");
            // The bound is found once for the walk: requests too big to read halve the gap
            // to it (about log2 of 5,000), never one per page.
            let asked: Vec<u32> = on
                .backend()
                .requests()
                .iter()
                .map(|r| r.max_files)
                .collect();
            let too_big = asked.iter().filter(|&&n| n > 150).count();
            assert!(
                too_big <= 13,
                "limits {limits:?}: {too_big} too big: {asked:?}"
            );
            assert!(
                searches(&on) <= searches(&off),
                "limits {limits:?}: {asked:?}"
            );
            let last = reference.last().unwrap();
            assert!(
                last.warnings
                    .iter()
                    .any(|w| matches!(w, crate::engine::warning::Warning::TooBigToRead { .. })),
                "{:?}",
                last.warnings
            );
        }
    }

    /// A window too big read as its start, as the Zoekt client reads one, binds the walk
    /// where the searches too big to read did, with the cache on and off, and costs a page
    /// one search of lines at most: no retry, no bisection.
    #[tokio::test]
    async fn a_start_read_within_the_bound_binds_the_walk_in_one_search_a_page() {
        for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
            let bisected = Pager::new(backend(), PagerConfig::default());
            bisected.backend().fail(BackendErrorKind::TooBig, 150);
            let reference = walk(&bisected, &limits).await;
            let off = Pager::new(backend(), PagerConfig::default());
            let on = cached(backend(), CacheConfig::DEFAULT);
            let mut walks = Vec::new();
            for (name, p) in [("off", &off), ("on", &on)] {
                p.backend().fail(BackendErrorKind::TooBig, 150);
                p.backend().keep_starts();
                let pages = walk(p, &limits).await;
                // The census, too big as well, now counts the start of its answer where
                // the bisected walk's counted the page's own items.
                let unsuggested = |pages: &[Page<LineItem>]| {
                    let mut pages = pages.to_vec();
                    pages.iter_mut().for_each(|p| p.narrowing = None);
                    json(&pages)
                };
                assert_eq!(
                    unsuggested(&pages),
                    unsuggested(&reference),
                    "{name}, limits {limits:?}"
                );
                walks.push(json(&pages));
                let asked: Vec<u32> = p.backend().requests().iter().map(|r| r.max_files).collect();
                // Without the cache a page beyond the first asks for the walk's first window,
                // then for one sized by it (`fetch_direct`); with it, the cache's own steps.
                let per_page = if name == "off" { 2 } else { 1 };
                assert!(
                    searches(p) <= per_page * pages.len(),
                    "{name}, limits {limits:?}: {} pages, {asked:?}",
                    pages.len()
                );
            }
            assert_eq!(walks[0], walks[1], "the cache changes no page");
            assert!(
                searches(&off) < searches(&bisected),
                "limits {limits:?}: {} against {}",
                searches(&off),
                searches(&bisected)
            );
        }
    }

    /// Any other failure is passed on after one request: only a step too big is retried.
    /// (The page runs on a thread of its own, so that a retry loop that never yields fails
    /// the test after 5 s instead of hanging it.)
    #[test]
    fn a_failing_backend_is_asked_once() {
        let on = Arc::new(cached(backend(), CacheConfig::DEFAULT));
        on.backend().fail(BackendErrorKind::Unreachable, 0);
        let args = LineArgs {
            query: NAME.into(),
            ..Default::default()
        };
        let pager = Arc::clone(&on);
        let (done, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let page = runtime.block_on(pager.page::<LineTool>(&args));
            let _ = done.send(page.map(|_| ()));
        });
        let e = outcome
            .recv_timeout(Duration::from_secs(5))
            .expect("no retry loop")
            .unwrap_err();
        assert!(format!("{e:?}").contains("Unreachable"), "{e:?}");
        assert_eq!(searches(&on), 1);
    }

    #[tokio::test]
    async fn a_walk_is_the_same_with_the_cache_on_and_off_and_costs_log_n_requests() {
        for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
            let off = Pager::new(backend(), PagerConfig::default());
            let on = cached(backend(), CacheConfig::DEFAULT);
            let reference = walk(&off, &limits).await;
            let pages = walk(&on, &limits).await;
            assert_eq!(json(&pages), json(&reference), "limits {limits:?}");
            let items: usize = pages.iter().map(|p| p.count).sum();
            assert_eq!(items, (0..600).map(|i| i % 3 + 1).sum::<usize>());
            // Every page without the cache asks Zoekt; with it, a handful of growing answers
            // (and the prefetches among them) serve the whole walk.
            assert!(searches(&off) >= reference.len(), "limits {limits:?}");
            assert!(
                searches(&on) <= 8,
                "limits {limits:?}: {} requests for {} pages: {:?}",
                searches(&on),
                pages.len(),
                on.backend()
                    .requests()
                    .iter()
                    .map(|s| s.max_files)
                    .collect::<Vec<_>>()
            );
            let zero = pages.iter().filter(|p| p.zoekt_requests == 0).count();
            assert!(zero * 2 > pages.len(), "{zero} of {} pages", pages.len());
        }
    }

    #[tokio::test]
    async fn a_cache_too_small_to_keep_anything_changes_no_page() {
        let tiny = CacheConfig {
            cache_bytes: 1,
            ..CacheConfig::DEFAULT
        };
        let off = Pager::new(backend(), PagerConfig::default());
        let on = cached(backend(), tiny);
        assert_eq!(
            json(&walk(&on, &[30]).await),
            json(&walk(&off, &[30]).await)
        );
    }

    #[tokio::test]
    async fn concurrent_identical_pages_share_one_request() {
        let p = cached(
            backend(),
            CacheConfig {
                cache_prefetch: 0,
                ..CacheConfig::DEFAULT
            },
        );
        p.backend().slow(Duration::from_millis(50));
        let args = LineArgs {
            query: NAME.into(),
            limit: Some(30),
            ..Default::default()
        };
        let pages = pages_at_once(&p, &args, 16).await;
        // One search for the page, and one census of the broad result beside it.
        assert_eq!(searches(&p), 1);
        assert_eq!(p.backend().censuses_asked(NAME), 1);
        assert!(json(&pages).iter().all(|x| *x == json(&pages)[0]));
        assert_eq!(pages.iter().map(|x| x.zoekt_requests).sum::<u32>(), 2);
    }

    #[tokio::test]
    async fn the_next_window_is_fetched_ahead_and_not_after_shutdown() {
        // Without suggestions: a first page that takes a census asks for a thousand files,
        // which holds this whole walk.
        let plain = PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        };
        let p = Pager::new(backend(), plain).with_cache(WindowCache::new(&CacheConfig::DEFAULT));
        let args = |cursor: Option<String>| LineArgs {
            query: NAME.into(),
            limit: Some(30),
            cursor,
            ..Default::default()
        };
        // A client that takes its time between pages never waits for Zoekt after page 1:
        // whenever the next page lies beyond the answer at hand, it is fetched ahead.
        let mut page = p.page::<LineTool>(&args(None)).await.unwrap();
        let (mut pages, mut waited) = (1, 0);
        while let Some(c) = page.next_cursor {
            tokio::time::sleep(Duration::from_millis(20)).await;
            page = p.page::<LineTool>(&args(Some(c))).await.unwrap();
            pages += 1;
            waited += page.zoekt_requests;
            // A walk that never ends (a broken cursor) fails here rather than hanging.
            assert!(pages < 1_000, "the walk does not end");
        }
        assert!(pages > 10, "{pages} pages");
        assert_eq!(waited, 0, "a page waited for Zoekt");
        let asked: Vec<u32> = p.backend().requests().iter().map(|s| s.max_files).collect();
        assert!(asked.len() >= 2, "page 1 and a prefetch: {asked:?}");
        // After shutdown, nothing is fetched ahead.
        let p = cached(backend(), CacheConfig::DEFAULT);
        p.cache().unwrap().shutdown();
        p.page::<LineTool>(&args(None)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(searches(&p), 1);
    }

    #[tokio::test]
    async fn an_answer_is_used_until_its_time_to_live_and_never_after() {
        let p = cached(
            backend(),
            CacheConfig {
                cache_ttl_secs: 1,
                cache_prefetch: 0,
                ..CacheConfig::DEFAULT
            },
        );
        let args = LineArgs {
            query: NAME.into(),
            limit: Some(5),
            ..Default::default()
        };
        let first = p.page::<LineTool>(&args).await.unwrap();
        // The index changes: one better file arrives.
        let mut more = files();
        more.push(RankedFile {
            repo: "new".into(),
            score: 5000.0,
            ..file(vec![line(1, "func cachedNew() {")])
        });
        p.backend().replace(NAME, more);
        // Within the time to live the cached answer still serves: the same page, no request.
        let again = p.page::<LineTool>(&args).await.unwrap();
        assert_eq!(again.zoekt_requests, 0);
        assert_eq!(json(&[again]), json(&[first]));
        // After it, Zoekt is asked again and the new file leads.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let fresh = p.page::<LineTool>(&args).await.unwrap();
        // The page's window and its census, both asked again.
        assert_eq!(fresh.zoekt_requests, 2);
        assert_eq!(fresh.items[0].text, "func cachedNew() {");
    }

    /// An answer cut by loading shards is not kept: the retry its error asks for reaches
    /// Zoekt, and finds the answer once the shards are up.
    #[tokio::test]
    async fn an_answer_cut_while_shards_load_is_not_kept() {
        let q = NAME;
        let p = cached(FakeBackend::new(), CacheConfig::DEFAULT);
        p.backend().cut(
            q,
            crate::engine::backend::SearchStats {
                crashes: 1,
                ..Default::default()
            },
        );
        let args = LineArgs {
            query: NAME.into(),
            ..Default::default()
        };
        let e = p.page::<LineTool>(&args).await.unwrap_err();
        assert!(format!("{e:?}").contains("NotReady"), "{e:?}");
        // The shards are loaded now.
        p.backend().cut(q, Default::default());
        p.backend().replace(q, files());
        let page = p.page::<LineTool>(&args).await.unwrap();
        assert_eq!(page.count, 30);
        assert_eq!(searches(&p), 2);
    }
}
