//! The MCP face of the pager: the tool table read from `crate::tools`, argument parsing,
//! rendering and errors. Thin on purpose: every decision about what a page holds is the
//! paging engine's, and every tool is declared once, in its own module.

mod call;
pub mod message;
pub mod resources;
mod schema;
pub mod stdio;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::config::PagerConfig;
use crate::form::page_schema;
use crate::metrics::Metrics;
use crate::tools::error::ToolError;
use crate::tools::{AnswerTool, PagedTool, ToolArgs, ToolInfo, ToolVisitor, visit_all};
pub use call::{ERROR_META_KEY, WARNINGS_META_KEY};
use call::{Handler, answer_call, count_call, failure, page_call, rpc_error};

/// The MCP server over a paging engine.
pub struct PagerServer<B> {
    pager: Arc<Pager<B>>,
    /// Built once from the tool table: the schemas depend only on the configuration.
    tools: Arc<Vec<Tool>>,
    handlers: Arc<HashMap<&'static str, Handler<B>>>,
    instructions: Arc<String>,
    metrics: Arc<Metrics>,
    /// The most one tool call may take, every Zoekt request and retry included.
    call_timeout: std::time::Duration,
    /// Results hold the text block alone (`--page-forms text`).
    text_only: bool,
}

/// [`PagerServer::call_timeout`]'s default, and `--call-timeout-ms`'s.
/// Twice `--timeout-ms`'s default, so one slow request can still be retried within it.
pub const DEFAULT_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

impl<B> Clone for PagerServer<B> {
    fn clone(&self) -> Self {
        PagerServer {
            pager: Arc::clone(&self.pager),
            tools: Arc::clone(&self.tools),
            handlers: Arc::clone(&self.handlers),
            instructions: Arc::clone(&self.instructions),
            metrics: Arc::clone(&self.metrics),
            call_timeout: self.call_timeout,
            text_only: self.text_only,
        }
    }
}

impl<B: Backend + 'static> PagerServer<B> {
    /// A server over `pager` with metrics of its own.
    pub fn new(pager: Pager<B>) -> Self {
        Self::with_metrics(pager, Arc::new(Metrics::new()))
    }

    /// A server that counts its calls in `metrics` (shared with `/metrics`).
    pub fn with_metrics(pager: Pager<B>, metrics: Arc<Metrics>) -> Self {
        let mut table = Table {
            cfg: pager.config(),
            tools: Vec::new(),
            handlers: HashMap::new(),
            summaries: Vec::new(),
        };
        visit_all(&mut table);
        let instructions = format!(
            "Code search over a Zoekt index, in pages. Every paged tool's page ends with where \
             the walk stands and how to go on (`next`, and `next_cursor`): to continue, call the \
             SAME tool with the SAME arguments plus cursor=next_cursor (limit may change). Pages \
             never repeat or skip items. {}. Files are also resources: \
             zoekt://{{repo}}/{{+path}}.",
            table.summaries.join(", ")
        );
        PagerServer {
            tools: Arc::new(table.tools),
            handlers: Arc::new(table.handlers),
            instructions: Arc::new(instructions),
            pager: Arc::new(pager),
            metrics,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            text_only: false,
        }
    }

    /// The same server sending text alone (`--page-forms text`): no tool has an outputSchema
    /// and no result a `structuredContent`. Answers of `read_file` and `health` too, so that
    /// a host never meets a schema without the content it promises.
    pub fn with_text_only(mut self, text_only: bool) -> Self {
        self.text_only = text_only;
        if text_only {
            let tools = self
                .tools
                .iter()
                .cloned()
                .map(|mut t| {
                    t.output_schema = None;
                    t
                })
                .collect();
            self.tools = Arc::new(tools);
        }
        self
    }

    /// The same server with another deadline per tool call.
    pub fn with_call_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// A resource request within the call deadline (`--call-timeout-ms`), as tool calls are:
    /// past it, a JSON-RPC error with the BACKEND_TIMEOUT code and hint.
    async fn within_deadline<T>(
        &self,
        work: impl Future<Output = Result<T, ErrorData>>,
    ) -> Result<T, ErrorData> {
        tokio::time::timeout(self.call_timeout, work)
            .await
            .unwrap_or_else(|_| Err(rpc_error(&ToolError::call_timeout(self.call_timeout))))
    }

    /// Runs one tool call within the call deadline, dropped (with every Zoekt request it has
    /// in flight) when `cancelled` fires: the client cancelled or went away. `None`: no tool
    /// has that name, or the call was cancelled (nobody waits for an answer).
    pub async fn call_within(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        cancelled: impl Future<Output = ()>,
    ) -> Option<CallToolResult> {
        // The metrics take the tool table's own `&'static` name; an unknown name has none.
        let (&known, _) = self.handlers.get_key_value(name)?;
        let deadline = tokio::time::timeout(self.call_timeout, self.call(known, arguments));
        tokio::select! {
            outcome = deadline => match outcome {
                Ok(result) => result,
                Err(_) => {
                    let e = ToolError::call_timeout(self.call_timeout);
                    let (result, _) = failure(known, &e);
                    count_call(&self.metrics, known, Some(e.code));
                    Some(result)
                }
            },
            () = cancelled => {
                tracing::info!(tool = known, "call cancelled by the client; its Zoekt requests are dropped");
                self.metrics.tool_call_cancelled(known);
                None
            }
        }
    }

    /// The engine.
    pub fn pager(&self) -> &Arc<Pager<B>> {
        &self.pager
    }

    /// The tool list, with the configured limit bounds written into each input schema.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Runs one tool call; every failure is a tool-level error result, never a panic.
    /// `None`: no tool has that name.
    pub async fn call(&self, name: &str, arguments: Option<JsonObject>) -> Option<CallToolResult> {
        let (&name, handler) = self.handlers.get_key_value(name)?;
        let args = Value::Object(arguments.unwrap_or_default());
        let (mut result, outcome) = handler(Arc::clone(&self.pager), args).await;
        if self.text_only {
            result.structured_content = None;
        }
        match outcome {
            Ok(items) => {
                count_call(&self.metrics, name, None);
                if let Some((n, requests)) = items {
                    self.metrics.page_served(name, n, requests);
                }
            }
            Err(code) => count_call(&self.metrics, name, Some(code)),
        }
        Some(result)
    }
}

