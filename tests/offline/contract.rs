//! The paging contract where no Zoekt may be reached: a cursor past the paging ceiling is
//! refused before any request (wiremock counts that none is made). The contract against the
//! real Zoekt is `tests/live/contract.rs`.

use crate::support;

use support::ToolCalls;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};
use zoekt_pager::tool::Tool;
use zoekt_pager::tools::search_symbols::SearchSymbols;
use zoekt_pager::zoekt::query;
use zoekt_pager::{ErrorCode, PageArgs, PagerConfig, Position, RequestKey};

use support::pager_with;

/// The paging ceiling is enforced before any request: a huge cursor never reaches Zoekt.
/// (A fake: what is proven is that NO request is made, which wiremock counts.)
#[tokio::test]
async fn over_ceiling_cursor_never_reaches_zoekt() {
    let never = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .mount(&never)
        .await;
    let p = pager_with(
        &never.uri(),
        PagerConfig {
            max_offset: 50,
            ..PagerConfig::default()
        },
    );
    let key = RequestKey::new(
        SearchSymbols::SCOPE,
        &[&query::symbols_query("x").unwrap(), ""],
        &p.order_settings(),
    );
    let first = Position {
        section: 0,
        section_start: 0,
        earlier_cut: false,
        score: 1.0,
        file: 0,
        index: 0,
    };
    let e = p
        .symbols(
            "x",
            &[],
            &PageArgs {
                limit: Some(10),
                cursor: Some(key.cursor(51, &first)),
                ..PageArgs::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidCursor);
    never.verify().await;
}
