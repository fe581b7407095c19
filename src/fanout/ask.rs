//! Every backend of a fan-out asked at once, each on its own task, but those resting after a
//! search timed out: they give an error saying so without being asked, so that a webserver
//! that hangs costs no page the request timeout (`rest.rs`).

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use super::fan::FanOut;
use super::rest::Member;
use crate::engine::backend::{Backend, BackendError, BackendErrorKind};

impl<B: Backend> FanOut<B> {
    /// Every backend asked at once, but those left out after a search timed out, which give
    /// an error saying so without being asked; when all would be left out, all are asked.
    /// With `searching`, what each backend asked did starts or ends its rest: searches only,
    /// whose time Zoekt bounds itself (`MaxWallTime`, below the request timeout), so a
    /// timeout there means a webserver that does not answer. A listing's timeout is its
    /// wall time, which a big index may just need.
    pub(super) async fn ask<T, F, Fut>(
        &self,
        searching: bool,
        call: F,
    ) -> Vec<Result<T, BackendError>>
    where
        T: Send + 'static,
        F: Fn(Arc<B>) -> Fut,
        Fut: Future<Output = Result<T, BackendError>> + Send + 'static,
    {
        let started = Instant::now();
        let resting = !self.rest_for.is_zero();
        let mut left_out: Vec<Option<BackendError>> = self
            .members
            .iter()
            .map(|m| {
                resting
                    .then(|| m.left_out(started, self.rest_for, searching))
                    .flatten()
            })
            .collect();
        if left_out.iter().all(Option::is_some) {
            // Nothing else to serve from: better to wait for them than to fail unasked.
            left_out.fill(None);
        }
        let asked: Vec<bool> = left_out.iter().map(Option::is_none).collect();
        let answers = each(&self.members, left_out, call).await;
        if searching && resting {
            let took = started.elapsed();
            for ((m, answer), asked) in self.members.iter().zip(&answers).zip(asked) {
                if asked {
                    m.searched(answer, took, self.rest_for);
                }
            }
        }
        answers
    }
}

