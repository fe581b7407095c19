//! The fan-out as a [`Backend`]: each call asked of every backend at once (`ask.rs`), the
//! answers that stand (`fan.rs`) merged (`merge.rs`). One backend is passed through
//! untouched: the same requests, answers, pages and cursors as without a fan-out.

use std::time::Duration;

use super::fan::FanOut;
use super::merge::{asked_of, merged_answer, merged_listing};
use crate::engine::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};

impl<B: Backend> Backend for FanOut<B> {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        if let [only] = self.members.as_slice() {
            return only.backend.search(search).await;
        }
        let asked = asked_of(search.max_files);
        let each_search = FileSearch {
            max_files: asked,
            ..search.clone()
        };
        let answers = self
            .ask(true, |b| {
                let search = each_search.clone();
                async move { b.search(&search).await }
            })
            .await;
        let (got, missing) = self.answered(answers)?;
        Ok(merged_answer(got, missing, asked, search.max_files))
    }

    /// One backend's window may be the start of an answer too big to read; several
    /// backends' merged answer is whole or the error: a start cut from one of them would
    /// leave out files of the others that rank between its last file and the cut.
    async fn search_window(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        match self.members.as_slice() {
            [only] => only.backend.search_window(search).await,
            _ => self.search(search).await,
        }
    }

    async fn repos(&self, query: &str, wall_time: Duration) -> Result<RepoListing, BackendError> {
        if let [only] = self.members.as_slice() {
            return only.backend.repos(query, wall_time).await;
        }
        let answers = self
            .ask(false, |b| {
                let query = query.to_string();
                async move { b.repos(&query, wall_time).await }
            })
            .await;
        let (got, missing) = self.answered(answers)?;
        Ok(merged_listing(got, missing))
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        self.readiness_by(|b| async move { b.readiness().await })
            .await
    }

    async fn readiness_within(&self, budget: Duration) -> Result<Readiness, BackendError> {
        self.readiness_by(move |b| async move { b.readiness_within(budget).await })
            .await
    }

    fn backend_names(&self, mask: u64) -> Vec<String> {
        self.names(mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pager;
    use crate::engine::backend::{BackendErrorKind, IndexedRepo, RankedFile};
    use crate::engine::config::PagerConfig;
    use crate::engine::order::file_key;
    use crate::engine::testing::{FakeBackend, LineArgs, LineTool, pages_at_once};
    use crate::fanout::testing::{
        Boosting, TEXT, corpus, corpus_of, fan, first_page_error, names, plain_fan, q, search_of,
        split, walk,
    };

    #[tokio::test]
    async fn three_partitions_page_exactly_as_one_backend_holding_all() {
        for (seed, limits) in (0..40).zip(
            [&[1u32][..], &[7], &[30], &[100], &[3, 17, 1, 40, 8]]
                .into_iter()
                .cycle(),
        ) {
            let all = corpus_of(seed);
            let one = Pager::new(
                Boosting(FakeBackend::new().with(&q(), all.clone())),
                PagerConfig::default(),
            );
            let three = Pager::new(fan(split(&all, 3), false), PagerConfig::default());
            let (a, b) = (walk(&one, limits).await, walk(&three, limits).await);
            assert_eq!(names(&a), names(&b), "seed {seed}, limits {limits:?}");
            assert_eq!(names(&a).len(), all.len());
            for (pa, pb) in a.iter().zip(&b) {
                assert_eq!(pa.items, pb.items);
                assert_eq!(pa.total, pb.total, "limits {limits:?}");
                assert!(pb.warnings.is_empty(), "{:?}", pb.warnings);
            }
        }
    }

    #[tokio::test]
    async fn the_window_cache_request_sharing_and_prefetch_work_on_the_merged_answer() {
        use crate::engine::cache::WindowCache;
        use crate::engine::config::CacheConfig;
        let cached = |parts, cfg: &CacheConfig| {
            Pager::new(plain_fan(parts), PagerConfig::default()).with_cache(WindowCache::new(cfg))
        };
        let asked = |p: &Pager<FanOut<FakeBackend>>| -> Vec<Vec<u32>> {
            p.backend()
                .members()
                .iter()
                .map(|m| m.backend.files_asked(&q()))
                .collect()
        };
        let all = corpus_of(7);
        let one = Pager::new(
            FakeBackend::new().with(&q(), all.clone()),
            PagerConfig::default(),
        );
        // A walk through the cache: the pages of one backend holding everything, from a few
        // merged answers (prefetches among them), each window asked of every backend alike.
        let three = cached(split(&all, 3), &CacheConfig::DEFAULT);
        let (a, b) = (walk(&one, &[7]).await, walk(&three, &[7]).await);
        assert_eq!(names(&a), names(&b));
        assert!(b.len() > 10, "{} pages", b.len());
        let windows = asked(&three);
        assert!(windows.iter().all(|w| *w == windows[0]), "{windows:?}");
        assert!(windows[0].len() <= 8, "{windows:?} for {} pages", b.len());
        let served = b.iter().filter(|p| p.zoekt_requests == 0).count();
        assert!(
            served * 2 > b.len(),
            "{served} of {} pages from the cache",
            b.len()
        );
        // Identical pages at once share one merged answer: each backend is asked once.
        let three = cached(
            split(&all, 3),
            &CacheConfig {
                cache_prefetch: 0,
                ..CacheConfig::DEFAULT
            },
        );
        for m in three.backend().members() {
            m.backend.slow(Duration::from_millis(50));
        }
        let args = LineArgs {
            query: TEXT.into(),
            limit: Some(30),
            ..Default::default()
        };
        let expected = one.page::<LineTool>(&args).await.expect("page").items;
        for page in pages_at_once(&three, &args, 16).await {
            assert_eq!(page.items, expected);
        }
        assert!(
            asked(&three).iter().all(|w| w.len() == 1),
            "{:?}",
            asked(&three)
        );
    }

    #[tokio::test]
    async fn each_backend_is_asked_one_file_past_the_window_and_the_merge_keeps_the_window() {
        // Each backend's lowest file is set aside (a boost may have left it in the place of
        // a better one: `without_lowest`), so each is asked for one file more than the
        // window, and what is left still fills it.
        let b = plain_fan(split(&corpus(), 2));
        let search = search_of(5);
        let merged = b.search(&search).await.unwrap();
        assert_eq!(merged.files.len(), 5, "exactly the window");
        for m in b.members() {
            assert_eq!(m.backend.files_asked(&q()), [6], "one more than the window");
        }
        // The merged window is the top 5 of everything.
        let mut all = corpus();
        all.sort_by(|x, y| y.score.total_cmp(&x.score));
        let fifth = all[4].score;
        assert!(merged.files.iter().all(|f| f.score >= fifth));
        assert_eq!(merged.stats.file_count, 90);
    }

    #[tokio::test]
    async fn a_search_for_every_file_asks_each_backend_for_every_file_and_keeps_them_all() {
        let b = plain_fan(split(&corpus(), 2));
        let search = search_of(0);
        let merged = b.search(&search).await.unwrap();
        for m in b.members() {
            assert_eq!(m.backend.files_asked(&q()), [0], "0 stays every file");
        }
        // Nothing set aside: an answer of every file has no boosted file to fear.
        assert_eq!(merged.files.len(), 90);
        assert_eq!(merged.stats.file_count, 90);

        // A backend away is missing from a search of every file too, never a full answer.
        b.members()[1]
            .backend
            .fail(BackendErrorKind::Unreachable, 0);
        let part = b.search(&search).await.unwrap();
        assert_eq!(part.stats.missing_backends, 0b10);
        let half = split(&corpus(), 2)[0].len();
        assert_eq!(part.files.len(), half);
        assert_eq!(part.stats.file_count, half as u64);
    }

    #[tokio::test]
    async fn a_file_on_two_backends_is_counted_once_and_names_them_both() {
        let halves = split(&corpus(), 2);
        let mut first = halves[0].clone();
        first.push(halves[1][0].clone());
        let b = plain_fan(vec![first, halves[1].clone()]);
        let search = search_of(0);
        let merged = b.search(&search).await.unwrap();
        assert_eq!(merged.files.len(), 90);
        assert_eq!(merged.stats.file_count, 90, "the copy is not counted");
        assert_eq!(merged.stats.shared_backends, 0b11);
        assert_eq!(merged.stats.missing_backends, 0);
    }

    #[tokio::test]
    async fn a_boosted_file_never_lets_a_tie_at_the_edge_pass_as_trusted() {
        // Backend a: 100, 99, 98, then two files tied at 95 listed worst key first (Zoekt's
        // tie order is arbitrary), and a .md file at 90 that the boost pulls up to third.
        // Asked for exactly the window (5), a would send the boosted file and ONE of the two
        // tied files: the merged window would then trust that one at 95, out of order.
        let f = |repo: &str, path: &str, score: f64| RankedFile {
            repo: repo.into(),
            path: path.into(),
            score,
            path_matched: true,
            ..Default::default()
        };
        let mut tied = [f("a", "t1.go", 95.0), f("a", "t2.go", 95.0)];
        tied.sort_by_key(|t| std::cmp::Reverse(file_key(&t.repo, &t.path, &t.branches)));
        let mut a = vec![
            f("a", "x.go", 100.0),
            f("a", "y.go", 99.0),
            f("a", "z.go", 98.0),
        ];
        a.extend(tied);
        a.push(f("a", "doc.md", 90.0));
        let b = vec![f("b", "w.go", 80.0)];
        let mut all = a.clone();
        all.extend(b.clone());
        let fan = FanOut::new(
            vec![
                ("a".to_string(), Boosting(FakeBackend::new().with(&q(), a))),
                ("b".to_string(), Boosting(FakeBackend::new().with(&q(), b))),
            ],
            false,
        )
        .unwrap();
        let one = Pager::new(
            Boosting(FakeBackend::new().with(&q(), all)),
            PagerConfig::default(),
        );
        let three = Pager::new(fan, PagerConfig::default());
        for limits in [&[4u32][..], &[1], &[2], &[3]] {
            let expected = names(&walk(&one, limits).await);
            assert_eq!(expected.len(), 7);
            assert_eq!(names(&walk(&three, limits).await), expected, "{limits:?}");
        }
    }

    #[tokio::test]
    async fn a_missing_backend_is_named_never_exact_and_the_walk_resumes_without_repeats() {
        let all = corpus();
        let three = Pager::new(fan(split(&all, 3), false), PagerConfig::default());
        three.backend().members()[1]
            .backend
            .0
            .fail(BackendErrorKind::Unreachable, 0);
        let args = |cursor: Option<String>| LineArgs {
            query: TEXT.into(),
            limit: Some(10),
            cursor,
            ..Default::default()
        };
        let first = three.page::<LineTool>(&args(None)).await.unwrap();
        assert_eq!(first.count, 10);
        assert!(!first.total.exact && !first.complete);
        assert!(
            first
                .warnings
                .contains(&crate::engine::warning::Warning::MissingBackends {
                    names: vec!["zoekt-1".into()]
                }),
            "{:?}",
            first.warnings
        );
        assert!(first.items.iter().all(|i| i.repo != "r1" && i.repo != "r4"));
        // Back again: the walk goes on from its cursor to the end, nothing served twice, and
        // every item after the last one served is there.
        three.backend().members()[1].backend.0.heal();
        let mut seen: Vec<String> = names(std::slice::from_ref(&first));
        let mut cursor = first.next_cursor.clone();
        while let Some(c) = cursor {
            let page = three.page::<LineTool>(&args(Some(c))).await.unwrap();
            assert!(
                page.warnings
                    .iter()
                    .all(|w| !format!("{w:?}").contains("zoekt-1"))
            );
            seen.extend(names(std::slice::from_ref(&page)));
            cursor = page.next_cursor.clone();
        }
        let unique: std::collections::HashSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "no item twice");
        let one = Pager::new(
            Boosting(FakeBackend::new().with(&q(), all.clone())),
            PagerConfig::default(),
        );
        let full = names(&walk(&one, &[100]).await);
        let last_first = full.iter().position(|n| *n == seen[9]).unwrap();
        assert_eq!(seen[10..], full[last_first + 1..]);
    }

    #[tokio::test]
    async fn require_all_fails_the_page_naming_the_backend() {
        let three = Pager::new(fan(split(&corpus(), 3), true), PagerConfig::default());
        three.backend().members()[2]
            .backend
            .0
            .fail(BackendErrorKind::Unreachable, 0);
        let e = first_page_error(&three).await;
        let text = e.to_string();
        assert!(text.contains("zoekt-2"), "{text}");
        assert!(matches!(
            e,
            crate::engine::error::Error::Backend(BackendError {
                kind: BackendErrorKind::Unreachable,
                ..
            })
        ));
    }

    #[tokio::test]
    async fn when_no_backend_answers_the_error_names_each_one() {
        let three = Pager::new(fan(split(&corpus(), 3), false), PagerConfig::default());
        for (i, m) in three.backend().members().iter().enumerate() {
            let kind = if i == 1 {
                BackendErrorKind::Timeout
            } else {
                BackendErrorKind::Unreachable
            };
            m.backend.0.fail(kind, 0);
        }
        let e = first_page_error(&three).await;
        let text = e.to_string();
        for name in ["zoekt-0", "zoekt-1", "zoekt-2"] {
            assert!(text.contains(&format!("{name}: ")), "{text}");
        }
    }

    #[tokio::test]
    async fn one_backend_is_passed_through_untouched() {
        let b = FanOut::new(
            vec![("only".to_string(), FakeBackend::new().with(&q(), corpus()))],
            false,
        )
        .unwrap();
        let search = search_of(5);
        b.search(&search).await.unwrap();
        assert_eq!(b.members()[0].backend.files_asked(&q()), [5]);
    }

    #[tokio::test]
    async fn a_listing_adds_the_backends_up_names_the_missing_and_counts_a_shared_repo_once() {
        let repo = |name: &str, documents| IndexedRepo {
            name: name.into(),
            documents,
            ..Default::default()
        };
        // Backends a, b, c, d; b also serves a's r2.
        let listed = [
            vec![repo("r1", 10), repo("r2", 20)],
            vec![repo("r2", 20), repo("r3", 30)],
            vec![repo("r4", 40)],
            vec![repo("r5", 50)],
        ];
        let members = listed
            .into_iter()
            .zip('a'..)
            .map(|(repos, name)| (name.to_string(), FakeBackend::new().with_repos(repos)))
            .collect();
        let fan = FanOut::new(members, false).unwrap();
        fan.members()[2]
            .backend
            .fail(BackendErrorKind::Unreachable, 0);
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        let mut names: Vec<&str> = listing.repos.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["r1", "r2", "r3", "r5"]);
        // r2 once in the repositories and the documents; every answering backend's shards.
        assert_eq!(listing.stats.repos, 4);
        assert_eq!(listing.stats.documents, 10 + 20 + 30 + 50);
        assert_eq!(listing.stats.shards, 2 + 2 + 1);
        assert_eq!(listing.stats.index_bytes, 5000);
        assert_eq!(listing.missing_backends, 0b100, "c did not answer");
        assert_eq!(
            listing.shared,
            [crate::engine::backend::SharedRepo {
                repo: "r2".into(),
                backends: 0b11,
            }],
            "r2 on a and b"
        );
    }
}
