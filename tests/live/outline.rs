//! `outline_file` against the real zoekt-webserver serving the fixture corpus
//! (`ZOEKT_PAGER_LIVE_URL`), and a file named exactly (`read_file`, `outline_file`) on a
//! webserver started without `-rpc`. Expected answers come from raw Zoekt or from the facts of
//! `fixtures/README.md`, never from the code under test.

use crate::support;

use serde_json::json;
use support::mcp::*;

/// A file named by repository and exact path is found on a webserver without `-rpc` (no JSON
/// API): the query that names it must be one the pager parses for gRPC itself. Escapes such
/// as `\x{2e}` are left to Zoekt's own parser, over JSON, which such a webserver does not
/// serve: every `read_file` of a path with a dot was an error there.
#[tokio::test]
async fn a_file_named_exactly_is_found_without_rpc() {
    let own = support::OwnWebserver::for_test("a_file_named_exactly_is_found_without_rpc");
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
