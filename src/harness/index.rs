//! What the backend says of its index across the seam, in the form a recording keeps it:
//! the serde mirrors of `RepoListing` and `Readiness`, converted both ways by destructuring
//! every field (see [`super::calls`] for why).

use serde::{Deserialize, Serialize};

use super::answers::is_zero;
use super::mirror::mirror;
use crate::engine::backend::{IndexStats, IndexedRepo, Readiness, RepoListing, SharedRepo};

/// [`RepoListing`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repos {
    /// The repositories.
    pub repos: Vec<Repo>,
    /// Shards crashed or loading.
    pub crashes: u64,
    /// Totals over the index.
    pub stats: Totals,
    /// Fan-out backends that did not answer (a bit each).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub missing_backends: u64,
    /// Repositories a fan-out found on two backends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<Shared>,
}

/// [`SharedRepo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    /// The repository.
    pub repo: String,
    /// The backends serving it (a bit each).
    pub backends: u64,
}

/// [`IndexStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// Repositories.
    pub repos: u64,
    /// Documents.
    pub documents: u64,
    /// Shards.
    pub shards: u64,
    /// Bytes of index on disk.
    pub index_bytes: u64,
}

/// [`IndexedRepo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repo {
    /// Repository name.
    pub name: String,
    /// Indexed documents.
    pub documents: u64,
    /// Indexed with symbols.
    pub has_symbols: bool,
    /// When it was indexed, normalised (see `recorder`).
    #[serde(default)]
    pub index_time: String,
    /// Indexed branches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
    /// Version of the indexer.
    #[serde(default)]
    pub indexer_version: String,
}

/// [`Readiness`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ready {
    /// HTTP status of the probe.
    pub status: u16,
    /// What the backend said.
    pub detail: String,
    /// Its own probe said it is loading.
    pub loading: bool,
}

mirror!(RepoListing <=> Repos {
    repos: each,
    crashes,
    stats: into,
    missing_backends,
    shared: each,
});
mirror!(SharedRepo <=> Shared { repo, backends });
mirror!(IndexStats <=> Totals {
    repos,
    documents,
    shards,
    index_bytes,
});
mirror!(IndexedRepo <=> Repo {
    name,
    documents,
    has_symbols,
    index_time,
    branches,
    indexer_version,
});
mirror!(Readiness <=> Ready { status, detail, loading });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_a_listing_and_a_readiness_survives_the_file() {
        let listing = RepoListing {
            repos: vec![IndexedRepo {
                name: "r".into(),
                documents: 9,
                has_symbols: true,
                index_time: "t".into(),
                branches: vec!["main".into()],
                indexer_version: "v".into(),
            }],
            crashes: 1,
            stats: IndexStats {
                repos: 1,
                documents: 2,
                shards: 3,
                index_bytes: 4,
            },
            missing_backends: 2,
            shared: vec![SharedRepo {
                repo: "r".into(),
                backends: 3,
            }],
        };
        let text = serde_json::to_string(&Repos::from(&listing)).unwrap();
        let back: Repos = serde_json::from_str(&text).unwrap();
        assert_eq!(RepoListing::from(&back), listing);

        let ready = Readiness {
            status: 503,
            detail: "loading".into(),
            loading: true,
        };
        let text = serde_json::to_string(&Ready::from(&ready)).unwrap();
        let back: Ready = serde_json::from_str(&text).unwrap();
        assert_eq!(Readiness::from(&back), ready);
    }
}
