//! The MCP face of the pager: tool definitions, argument parsing and rendering. Thin on
//! purpose: every decision about what a page holds is the paging engine's.

pub mod params;
pub mod render;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::page::{
    Backend, FileItem, MatchItem, Page, PageArgs, PageError, Pager, PagerConfig, ReferenceItem,
    RepoItem, SymbolItem,
};
use params::{FindReferencesArgs, ListReposArgs, SearchArgs, SearchFilesArgs, SearchSymbolsArgs};
use render::{RenderLine, error_text, page_text};

const INSTRUCTIONS: &str = "Code search over a Zoekt index, in pages. Every paged tool returns \
items, has_more and next_cursor: to continue, call the SAME tool with the SAME arguments plus \
cursor=next_cursor (limit may change). Pages never repeat or skip items. search_symbols finds \
definitions, search_files finds paths, find_references lists a symbol's definitions then its \
usages, search returns matching lines for a raw Zoekt query, list_repos lists repositories.";

/// The MCP server over a paging engine.
pub struct PagerServer<B> {
    pager: Arc<Pager<B>>,
    /// Built once: the schemas depend only on the configuration.
    tools: Arc<Vec<Tool>>,
}

impl<B> Clone for PagerServer<B> {
    fn clone(&self) -> Self {
        PagerServer {
            pager: Arc::clone(&self.pager),
            tools: Arc::clone(&self.tools),
        }
    }
}

impl<B: Backend + 'static> PagerServer<B> {
    pub fn new(pager: Pager<B>) -> Self {
        PagerServer {
            tools: Arc::new(build_tools(pager.config())),
            pager: Arc::new(pager),
        }
    }

    /// The tool list, with the configured limit bounds written into each input schema.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Runs one tool call; every failure is a tool-level error result, never a panic.
    pub async fn call(&self, name: &str, arguments: Option<JsonObject>) -> Option<CallToolResult> {
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
async fn run<A, T, F, Fut>(tool: &str, args: Value, page: F) -> CallToolResult
where
    A: DeserializeOwned,
    T: Serialize + RenderLine,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<Page<T>, PageError>>,
{
    let parsed: A = match serde_json::from_value(args) {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(tool, code = "INVALID_ARGUMENT", "bad tool arguments");
            return error_result(&PageError::invalid_argument(
                format!("bad arguments for {tool}: {e}"),
                "Check the tool's input schema: argument names and types.",
            ));
        }
    };
    let started = std::time::Instant::now();
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
            let mut r = CallToolResult::success(vec![ContentBlock::text(page_text(tool, &page))]);
            r.structured_content = Some(serde_json::to_value(&page).unwrap_or(Value::Null));
            r
        }
        Err(e) => {
            tracing::warn!(tool, code = ?e.code, "tool error");
            error_result(&e)
        }
    }
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("zoekt-pager", env!("CARGO_PKG_VERSION"))
                    .with_title("Zoekt pager"),
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