/// Runs `call` on every backend at once, each on its own task (decoding answers is CPU work
/// that must not queue behind another backend's), and gives the outputs in backend order;
/// a backend with an error in `instead` (one entry per backend) is not asked and
/// gives that error. Dropping the future (a cancelled call) aborts the tasks.
pub(super) async fn each<B, T, F, Fut>(
    members: &[Member<B>],
    instead: Vec<Option<BackendError>>,
    call: F,
) -> Vec<Result<T, BackendError>>
where
    B: Backend,
    T: Send + 'static,
    F: Fn(Arc<B>) -> Fut,
    Fut: Future<Output = Result<T, BackendError>> + Send + 'static,
{
    struct AbortOnDrop<T>(Vec<tokio::task::JoinHandle<T>>);
    impl<T> Drop for AbortOnDrop<T> {
        fn drop(&mut self) {
            for h in &self.0 {
                h.abort();
            }
        }
    }
    debug_assert_eq!(instead.len(), members.len());
    let mut tasks = AbortOnDrop(
        members
            .iter()
            .zip(&instead)
            .filter(|(_, given)| given.is_none())
            .map(|(m, _)| tokio::spawn(call(Arc::clone(&m.backend))))
            .collect(),
    );
    let mut asked = tasks.0.iter_mut();
    let mut out = Vec::with_capacity(members.len());
    for given in instead {
        out.push(match given {
            Some(e) => Err(e),
            None => match asked.next().expect("a task for every backend asked").await {
                Ok(r) => r,
                Err(e) => Err(BackendError {
                    kind: BackendErrorKind::ServerError,
                    message: format!("the request task failed: {e}"),
                    files_within: None,
                }),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::engine::Pager;
    use crate::engine::backend::{Backend, BackendErrorKind, SearchStats};
    use crate::engine::config::PagerConfig;
    use crate::engine::testing::{FakeBackend, LineArgs, LineTool};
    use crate::fanout::testing::{
        TEXT, corpus, fan, first_page_error, missing, plain_fan, q, search_of, split,
    };

    #[tokio::test]
    async fn a_backend_that_timed_out_is_left_out_then_one_search_tries_it_again() {
        let rest = Duration::from_millis(300);
        let fan = plain_fan(split(&corpus(), 3)).resting_after_timeout(rest);
        let (b, c) = (&fan.members()[1].backend, &fan.members()[2].backend);
        b.fail(BackendErrorKind::Timeout, 0);
        c.fail(BackendErrorKind::Unreachable, 0);
        let asked = |m: &FakeBackend| m.files_asked(&q()).len();
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!((asked(b), asked(c)), (1, 1));
        // Within the rest, b is missing at once, without being asked; c (it failed at once)
        // is asked each time. A listing leaves b out alike.
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!((asked(b), asked(c)), (1, 2));
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        assert_eq!(listing.missing_backends, 0b110);
        // /readyz names it, whatever its own readiness says.
        let ready = fan.readiness().await.unwrap();
        assert!(
            ready.detail.contains("b (its searches timed out"),
            "{}",
            ready.detail
        );
        // Once the rest is over, one search tries it (slow now); a search meanwhile still
        // leaves it out, and the try timing out again starts another rest.
        tokio::time::sleep(rest).await;
        b.slow(Duration::from_millis(200));
        let ten = search_of(10);
        let trying = fan.search(&ten);
        let meanwhile = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            missing(&fan).await
        };
        let (tried, meanwhile) = tokio::join!(trying, meanwhile);
        assert_eq!(tried.unwrap().stats.missing_backends, 0b110);
        assert_eq!(meanwhile, 0b110);
        assert_eq!(asked(b), 2, "asked once, by the search that tried it");
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!(asked(b), 2, "resting again");
        // Back: the next try after the rest finds it, and every search asks it from then on.
        b.heal();
        b.slow(Duration::ZERO);
        c.heal();
        tokio::time::sleep(rest).await;
        assert_eq!(missing(&fan).await, 0);
        assert_eq!(missing(&fan).await, 0);
        assert_eq!(asked(b), 4);
        // A listing after a rest asks the backend but does not take the search's turn to
        // try it: the first search after it still asks it.
        b.fail(BackendErrorKind::Timeout, 0);
        assert_eq!(missing(&fan).await, 0b010);
        b.heal();
        tokio::time::sleep(rest).await;
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        assert_eq!(listing.missing_backends, 0);
        assert_eq!(
            missing(&fan).await,
            0,
            "the search after the listing asks it"
        );
        // A listing that times out starts no rest: its time is what a big index may need.
        let a = &fan.members()[0].backend;
        a.fail(BackendErrorKind::Timeout, 0);
        fan.repos("", Duration::from_secs(1)).await.unwrap();
        a.heal();
        assert_eq!(missing(&fan).await, 0);
    }

    /// A backend resting after a timeout makes the fan-out not ready, but loads no shards:
    /// an answer from another with a shard crashed for good (its Zoekt ready) is still a
    /// page, served without the resting one and saying both, not the retryable NotReady.
    #[tokio::test]
    async fn a_resting_backend_is_not_taken_for_shards_still_loading() {
        let fan = plain_fan(split(&corpus(), 3));
        let (a, b) = (&fan.members()[0].backend, &fan.members()[1].backend);
        b.fail(BackendErrorKind::Timeout, 0);
        assert_eq!(missing(&fan).await, 0b010, "b timed out: it rests");
        a.set_ready(true);
        a.cut(
            &q(),
            SearchStats {
                crashes: 1,
                ..Default::default()
            },
        );
        assert!(!fan.readiness().await.unwrap().is_ready(), "b rests");
        let p = Pager::new(fan, PagerConfig::default());
        let page = p
            .page::<LineTool>(&LineArgs {
                query: TEXT.into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(page.count > 0 && !page.complete, "{page:?}");
        use crate::engine::warning::Warning;
        assert!(
            page.warnings.contains(&Warning::Crashed { shards: 1 })
                && page.warnings.contains(&Warning::MissingBackends {
                    names: vec!["b".into()]
                }),
            "{:?}",
            page.warnings
        );
    }

    #[tokio::test]
    async fn when_every_backend_rests_they_are_all_asked() {
        let fan = plain_fan(split(&corpus(), 2));
        for m in fan.members() {
            m.backend.fail(BackendErrorKind::Timeout, 0);
        }
        fan.search(&search_of(10)).await.unwrap_err();
        for m in fan.members() {
            m.backend.heal();
        }
        assert_eq!(missing(&fan).await, 0);
    }

    #[tokio::test]
    async fn without_a_rest_a_backend_that_timed_out_is_asked_every_time() {
        let fan = plain_fan(split(&corpus(), 3)).resting_after_timeout(Duration::ZERO);
        let b = &fan.members()[1].backend;
        b.fail(BackendErrorKind::Timeout, 0);
        fan.search(&search_of(10)).await.unwrap();
        fan.search(&search_of(10)).await.unwrap();
        assert_eq!(b.files_asked(&q()).len(), 2);
    }

    #[tokio::test]
    async fn a_resting_backend_fails_a_page_at_once_when_every_backend_is_required() {
        let three = Pager::new(fan(split(&corpus(), 3), true), PagerConfig::default());
        three.backend().members()[0]
            .backend
            .0
            .fail(BackendErrorKind::Timeout, 0);
        let e = first_page_error(&three).await.to_string();
        assert!(e.contains("zoekt-0"), "{e}");
        let again = first_page_error(&three).await.to_string();
        assert!(
            again.contains("zoekt-0") && again.contains("left out for now"),
            "{again}"
        );
    }
}
