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
mod tests;
