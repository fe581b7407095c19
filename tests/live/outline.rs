//! `outline_file` against the real zoekt-webserver serving the fixture corpus
//! (`ZOEKT_PAGER_LIVE_URL`), and a file named exactly (`read_file`, `outline_file`) on a
//! webserver started without `-rpc`. Expected answers come from raw Zoekt or from the facts of
//! `fixtures/README.md`, never from the code under test.

use crate::support;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use support::mcp::*;
use support::oracle;

/// A file named by repository and exact path is found on a webserver without `-rpc` (no JSON
/// API): the query that names it must be one the pager parses for gRPC itself. Escapes such
/// as `\x{2e}` are left to Zoekt's own parser, over JSON, which such a webserver does not
/// serve: every `read_file` of a path with a dot was an error there.
#[tokio::test]
async fn a_file_named_exactly_is_found_without_rpc() {
    let own =
        support::webserver::OwnWebserver::for_test("a_file_named_exactly_is_found_without_rpc");
    let _running = own.start_without_rpc();
    own.wait_ready().await;
    let grpc = spawn_stdio(&own.url(), &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "grpc")]).await;
    // fixtures/corpus/alpha-rs/src/registry.rs: its first line, read from the file itself.
    let on_disk =
        std::fs::read_to_string(support::fixtures_corpus().join("alpha-rs/src/registry.rs"))
            .unwrap();
    let read = call(
        &grpc,
        "read_file",
        json!({"repo": "alpha-rs", "path": "src/registry.rs", "end_line": 1}),
    )
    .await;
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    let content = read.structured_content.as_ref().unwrap()["content"].clone();
    assert_eq!(
        content,
        json!(on_disk.lines().next().unwrap().to_string() + "\n")
    );
    grpc.cancel().await.unwrap();
}

/// `repo/path` of every file of the fixture corpus that holds a symbol, with its symbols as
/// raw Zoekt gives them: (line, name), sorted.
async fn raw_symbols_by_file(url: &str) -> BTreeMap<(String, String), Vec<(u32, String)>> {
    let mut by_file: BTreeMap<(String, String), Vec<(u32, String)>> = BTreeMap::new();
    for (repo, path, line, name) in oracle::symbols(url, "sym:.").await {
        by_file.entry((repo, path)).or_default().push((line, name));
    }
    by_file.values_mut().for_each(|symbols| symbols.sort());
    by_file
}

