//! A fan-out's readiness: one of every backend's, each asked at once (a resting one too: a
//! probe is cheap), so that one that hangs or is loading is named among the others' answers
//! rather than hiding them all.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use super::ask::each;
use super::fan::FanOut;
use crate::engine::backend::{Backend, BackendError, Readiness};

impl<B: Backend> FanOut<B> {
    /// Readiness as `ask` gives it from each backend (one backend's own, passed through).
    pub(super) async fn readiness_by<F, Fut>(&self, ask: F) -> Result<Readiness, BackendError>
    where
        F: Fn(Arc<B>) -> Fut,
        Fut: Future<Output = Result<Readiness, BackendError>> + Send + 'static,
    {
        if let [only] = self.members.as_slice() {
            return ask(Arc::clone(&only.backend)).await;
        }
        let none_left_out = self.members.iter().map(|_| None).collect();
        let answers = each(&self.members, none_left_out, ask).await;
        self.readiness_of_all(answers)
    }

    /// One readiness of every backend's: ready when all are, otherwise the reason naming
    /// each one that is not (or that did not answer). An error only when none answered. A
    /// backend left out of searches after a timeout is not ready either, whatever its
    /// `/readyz` says: pages go without it (a webserver whose searches hang may still
    /// answer its cheap probe).
    fn readiness_of_all(
        &self,
        answers: Vec<Result<Readiness, BackendError>>,
    ) -> Result<Readiness, BackendError> {
        let mut not_ready = Vec::new();
        let mut failures = Vec::new();
        let mut loading = false;
        for (i, answer) in answers.into_iter().enumerate() {
            let name = &self.members[i].name;
            let resting = self.members[i].resting_for(Instant::now());
            match answer {
                Ok(r) if r.is_ready() => {
                    if let Some(left) = resting {
                        not_ready.push(format!(
                            "{name} (its searches timed out: left out of pages for another {} s)",
                            left.as_secs().max(1)
                        ));
                    }
                }
                Ok(r) => {
                    loading |= r.loading;
                    not_ready.push(format!("{name} (HTTP {}: {})", r.status, r.detail));
                }
                Err(e) => {
                    not_ready.push(format!("{name} ({})", e.message));
                    failures.push((i, e));
                }
            }
        }
        if failures.len() == self.members.len() {
            // Nothing answered at all: an error, as a single backend's is.
            return Err(self.every_one_failed(failures));
        }
        Ok(if not_ready.is_empty() {
            Readiness {
                status: 200,
                detail: format!("all {} backends ready", self.members.len()),
                loading,
            }
        } else {
            Readiness {
                status: 503,
                detail: format!(
                    "{} of {} backends not ready: {}",
                    not_ready.len(),
                    self.members.len(),
                    not_ready.join("; ")
                ),
                loading,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::engine::backend::Backend;
    use crate::fanout::testing::{corpus, plain_fan, split};

    #[tokio::test]
    async fn readiness_names_a_backend_that_hangs_among_those_that_answer() {
        let fan = plain_fan(split(&corpus(), 3));
        fan.members()[1].backend.slow(Duration::from_secs(30));
        fan.members()[2].backend.set_ready(false);
        let started = std::time::Instant::now();
        let r = fan
            .readiness_within(Duration::from_millis(100))
            .await
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "waited for the hung one"
        );
        assert_eq!(r.status, 503);
        assert!(
            r.detail.starts_with("2 of 3 backends not ready"),
            "{}",
            r.detail
        );
        assert!(
            r.detail.contains("b (Zoekt did not answer within 100 ms)")
                && r.detail.contains("c (HTTP 503"),
            "{}",
            r.detail
        );
        assert!(!r.detail.contains("a ("), "{}", r.detail);
    }
}
