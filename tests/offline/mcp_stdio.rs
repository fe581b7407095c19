//! The MCP face over stdio where a real Zoekt cannot serve: the real `zoekt-pager serve`
//! binary driven by rmcp's client against stand-ins that are absent (a closed port), slow
//! (call deadlines and cancellation stop asking Zoekt), loading (an empty answer while shards
//! load), or slow to list; and a second request with an id in flight. The rest, against the
//! real Zoekt, is `tests/live/mcp_stdio.rs`.

use crate::support;

use serde_json::json;
use support::mcp::*;

/// Spawns `zoekt-pager serve` against `url` with its defaults and runs `initialize`.
async fn spawn(url: &str) -> Client {
    spawn_stdio(url, &[]).await
}

#[tokio::test]
async fn backend_down_is_a_tool_error_and_the_server_stays_up() {
    let client = spawn("http://127.0.0.1:9").await;
    let q = json!({"query": r"pagerItem\d+"});
    expect_error(&client, "search_symbols", q, "BACKEND_UNAVAILABLE").await;
    expect_error(&client, "list_repos", json!({}), "BACKEND_UNAVAILABLE").await;
    let tools = client
        .list_all_tools()
        .await
        .expect("tools/list after errors");
    assert_eq!(tools.len(), zoekt_pager::tools::names().len());
    client.cancel().await.unwrap();
}

/// The requests a stand-in Zoekt has received once no new one arrived for half a second:
/// what a dropped call asked, whatever the machine's load.
async fn settled_requests(zoekt: &wiremock::MockServer) -> usize {
    let mut seen = zoekt.received_requests().await.unwrap().len();
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let now = zoekt.received_requests().await.unwrap().len();
        if now == seen {
            return now;
        }
        seen = now;
    }
    panic!("the stand-in Zoekt kept receiving requests for 10 s ({seen})");
}

/// A call that outlives `--call-timeout-ms` ends with BACKEND_TIMEOUT at the deadline, and
/// the pager asks Zoekt nothing more for it.
#[tokio::test]
async fn a_call_past_its_deadline_ends_and_stops_asking_zoekt() {
    let zoekt = support::slow_zoekt_without_symbols(600).await;
    let client = spawn_stdio(
        &zoekt.uri(),
        &[
            ("ZOEKT_PAGER_CALL_TIMEOUT_MS", "1000"),
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            // A first page that takes a census asks for --max-window files at once: this
            // call must grow its window request by request.
            ("ZOEKT_PAGER_SUGGEST_FILTERS", "off"),
        ],
    )
    .await;
    let started = std::time::Instant::now();
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "x", "count_only": false}),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).starts_with("Error BACKEND_TIMEOUT"),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("--call-timeout-ms"), "{}", text(&r));
    assert!(took < std::time::Duration::from_millis(2_500), "{took:?}");
    // Requests start at about 0 and 600 ms; without the deadline, 8 would follow.
    let asked = settled_requests(&zoekt).await;
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let later = zoekt.received_requests().await.unwrap().len();
    assert!(
        (1..=3).contains(&asked),
        "{asked} requests before the deadline"
    );
    assert_eq!(later, asked, "requests after the call ended");
    client.cancel().await.unwrap();
}

/// Resource reads and listings keep the call deadline too: a file resource behind a Zoekt
/// that answers after 5 s is a JSON-RPC error naming --call-timeout-ms at the deadline.
#[tokio::test]
async fn resource_reads_end_at_the_call_deadline() {
    use rmcp::model::ReadResourceRequestParams;
    let zoekt = support::slow_zoekt_without_symbols(5_000).await;
    answer_lists_after_5_s(&zoekt).await;
    // The wall time would end the listing at 10 s; the call deadline comes first.
    let client = spawn_stdio(&zoekt.uri(), &[("ZOEKT_PAGER_CALL_TIMEOUT_MS", "300")]).await;
    let started = std::time::Instant::now();
    let err = client
        .read_resource(ReadResourceRequestParams::new("zoekt://r/f0.go"))
        .await
        .expect_err("past the deadline");
    let took = started.elapsed();
    assert!(err.to_string().contains("--call-timeout-ms"), "{err}");
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    let err = client
        .list_resources(None)
        .await
        .expect_err("past the deadline");
    assert!(err.to_string().contains("--call-timeout-ms"), "{err}");
    client.cancel().await.unwrap();
}

/// A call the client cancels (notifications/cancelled) is dropped with its Zoekt requests:
/// the pager asks nothing more, and the server goes on serving.
#[tokio::test]
async fn a_cancelled_call_stops_asking_zoekt() {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let zoekt = support::slow_zoekt_without_symbols(400).await;
    // Suggestions off: a first page that takes a census asks for --max-window files at once,
    // and this call must grow its window request by request.
    let client = spawn_stdio(
        &zoekt.uri(),
        &[
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            ("ZOEKT_PAGER_SUGGEST_FILTERS", "off"),
        ],
    )
    .await;
    let args = json!({"query": "x"}).as_object().cloned().unwrap();
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("search_symbols").with_arguments(args),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    handle
        .cancel(Some("the user moved on".into()))
        .await
        .unwrap();
    let asked = settled_requests(&zoekt).await;
    tokio::time::sleep(std::time::Duration::from_millis(2_000)).await;
    let later = zoekt.received_requests().await.unwrap().len();
    // Requests start about every 400 ms; uncancelled, the walk to --max-window makes 9.
    assert!(
        (2..=5).contains(&asked),
        "{asked} requests before the cancel"
    );
    assert_eq!(later, asked, "requests after the cancel");
    let tools = client
        .list_all_tools()
        .await
        .expect("the server still serves");
    assert!(!tools.is_empty());
    client.cancel().await.unwrap();
}