/// (line, name) of outline items, sorted.
fn by_position(items: &[Value]) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = items
        .iter()
        .map(|i| {
            (
                i["line"].as_u64().unwrap() as u32,
                i["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every file of the corpus with symbols: its outline holds exactly the symbols raw Zoekt
/// finds in it (none lost, none twice, none extra), in tree order (a child after its parent,
/// a depth at most one more than the item before), each page valid against the schema.
#[tokio::test]
async fn every_outline_holds_the_files_symbols_once_in_tree_order() {
    let url = support::fixture_zoekt("every_outline_holds_the_files_symbols_once_in_tree_order");
    let client = spawn_stdio(&url, &[]).await;
    let truth = raw_symbols_by_file(&url).await;
    // fixtures/README.md: 319 ctags tags in all, some from package.json and tsconfig.json.
    assert!(truth.len() > 50, "{} files with symbols", truth.len());
    for ((repo, path), symbols) in &truth {
        let pages = walk(
            &client,
            "outline_file",
            json!({"repo": repo, "path": path}),
            &[100],
        )
        .await;
        let items = page_items(&pages);
        assert_eq!(unique(&items), items.len(), "{repo}/{path}: an item twice");
        assert_eq!(&by_position(&items), symbols, "{repo}/{path}");
        let mut depth = 0;
        for (n, i) in items.iter().enumerate() {
            let d = i["depth"].as_u64().unwrap();
            assert!(
                d == 0 || (n > 0 && d <= depth + 1),
                "{repo}/{path}: {items:#?}"
            );
            depth = d;
        }
    }
    client.cancel().await.unwrap();
}

/// `alpha-rs/src/registry.rs` (fixtures/README.md, section 2): 46 tags, `struct Registry`
/// with its field `base`, and `implementation Registry` holding 43 methods. Its outline
/// equals what search_symbols finds for the file, and paging it at any limit gives the same
/// items, none twice; its source lines come on request, as the file holds them.
#[tokio::test]
async fn the_registry_outline_is_the_fixtures_tree_at_any_limit() {
    let url = support::fixture_zoekt("the_registry_outline_is_the_fixtures_tree_at_any_limit");
    let client = spawn_stdio(&url, &[]).await;
    let args = json!({"repo": "alpha-rs", "path": "src/registry.rs"});
    let whole = page_items(&walk(&client, "outline_file", args.clone(), &[100]).await);
    assert_eq!(whole.len(), 46);
    let shape: Vec<(u64, &str, &str)> = whole
        .iter()
        .map(|i| {
            (
                i["depth"].as_u64().unwrap(),
                i["kind"].as_str().unwrap(),
                i["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shape[..4],
        [
            (0, "struct", "Registry"),
            (1, "field", "base"),
            (0, "implementation", "Registry"),
            (1, "method", "new"),
        ]
    );
    assert_eq!(
        shape[3..]
            .iter()
            .filter(|s| s.0 == 1 && s.1 == "method")
            .count(),
        43
    );
    // The same symbols as search_symbols finds for the file.
    let symbols = page_items(
        &walk(
            &client,
            "search_symbols",
            json!({"query": r". file:^src/registry\.rs$ repo:^alpha-rs$"}),
            &[100],
        )
        .await,
    );
    let mut found: Vec<(u32, String)> = symbol_keys(&symbols)
        .into_iter()
        .map(|(_, _, line, name)| (line, name))
        .collect();
    found.sort();
    assert_eq!(by_position(&whole), found);
    // Any limits, changed mid-walk: the same items in the same order.
    for limits in [&[1][..], &[7], &[20, 3, 50]] {
        let items = page_items(&walk(&client, "outline_file", args.clone(), limits).await);
        assert_eq!(items, whole, "at limits {limits:?}");
    }
    // count_only counts them.
    let counted = call(
        &client,
        "outline_file",
        json!({"repo": "alpha-rs", "path": "src/registry.rs", "count_only": true}),
    )
    .await;
    assert_eq!(counted.structured_content.unwrap()["total"], json!(46));
    // Source lines only when asked, and then the file's own lines.
    assert!(whole.iter().all(|i| i.get("text").is_none()));
    let on_disk =
        std::fs::read_to_string(support::fixtures_corpus().join("alpha-rs/src/registry.rs"))
            .unwrap();
    let lines: Vec<&str> = on_disk.lines().collect();
    let shown = page_items(
        &walk(
            &client,
            "outline_file",
            json!({"repo": "alpha-rs", "path": "src/registry.rs", "source": true}),
            &[100],
        )
        .await,
    );
    for i in &shown {
        let line = lines[i["line"].as_u64().unwrap() as usize - 1].trim();
        assert_eq!(i["text"].as_str().unwrap(), line, "{i}");
    }
    client.cancel().await.unwrap();
}

/// A file that is not there is NOT_FOUND (names are exact and case-sensitive); a file the
/// index holds no symbols for is an empty page that says so, in both forms, and is not
/// NOT_FOUND. Which file has no symbols is raw Zoekt's answer: there by name, none by `sym:`.
#[tokio::test]
async fn a_missing_file_is_not_found_and_one_without_symbols_says_so() {
    let url = support::fixture_zoekt("a_missing_file_is_not_found_and_one_without_symbols_says_so");
    let client = spawn_stdio(&url, &[]).await;
    for (repo, path) in [
        ("alpha-rs", "src/missing.rs"),
        ("alpha-rs", "src/Registry.rs"),
        ("alpha-r", "src/registry.rs"),
        ("alpha-rs", "src/registry.r"),
    ] {
        let said = expect_error(
            &client,
            "outline_file",
            json!({"repo": repo, "path": path}),
            "NOT_FOUND",
        )
        .await;
        assert!(said.contains(path), "{said}");
    }
    let (repo, path) = ("beta-go", "go.mod");
    assert_eq!(
        oracle::file_names(&url, r"case:yes r:^beta-go$ f:^go\.mod$").await,
        [(repo.to_string(), path.to_string())]
    );
    assert!(
        oracle::symbols(&url, r"case:yes r:^beta-go$ f:^go\.mod$ sym:.")
            .await
            .is_empty()
    );
    let r = call(&client, "outline_file", json!({"repo": repo, "path": path})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let sc = r.structured_content.clone().unwrap();
    assert_eq!(sc["total"], json!(0));
    assert!(sc.get("files").is_none(), "{sc}");
    let warning = sc["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("beta-go/go.mod") && warning.contains("holds no symbols for it"),
        "{warning}"
    );
    assert!(
        text(&r).contains(&format!("Warning: {warning}")),
        "{}",
        text(&r)
    );
    // A file with symbols carries no such warning.
    let r = call(
        &client,
        "outline_file",
        json!({"repo": "alpha-rs", "path": "src/registry.rs", "limit": 1}),
    )
    .await;
    assert!(r.structured_content.unwrap().get("warnings").is_none());
    client.cancel().await.unwrap();
}
