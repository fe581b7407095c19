//! The MCP face of the pager: tool definitions, argument parsing and rendering. Thin on
//! purpose: every decision about what a page holds is the paging engine's.

pub mod params;
pub mod render;
pub mod resources;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::metrics::Metrics;
use crate::page::{
    Backend, ErrorCode, FileItem, FileSlice, HealthReport, MatchItem, Page, PageArgs, PageError,
    Pager, PagerConfig, ReferenceItem, RepoItem, SymbolItem,
};
use params::{
    FindReferencesArgs, HealthArgs, ListReposArgs, ReadFileArgs, SearchArgs, SearchFilesArgs,
    SearchSymbolsArgs,
};
use render::{RenderLine, error_text, file_text, health_text, page_text};
use resources::Target;

const INSTRUCTIONS: &str = "Code search over a Zoekt index, in pages. Every paged tool returns \
items, has_more and next_cursor: to continue, call the SAME tool with the SAME arguments plus \
cursor=next_cursor (limit may change). Pages never repeat or skip items. search_symbols finds \
definitions, search_files finds paths, find_references lists a symbol's definitions then its \
usages, search returns matching lines for a raw Zoekt query, list_repos lists repositories, \
read_file returns a bounded range of lines of one file, health reports the backend's state. \
Files are also resources: zoekt://{repo}/{+path}.";

/// The MCP server over a paging engine.
pub struct PagerServer<B> {
    pager: Arc<Pager<B>>,
    /// Built once: the schemas depend only on the configuration.
    tools: Arc<Vec<Tool>>,
    metrics: Arc<Metrics>,
}

impl<B> Clone for PagerServer<B> {
    fn clone(&self) -> Self {
        PagerServer {
            pager: Arc::clone(&self.pager),
            tools: Arc::clone(&self.tools),
            metrics: Arc::clone(&self.metrics),
        }
    }
}

/// How a call ended, for metrics: `Ok(Some(n))` a page of n items, `Ok(None)` another
/// successful answer, `Err(code)` a tool error.
type Outcome = Result<Option<usize>, ErrorCode>;

impl<B: Backend + 'static> PagerServer<B> {
    pub fn new(pager: Pager<B>) -> Self {
        Self::with_metrics(pager, Arc::new(Metrics::new()))
    }

    /// A server that counts its calls in `metrics` (shared with `/metrics`).
    pub fn with_metrics(pager: Pager<B>, metrics: Arc<Metrics>) -> Self {
        PagerServer {
            tools: Arc::new(build_tools(pager.config())),
            pager: Arc::new(pager),
            metrics,
        }
    }

    pub fn pager(&self) -> &Arc<Pager<B>> {
        &self.pager
    }

    /// The tool list, with the configured limit bounds written into each input schema.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Runs one tool call; every failure is a tool-level error result, never a panic.
    pub async fn call(&self, name: &str, arguments: Option<JsonObject>) -> Option<CallToolResult> {
        let (result, outcome) = self.dispatch(name, arguments).await?;
        match outcome {
            Ok(items) => {
                self.metrics.tool_call(name, "ok");
                if let Some(n) = items {
                    self.metrics.page_served(name, n);
                }
            }
            Err(code) => self.metrics.tool_call(name, code.as_str()),
        }
        Some(result)
    }

    async fn dispatch(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Option<(CallToolResult, Outcome)> {
        let args = Value::Object(arguments.unwrap_or_default());
        let p = &self.pager;
        Some(match name {
            "search_symbols" => {
                run(name, args, |a: SearchSymbolsArgs| async move {
                    let kinds = a.kinds.unwrap_or_default();
                    p.symbols(&a.query, &kinds, &page_args(a.limit, a.cursor))
                        .await
                })
                .await
            }
            "search_files" => {
                run(name, args, |a: SearchFilesArgs| async move {
                    p.files(&a.query, &page_args(a.limit, a.cursor)).await
                })
                .await
            }
            "find_references" => {
                run(name, args, |a: FindReferencesArgs| async move {
                    let filters = a.filters.unwrap_or_default();
                    p.references(&a.symbol, &filters, &page_args(a.limit, a.cursor))
                        .await
                })
                .await
            }
            "search" => {
                run(name, args, |a: SearchArgs| async move {
                    let ctx = a.context_lines.unwrap_or(0);
                    p.lines(&a.query, ctx, &page_args(a.limit, a.cursor)).await
                })
                .await
            }
            "list_repos" => {
                run(name, args, |a: ListReposArgs| async move {
                    let q = a.query.unwrap_or_default();
                    p.repos(&q, &page_args(a.limit, a.cursor)).await
                })
                .await
            }
            "read_file" => {
                answer(name, args, |a: ReadFileArgs| async move {
                    p.read_file(&a.repo, &a.path, a.start_line, a.end_line)
                        .await
                        .map(|f| (file_text(&f), f))
                })
                .await
            }
            "health" => {
                answer(name, args, |_: HealthArgs| async move {
                    let h = p.health().await;
                    Ok((health_text(&h), h))
                })
                .await
            }
            _ => return None,
        })
    }
}

