//! The typed Zoekt client against the real, pinned Zoekt: symbol information, file-name
//! matches, Zoekt's own query errors, the repository list and readiness. What a real Zoekt
//! cannot be made to do on demand is `tests/offline/zoekt_client.rs`.

use crate::support;

use zoekt_pager::zoekt::ZoektError;
use zoekt_pager::zoekt::wire::{SearchOptions, SearchRequest};

fn req(q: &str) -> SearchRequest {
    SearchRequest {
        q: q.to_string(),
        opts: SearchOptions {
            max_doc_display_count: 50,
            shard_max_match_count: 10_000,
            total_max_match_count: 100_000,
            ..Default::default()
        },
    }
}

// ---- against the real Zoekt on fixtures/corpus ----

macro_rules! against_zoekt {
    ($check:ident) => {
        mod $check {
            #[tokio::test]
            async fn live() {
                let url = super::support::fixture_zoekt(stringify!($check));
                super::$check(&url).await;
            }
        }
    };
}

async fn sym_query_carries_symbol_info(url: &str) {
    let r = support::client(url)
        .search(&req(r"sym:pagerItem00\d"))
        .await
        .unwrap();
    assert!(r.file_count > 0 && r.match_count > 0, "{r:?}");
    let infos: Vec<_> = r
        .files
        .iter()
        .flat_map(|f| &f.line_matches)
        .flat_map(|l| &l.line_fragments)
        .filter_map(|f| f.symbol_info.as_ref())
        .collect();
    assert!(!infos.is_empty());
    assert!(
        infos
            .iter()
            .all(|s| s.sym.starts_with("pagerItem00") && !s.kind.is_empty())
    );
    assert!(
        infos.iter().any(|s| !s.parent.is_empty()),
        "a method has a parent: {infos:?}"
    );
}
against_zoekt!(sym_query_carries_symbol_info);

async fn file_query_gives_file_name_matches(url: &str) {
    let r = support::client(url)
        .search(&req("file:widgetry"))
        .await
        .unwrap();
    assert_eq!(r.files.len(), 4);
    for f in &r.files {
        assert!(
            f.line_matches
                .iter()
                .all(|l| l.file_name && l.line_number == 0),
            "{f:?}"
        );
    }
}
against_zoekt!(file_query_gives_file_name_matches);

async fn broken_regex_is_a_query_error_with_zoekts_text(url: &str) {
    let e = support::client(url).search(&req("foo(")).await.unwrap_err();
    match e {
        ZoektError::Query { message } => assert!(message.contains("regexp"), "{message}"),
        other => panic!("expected a query error, got {other:?}"),
    }
}
against_zoekt!(broken_regex_is_a_query_error_with_zoekts_text);

async fn list_has_every_corpus_repo_with_symbols(url: &str) {
    let list = support::client(url)
        .list("", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let mut names: Vec<_> = list
        .repos
        .iter()
        .map(|r| r.repository.name.clone())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"]
    );
    assert!(list.repos.iter().all(|r| r.repository.has_symbols));
}
against_zoekt!(list_has_every_corpus_repo_with_symbols);

async fn readiness_is_reported(url: &str) {
    let c = support::client(url);
    assert!(c.readyz().await.unwrap().is_ready());
    c.healthz().await.unwrap();
}
against_zoekt!(readiness_is_reported);
