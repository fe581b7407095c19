//! A backend that keeps every search it is asked, so a bench knows which windows a page asked
//! and can ask the webserver for the same ones raw. Shared by the benches that compare a page
//! with raw Zoekt (`#[path]`-included: benches are separate crates).

use std::sync::Mutex;
use std::time::Duration;

use zoekt_pager::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};
use zoekt_pager::zoekt::ZoektClient;

/// A [`ZoektClient`] that keeps what it is asked.
pub struct Recording {
    /// The client that answers.
    pub client: ZoektClient,
    /// Every search asked since it was last taken.
    pub asked: Mutex<Vec<FileSearch>>,
}

impl Recording {
    /// A recording client around `client`.
    #[allow(dead_code)]
    pub fn new(client: ZoektClient) -> Recording {
        Recording {
            client,
            asked: Mutex::new(Vec::new()),
        }
    }

    /// The searches asked since the last call.
    #[allow(dead_code)]
    pub fn take(&self) -> Vec<FileSearch> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

impl Backend for Recording {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.asked.lock().unwrap().push(search.clone());
        Backend::search(&self.client, search).await
    }

    async fn repos(&self, query: &str, wall_time: Duration) -> Result<RepoListing, BackendError> {
        Backend::repos(&self.client, query, wall_time).await
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        Backend::readiness(&self.client).await
    }
}