/// Collects the tool definitions and handlers from the tool table.
struct Table<'a, B> {
    cfg: &'a PagerConfig,
    tools: Vec<Tool>,
    handlers: HashMap<&'static str, Handler<B>>,
    summaries: Vec<String>,
}

impl<B> Table<'_, B> {
    /// Adds tool `T`, whose results hold `output` as `structuredContent` (its schema).
    fn add<T: ToolInfo, A: ToolArgs>(&mut self, handler: Handler<B>, output: JsonObject) {
        let mut tool = Tool::new(T::NAME, T::DESCRIPTION, JsonObject::new())
            .with_title(T::TITLE)
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            )
            .with_input_schema::<A>();
        tool.output_schema = Some(Arc::new(output));
        let mut schema = (*tool.input_schema).clone();
        schema::standardize(&mut schema);
        schema::plain_optionals(&mut schema);
        annotate_limits(&mut schema, self.cfg);
        tool.input_schema = Arc::new(schema);
        if let Some(out) = tool.output_schema.as_mut() {
            schema::standardize(Arc::make_mut(out));
        }
        self.tools.push(tool);
        self.handlers.insert(T::NAME, handler);
        self.summaries.push(format!("{} {}", T::NAME, T::SUMMARY));
    }
}

impl<B: Backend + 'static> ToolVisitor for Table<'_, B> {
    fn paged<T: PagedTool>(&mut self) {
        self.add::<T, T::Args>(
            |pager, args| Box::pin(page_call::<T, B>(pager, args)),
            page_schema::<T::Item>(),
        );
    }

    fn answer<T: AnswerTool>(&mut self) {
        let output = rmcp::handler::server::tool::schema_for_output::<T::Output>();
        self.add::<T, T::Args>(
            |pager, args| Box::pin(answer_call::<T, B>(pager, args)),
            (*output).clone(),
        );
    }
}