/// Builds the tool definitions for a configuration.
fn build_tools(cfg: &PagerConfig) -> Vec<Tool> {
    let tool = |name: &'static str, title: &str, description: &'static str| {
        Tool::new(name, description, JsonObject::new())
            .with_title(title)
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            )
    };
    let mut tools = vec![
        tool(
            "search_symbols",
            "Search symbol definitions",
            "Find symbol DEFINITIONS (functions, methods, types...) whose name matches a regex, \
             one item per definition with kind, parent, location and the defining line. Paged \
             by item; continue with cursor=next_cursor.",
        )
        .with_input_schema::<SearchSymbolsArgs>()
        .with_output_schema::<Page<SymbolItem>>(),
        tool(
            "search_files",
            "Search file paths",
            "Find FILES whose path matches regexes (never by content), one item per file. \
             Paged by item; continue with cursor=next_cursor.",
        )
        .with_input_schema::<SearchFilesArgs>()
        .with_output_schema::<Page<FileItem>>(),
        tool(
            "find_references",
            "Find references to a symbol",
            "List every definition of an exact identifier, then every line using it (whole \
             word, case-sensitive), labelled definition/reference. Paged by item; continue \
             with cursor=next_cursor.",
        )
        .with_input_schema::<FindReferencesArgs>()
        .with_output_schema::<Page<ReferenceItem>>(),
        tool(
            "search",
            "Search code lines",
            "Run a raw Zoekt query; one item per matching line (line 0 = the path matched), \
             optionally with context lines. Paged by item; continue with cursor=next_cursor.",
        )
        .with_input_schema::<SearchArgs>()
        .with_output_schema::<Page<MatchItem>>(),
        tool(
            "list_repos",
            "List indexed repositories",
            "List the indexed repositories (name, file count, whether symbols are indexed), \
             sorted by name. Paged; continue with cursor=next_cursor.",
        )
        .with_input_schema::<ListReposArgs>()
        .with_output_schema::<Page<RepoItem>>(),
        tool(
            "read_file",
            "Read lines of a file",
            "Return a range of lines of one indexed file (repo and path exactly as search \
             results give them), bounded in lines and bytes; truncated answers say where to \
             continue with start_line.",
        )
        .with_input_schema::<ReadFileArgs>()
        .with_output_schema::<FileSlice>(),
        tool(
            "health",
            "Backend health",
            "Report whether Zoekt is reachable and ready, what it indexes (repositories, \
             documents, shards), which repositories lack symbols, and the Zoekt version.",
        )
        .with_input_schema::<HealthArgs>()
        .with_output_schema::<HealthReport>(),
    ];
    for t in &mut tools {
        let mut schema = (*t.input_schema).clone();
        annotate_limits(
            &mut schema,
            cfg.default_limit,
            cfg.max_limit,
            cfg.max_context_lines,
        );
        t.input_schema = Arc::new(schema);
    }
    tools
}

fn page_args(limit: Option<u32>, cursor: Option<String>) -> PageArgs {
    PageArgs { limit, cursor }
}

/// Parses arguments, runs the page, renders the result or the error.
async fn run<A, T, F, Fut>(tool: &str, args: Value, page: F) -> (CallToolResult, Outcome)
where
    A: DeserializeOwned,
    T: Serialize + RenderLine,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<Page<T>, PageError>>,
{
    let started = std::time::Instant::now();
    let parsed = match parse_args::<A>(tool, args) {
        Ok(a) => a,
        Err(e) => return failure(tool, &e),
    };
    match page(parsed).await {
        Ok(page) => {
            tracing::info!(
                tool,
                items = page.count,
                offset = page.offset,
                has_more = page.has_more,
                complete = page.complete,
                ms = started.elapsed().as_millis() as u64,
                "page served"
            );
            let count = page.count;
            (success(page_text(tool, &page), &page), Ok(Some(count)))
        }
        Err(e) => failure(tool, &e),
    }
}

/// Like [`run`], for tools that answer with one value rather than a page.
async fn answer<A, T, F, Fut>(tool: &str, args: Value, call: F) -> (CallToolResult, Outcome)
where
    A: DeserializeOwned,
    T: Serialize,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<(String, T), PageError>>,
{
    let started = std::time::Instant::now();
    let parsed = match parse_args::<A>(tool, args) {
        Ok(a) => a,
        Err(e) => return failure(tool, &e),
    };
    match call(parsed).await {
        Ok((text, value)) => {
            tracing::info!(
                tool,
                ms = started.elapsed().as_millis() as u64,
                "answer served"
            );
            (success(text, &value), Ok(None))
        }
        Err(e) => failure(tool, &e),
    }
}