/// Right after a Zoekt start, shards are still loading: an empty answer then says nothing
/// about the query, so it is a retryable BACKEND_NOT_READY, never an empty last page with an
/// exact total of 0. A stand-in Zoekt reports the loading shard (a real one only does so for
/// a moment after it starts).
#[tokio::test]
async fn an_empty_answer_while_shards_load_is_not_ready() {
    use wiremock::{Mock, MockServer, ResponseTemplate, matchers};
    let zoekt = MockServer::start().await;
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"Result": {"FileCount": 0, "MatchCount": 0, "Crashes": 1, "Files": null}}),
        ))
        .mount(&zoekt)
        .await;
    let client = spawn_stdio(&zoekt.uri(), &[]).await;
    for (tool, args) in [
        ("search_symbols", json!({"query": "x"})),
        ("search", json!({"query": "x", "count_only": true})),
        ("find_references", json!({"symbol": "x"})),
        ("read_file", json!({"repo": "r", "path": "a.go"})),
    ] {
        expect_error(&client, tool, args, "BACKEND_NOT_READY").await;
    }
    client.cancel().await.unwrap();
}

/// Zoekt's list has no wall-time option, so the pager bounds a listing by the search wall
/// time itself: a list Zoekt answers only after 5 s ends at --max-wall-time-ms (here 300 ms)
/// as BACKEND_TIMEOUT, and `health`, which also lists, says the same without hanging.
/// A stand-in Zoekt: a real one cannot be made slow on demand.
#[tokio::test]
async fn a_slow_listing_ends_at_the_wall_time() {
    let zoekt = wiremock::MockServer::start().await;
    answer_lists_after_5_s(&zoekt).await;
    let client = spawn_stdio(&zoekt.uri(), &[("ZOEKT_PAGER_MAX_WALL_TIME_MS", "300")]).await;
    let started = std::time::Instant::now();
    let body = expect_error(
        &client,
        "list_repos",
        json!({"query": "(.*){1000}"}),
        "BACKEND_TIMEOUT",
    )
    .await;
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(3), "{took:?}: {body}");
    assert!(body.contains("300 ms"), "{body}");
    let started = std::time::Instant::now();
    let health = call(&client, "health", json!({})).await;
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(3),
        "health took {took:?}"
    );
    // Health still answers, and says the listing is what failed, and why.
    let said = text(&health);
    assert!(
        said.contains("listing repositories failed") && said.contains("300 ms"),
        "{said}"
    );
    assert_eq!(health.is_error, Some(false), "{said}");
    client.cancel().await.unwrap();
}

/// Makes the stand-in Zoekt answer /api/list (with no repositories) only after 5 s.
async fn answer_lists_after_5_s(zoekt: &wiremock::MockServer) {
    use wiremock::{Mock, ResponseTemplate, matchers};
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/list"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(std::time::Duration::from_secs(5))
                .set_body_json(json!({"List": {"Repos": [], "Crashes": 0}})),
        )
        .mount(zoekt)
        .await;
}

/// Two requests with the same id in flight at once: rmcp alone keeps one slot per id, so one
/// of the two answers was dropped and the client waited forever. The second now gets an
/// error of its own at once (-32600, with its id), the first its answer, and the id can be
/// used again afterwards. A stand-in Zoekt answers late, to keep the first call in flight.
#[tokio::test]
async fn a_second_request_with_an_id_in_flight_gets_its_own_error() {
    use wiremock::{Mock, MockServer, ResponseTemplate, matchers};
    let slow = MockServer::start().await;
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/search"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"Result": {"FileCount": 0, "MatchCount": 0, "Files": null}}))
                .set_delay(std::time::Duration::from_millis(1500)),
        )
        .mount(&slow)
        .await;
    // The slow stand-in speaks JSON.
    let mut server = support::raw_stdio::RawStdio::spawn(
        &slow.uri(),
        &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")],
    );
    server.initialize().await;
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
        "name": "search", "arguments": {"query": "anything"}}});
    let call = call.to_string();
    // Both at once, the second while the first waits on the slow stand-in.
    server.send(format!("{call}\n{call}").as_bytes()).await;
    let refused = server.reply().await;
    assert_eq!(refused["id"], json!(20), "{refused}");
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("id 20 is already in flight"),
        "{refused}"
    );
    let answered = server.reply().await;
    assert_eq!(answered["id"], json!(20), "{answered}");
    assert_eq!(
        flat_page(&answered["result"]["structuredContent"])["count"],
        json!(0),
        "{answered}"
    );
    // Answered, the id is free again.
    let again = server.exchange(call.as_bytes()).await;
    assert_eq!(again["id"], json!(20), "{again}");
    assert!(again["result"].is_object(), "{again}");
}