/// Writes the configured limit bounds and the context range into an input schema, so a client
/// sees the real numbers rather than prose.
fn annotate_limits(schema: &mut JsonObject, cfg: &PagerConfig) {
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    let (default_limit, max_limit) = (cfg.default_limit, cfg.max_limit);
    if let Some(Value::Object(limit)) = props.get_mut("limit") {
        limit.insert("minimum".into(), 1.into());
        limit.insert("maximum".into(), max_limit.into());
        limit.insert("default".into(), default_limit.into());
        limit.insert(
            "description".into(),
            format!("Items per page (default {default_limit}, max {max_limit}).").into(),
        );
    }
    if let Some(Value::Object(ctx)) = props.get_mut("context_lines") {
        ctx.insert("minimum".into(), 0.into());
        ctx.insert("maximum".into(), cfg.max_context_lines.into());
        ctx.insert("default".into(), 0.into());
    }
}

impl<B: Backend + 'static> ServerHandler for PagerServer<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("zoekt-pager", env!("CARGO_PKG_VERSION")).with_title("Zoekt pager"),
        )
        .with_instructions(self.instructions.as_str())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    /// Repositories, one resource each, paged with MCP's cursor. A bad cursor is a JSON-RPC
    /// invalid-params error (-32602), as the MCP spec asks of list operations.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.within_deadline(resources::repo_resources(
            &self.pager,
            &self.metrics,
            request.and_then(|r| r.cursor),
        ))
        .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::file_template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.within_deadline(resources::resource_contents(&self.pager, request.uri))
            .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.handlers.contains_key(&*request.name) {
            // No caller text in the message (the README promises logs without it); the
            // client holds the name it sent.
            return Err(ErrorData::invalid_params(
                "unknown tool: see tools/list",
                None,
            ));
        }
        let cancelled = context.ct.cancelled();
        match self
            .call_within(&request.name, request.arguments, cancelled)
            .await
        {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::internal_error("the call was cancelled", None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::FakeBackend;

    /// Every property of every object in `schema` (and its `$defs`), with its JSON path.
    fn properties<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    for (name, prop) in props {
                        out.push((format!("{path}.{name}"), prop));
                    }
                }
                for (key, value) in map {
                    properties(value, format!("{path}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    properties(v, format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_schema_field_has_a_description() {
        let server = PagerServer::new(Pager::new(FakeBackend::new(), PagerConfig::default()));
        let tools = server.tools();
        assert_eq!(tools.len(), crate::tools::names().len());
        let mut missing = Vec::new();
        let mut seen = 0;
        for tool in tools {
            let schemas = [
                ("input", Some(&tool.input_schema)),
                ("output", tool.output_schema.as_ref()),
            ];
            for (kind, schema) in schemas {
                let schema = Value::Object((**schema.expect("every tool has both")).clone());
                let mut props = Vec::new();
                properties(&schema, format!("{} {kind}", tool.name), &mut props);
                for (path, prop) in props {
                    seen += 1;
                    if prop.get("description").and_then(Value::as_str).is_none() {
                        missing.push(path);
                    }
                }
            }
        }
        assert!(seen > 50, "only {seen} properties: the walk is broken");
        assert!(missing.is_empty(), "no description: {missing:#?}");
    }

    #[tokio::test]
    async fn a_cancelled_call_is_counted_as_cancelled() {
        let backend = FakeBackend::new();
        backend.slow(std::time::Duration::from_secs(5));
        let metrics = Arc::new(Metrics::new());
        let server = PagerServer::with_metrics(
            Pager::new(backend, PagerConfig::default()),
            Arc::clone(&metrics),
        );
        let args = serde_json::json!({"query": "x"}).as_object().cloned();
        let cancelled = tokio::time::sleep(std::time::Duration::from_millis(50));
        assert!(
            server
                .call_within("search_symbols", args, cancelled)
                .await
                .is_none()
        );
        let text = metrics.render();
        assert!(
            text.contains(
                r#"zoekt_pager_tool_calls_total{tool="search_symbols",outcome="cancelled"} 1"#
            ),
            "{text}"
        );
    }

    #[test]
    fn the_instructions_name_every_tool() {
        let server = PagerServer::new(Pager::new(FakeBackend::new(), PagerConfig::default()));
        for name in crate::tools::names() {
            assert!(
                server.instructions.contains(&format!("{name} ")),
                "{name}: {}",
                server.instructions
            );
        }
    }
}