fn parse_args<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, PageError> {
    serde_json::from_value(args).map_err(|e| {
        PageError::invalid_argument(
            format!("bad arguments for {tool}: {e}"),
            "Check the tool's input schema: argument names and types.",
        )
    })
}

fn success<T: Serialize>(text: String, value: &T) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(serde_json::to_value(value).unwrap_or(Value::Null));
    r
}

fn failure(tool: &str, e: &PageError) -> (CallToolResult, Outcome) {
    tracing::warn!(tool, code = e.code.as_str(), "tool error");
    (error_result(e), Err(e.code))
}

/// Key of the machine-readable error in an error result's `_meta`.
pub const ERROR_META_KEY: &str = "zoekt-pager/error";

/// An `isError` result. The code, message and hint go in the text block (first line
/// `Error CODE: message`) and in `_meta`, NOT in `structuredContent`: clients such as the
/// TypeScript SDK validate any structuredContent against the tool's outputSchema (a page),
/// and would turn a readable tool error into a protocol error.
fn error_result(e: &PageError) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(error_text(e))]);
    let mut meta = JsonObject::new();
    meta.insert(
        ERROR_META_KEY.into(),
        serde_json::to_value(e).unwrap_or(Value::Null),
    );
    r.meta = Some(MetaObject(meta));
    r
}

/// A page error as a JSON-RPC error, for the protocol-level operations (resources).
fn rpc_error(e: &PageError) -> ErrorData {
    let data = serde_json::to_value(e).ok();
    let message = format!("{}: {} ({})", e.code.as_str(), e.message, e.hint);
    match e.code {
        ErrorCode::InvalidArgument | ErrorCode::InvalidCursor | ErrorCode::CursorMismatch => {
            ErrorData::invalid_params(message, data)
        }
        ErrorCode::NotFound => ErrorData::resource_not_found(message, data),
        _ => ErrorData::internal_error(message, data),
    }
}

/// Writes the configured limit bounds and the context range into an input schema, so a client
/// sees the real numbers rather than prose.
fn annotate_limits(schema: &mut JsonObject, default_limit: u32, max_limit: u32, max_ctx: u32) {
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
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
        ctx.insert("maximum".into(), max_ctx.into());
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
        .with_instructions(INSTRUCTIONS)
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
        let cursor = request.and_then(|r| r.cursor);
        let page = match self
            .pager
            .repo_resources(&PageArgs {
                limit: None,
                cursor,
            })
            .await
        {
            Ok(p) => p,
            Err(e) => {
                if matches!(e.code, ErrorCode::InvalidCursor | ErrorCode::CursorMismatch) {
                    self.metrics.cursor_error(e.code.as_str());
                }
                return Err(rpc_error(&e));
            }
        };
        let items = page
            .items
            .iter()
            .map(|r| {
                Resource::new(resources::repo_uri(&r.name), r.name.clone())
                    .with_description(format!(
                        "Repository {} ({} files, symbols: {})",
                        r.name,
                        r.files,
                        if r.has_symbols { "yes" } else { "no" }
                    ))
                    .with_mime_type("application/json")
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(resources::FILE_TEMPLATE, "file")
                .with_title("Indexed file")
                .with_description(
                    "A file of an indexed repository; the repository is one percent-encoded \
                     segment. Reads are bounded like read_file.",
                )
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let target = resources::parse_uri(&uri).map_err(|m| ErrorData::invalid_params(m, None))?;
        let contents = match target {
            Target::Repo(name) => {
                let repo = self.pager.repo(&name).await.map_err(|e| rpc_error(&e))?;
                let Some(repo) = repo else {
                    return Err(ErrorData::resource_not_found(
                        format!("no repository `{name}`"),
                        None,
                    ));
                };
                ResourceContents::text(serde_json::to_string(&repo).unwrap_or_default(), &uri)
                    .with_mime_type("application/json")
            }
            Target::File { repo, path } => {
                let slice = self
                    .pager
                    .read_file(&repo, &path, None, None)
                    .await
                    .map_err(|e| rpc_error(&e))?;
                let mut c = ResourceContents::text(slice.content.clone(), &uri);
                if slice.truncated {
                    let mut meta = JsonObject::new();
                    meta.insert("zoekt-pager/truncated".into(), true.into());
                    meta.insert("zoekt-pager/end_line".into(), slice.end_line.into());
                    meta.insert("zoekt-pager/total_lines".into(), slice.total_lines.into());
                    c = c.with_meta(MetaObject(meta));
                }
                c
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match self.call(&request.name, request.arguments).await {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            )),
        }
    }
}
