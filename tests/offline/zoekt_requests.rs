//! The exact request `read_file` sends (anchored, escaped, whole), and that the version of a
//! file it reads is chosen the same way every time, seen through a wiremock stand-in. The
//! requests pages send to the real Zoekt are `tests/live/zoekt_requests.rs`.

use crate::support;

use serde_json::Value;
use zoekt_pager::tools::read_file;

fn opt(v: &Value, k: &str) -> u64 {
    v["Opts"][k].as_u64().unwrap_or(0)
}

/// read_file asks for one anchored, escaped, case-sensitive file with Whole; and when Zoekt
/// returns several versions (branches with different content) in either order, it always
/// reads the same one. Several versions need a git index with branches: wiremock stands in.
#[tokio::test]
async fn read_file_request_is_exact_and_the_version_is_stable() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let b64 = |s: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(s)
    };
    let version = |branch: &str, text: &str| {
        serde_json::json!({"FileName": "src/a b.rs", "Repository": "r-x", "Language": "Rust",
            "Branches": [branch], "Content": b64(text), "LineMatches": null})
    };
    let (main, release) = (
        version("main", "main 1\nmain 2\n"),
        version("release", "rel 1\n"),
    );
    let zoekt = MockServer::start().await;
    for files in [vec![release.clone(), main.clone()], vec![main, release]] {
        Mock::given(method("POST"))
            .and(path("/api/search"))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                serde_json::json!({"Result": {"FileCount": 2, "MatchCount": 2, "Files": files}}),
            ))
            .up_to_n_times(1)
            .mount(&zoekt)
            .await;
    }
    let p = support::pager(&zoekt.uri());
    for _ in 0..2 {
        let f = read_file::read_file(&p, "r-x", "src/a b.rs", None, None)
            .await
            .unwrap();
        assert_eq!(
            (f.content.as_str(), f.branches.clone()),
            ("main 1\nmain 2\n", vec!["main".to_string()])
        );
    }
    let reqs = zoekt.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(body["Q"], r"case:yes repo:^r-x$ file:^src/a\ b\.rs$");
    assert_eq!(body["Opts"]["Whole"], true);
    assert_eq!(opt(&body, "MaxDocDisplayCount"), 4);
}
