//! The call path: one tool call from its JSON arguments to an MCP result. Parses the
//! arguments, asks the engine (or the tool), renders the page or the answer as text with
//! its structured content, and says how the call ended for the metrics. The router that
//! picks the handler by tool name is `mcp/mod.rs`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::form;
use crate::metrics::Metrics;
use crate::tools::error::{self as errors, ErrorCode, ToolError, error_text};
use crate::tools::{AnswerTool, PagedTool};

/// The log target of a call's lines: the MCP layer's, as before the call path had a file of
/// its own (a filter or a log reader that names `zoekt_pager::mcp` still sees them).
const LOG_TARGET: &str = "zoekt_pager::mcp";

/// How a call ended, for metrics: `Ok(Some((items, requests)))` a page of that many items
/// that made that many Zoekt requests, `Ok(None)` another successful answer, `Err(code)` a
/// tool error.
pub(crate) type Outcome = Result<Option<(usize, u32)>, ErrorCode>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Runs one call of one tool: parses the arguments, calls the engine, renders.
pub(crate) type Handler<B> = fn(Arc<Pager<B>>, Value) -> BoxFuture<(CallToolResult, Outcome)>;

/// Parses arguments, runs the page, renders the result or the error.
pub(crate) async fn page_call<T: PagedTool, B: Backend>(
    pager: Arc<Pager<B>>,
    args: Value,
) -> (CallToolResult, Outcome) {
    let started = std::time::Instant::now();
    let served = async {
        let parsed: T::Args = parse_args(T::NAME, args)?;
        let page = pager
            .page::<T>(&parsed)
            .await
            .map_err(|e| ToolError::from(&e))?;
        let budget = pager.config().page_chars();
        Ok(form::show::<T>(T::NAME, &parsed, page, budget))
    };
    match served.await {
        Ok(form::Shown {
            page,
            text,
            structured,
            ..
        }) => {
            tracing::info!(
                target: LOG_TARGET,
                tool = T::NAME,
                items = page.count,
                offset = page.offset,
                has_more = page.has_more,
                complete = page.complete,
                zoekt_requests = page.zoekt_requests,
                ms = started.elapsed().as_millis() as u64,
                "page served"
            );
            let outcome = (page.count, page.zoekt_requests);
            (success(text, &structured), Ok(Some(outcome)))
        }
        Err(e) => failure(T::NAME, &e),
    }
}

/// Like [`page_call`], for tools that answer with one value rather than a page.
pub(crate) async fn answer_call<T: AnswerTool, B: Backend>(
    pager: Arc<Pager<B>>,
    args: Value,
) -> (CallToolResult, Outcome) {
    let started = std::time::Instant::now();
    let answered = async {
        let parsed: T::Args = parse_args(T::NAME, args)?;
        T::answer(&pager, &parsed)
            .await
            .map_err(|e| ToolError::from(&e))
    };
    match answered.await {
        Ok(value) => {
            tracing::info!(
                target: LOG_TARGET,
                tool = T::NAME,
                ms = started.elapsed().as_millis() as u64,
                "answer served"
            );
            (success(T::text(&value), &value), Ok(None))
        }
        Err(e) => failure(T::NAME, &e),
    }
}

/// Counts one finished call: `ok`, or its error code. What a code is, is decided here; the
/// metrics take plain labels.
pub(crate) fn count_call(metrics: &Metrics, tool: &str, error: Option<ErrorCode>) {
    metrics.tool_call(tool, error.map_or("ok", ErrorCode::as_str));
    if let Some(code) = error {
        count_error(metrics, code);
    }
}

/// Counts what an error says besides the call it ended: a refused cursor, of a tool call or
/// of a resource list alike. The one place cursor errors are counted.
pub(crate) fn count_error(metrics: &Metrics, code: ErrorCode) {
    if code.is_cursor_error() {
        metrics.cursor_error(code.as_str());
    }
}

/// The one place arguments are parsed: a mismatch with the input schema is an
/// INVALID_ARGUMENT tool error, like any other refused argument.
fn parse_args<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::bad_arguments(tool, &e))
}

fn success<T: Serialize>(text: String, value: &T) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(serde_json::to_value(value).unwrap_or(Value::Null));
    r
}

pub(crate) fn failure(tool: &str, e: &ToolError) -> (CallToolResult, Outcome) {
    tracing::warn!(target: LOG_TARGET, tool, code = e.code.as_str(), "tool error");
    (error_result(e), Err(e.code))
}

/// Key of the machine-readable error in an error result's `_meta`.
pub const ERROR_META_KEY: &str = "zoekt-pager/error";

/// Key of the warnings in the `_meta` of a `resources/list` result that may lack
/// repositories (a backend that did not answer, crashed shards): a list result has no other
/// place for them.
pub const WARNINGS_META_KEY: &str = "zoekt-pager/warnings";

/// An `isError` result. The code, message and hint go in the text block (first line
/// `Error CODE: message`) and in `_meta`, NOT in `structuredContent`: clients such as the
/// TypeScript SDK validate any structuredContent against the tool's outputSchema (a page),
/// and would turn a readable tool error into a protocol error.
pub(crate) fn error_result(e: &ToolError) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(error_text(e))]);
    let mut meta = JsonObject::new();
    meta.insert(
        ERROR_META_KEY.into(),
        serde_json::to_value(e).unwrap_or(Value::Null),
    );
    r.meta = Some(MetaObject(meta));
    r
}

/// A tool error as a JSON-RPC error, for the protocol-level operations (resources).
pub(crate) fn rpc_error(e: &ToolError) -> ErrorData {
    let data = serde_json::to_value(e).ok();
    // Resource errors name the URI they were given: an excerpt of it, as for tools.
    let message = errors::excerpt(&e.to_string());
    match e.code {
        ErrorCode::InvalidArgument | ErrorCode::InvalidCursor | ErrorCode::CursorMismatch => {
            ErrorData::invalid_params(message, data)
        }
        ErrorCode::NotFound => ErrorData::resource_not_found(message, data),
        _ => ErrorData::internal_error(message, data),
    }
}
