//! What the end-to-end targets share: a backend that answers every search with one fixed set
//! of files (no Zoekt, no network), and a runtime to drive calls on.

use std::sync::LazyLock;

use serde_json::{Map, Value};
use zoekt_pager::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};
use zoekt_pager::{Pager, PagerConfig, PagerServer};

/// Answers every search with `files` and every listing with `repos`.
pub struct Fixed {
    pub files: RankedFiles,
    pub repos: RepoListing,
}

impl Backend for Fixed {
    async fn search(&self, _: &FileSearch) -> Result<RankedFiles, BackendError> {
        Ok(self.files.clone())
    }
    async fn repos(&self, _: &str, _: std::time::Duration) -> Result<RepoListing, BackendError> {
        Ok(self.repos.clone())
    }
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        Ok(Readiness {
            status: 200,
            detail: "ready".into(),
            loading: false,
        })
    }
}

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
});

/// Calls `tool` with `args` on a server over `backend`; every call must give a result.
pub fn call(backend: Fixed, tool: &str, args: Map<String, Value>) {
    let server = PagerServer::new(Pager::new(backend, PagerConfig::DEFAULT));
    RUNTIME.block_on(async {
        let result = server.call(tool, Some(args)).await;
        assert!(result.is_some(), "{tool} has no handler");
    });
}
