//! The engine's settings as flags with environment fallbacks: read here, at the edge, and
//! turned into the engine's plain [`PagerConfig`] and [`CacheConfig`], whose defaults
//! (`PagerConfig::DEFAULT`, `CacheConfig::DEFAULT`) are the one place the numbers live. The
//! engine itself knows no flag.

use clap::Args;

use crate::engine::config::{CacheConfig, Effort, PagerConfig, ReadLimits};

/// Limits and defaults of the paging engine.
///
/// The serde form is flat (the recordings' `settings` object): `effort` and `read` are
/// flattened into it and keep the names the flags have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct PagerFlags {
    /// Items per page when a call gives no limit.
    #[arg(
        long,
        env = "ZOEKT_PAGER_DEFAULT_LIMIT",
        default_value_t = PagerConfig::DEFAULT.default_limit,
        global = true
    )]
    pub default_limit: u32,
    /// Largest limit a call may ask for.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_LIMIT",
        default_value_t = PagerConfig::DEFAULT.max_limit,
        global = true
    )]
    pub max_limit: u32,
    /// Largest item offset a cursor may reach.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_OFFSET",
        default_value_t = PagerConfig::DEFAULT.max_offset,
        global = true
    )]
    pub max_offset: u64,
    /// Suggest ways to narrow a broad result (`on`), with counts, on its first page and with
    /// `count_only`; `off` sends pure pages. Items and cursors are the same either way.
    #[arg(
        long,
        env = "ZOEKT_PAGER_SUGGEST_FILTERS",
        default_value = "on",
        value_parser = on_or_off,
        action = clap::ArgAction::Set,
        global = true
    )]
    pub suggest_filters: bool,
    /// How long a census of a broad result may take Zoekt (milliseconds, at most
    /// --max-wall-time-ms): the most it may hold a first page beyond the page's own search.
    /// A census Zoekt cuts at this time counts what it reached, as lower bounds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CENSUS_WALL_TIME_MS",
        default_value_t = PagerConfig::DEFAULT.census_wall_time_ms,
        global = true
    )]
    pub census_wall_time_ms: u64,
    /// Largest number of files asked of Zoekt in one request (MaxDocDisplayCount ceiling).
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WINDOW",
        default_value_t = PagerConfig::DEFAULT.max_window,
        global = true
    )]
    pub max_window: u32,
    /// Most context lines a `search` call may ask for before and after each match.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_CONTEXT_LINES",
        default_value_t = PagerConfig::DEFAULT.max_context_lines,
        global = true
    )]
    pub max_context_lines: u32,
    /// How hard Zoekt may work on one query.
    #[command(flatten)]
    pub effort: EffortFlags,
    /// What one page may cost a model to read, in tokens (estimated as 4 characters each).
    ///
    /// Clients differ in which form of a result they hand the model: most pass the text
    /// block, some (Claude Code, when both are present) the structured content. So each form
    /// of a page's items must fit on its own; the text block and the structured content are
    /// measured separately, never summed, in characters. Default options fit `--max-limit`
    /// items inside it; a page cut short by it (large `snippet_length` or `context_lines`)
    /// says so, and its cursor continues right after its last item. A page always keeps its
    /// first item, so the budget must hold the largest item the other limits allow.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_PAGE_TOKENS",
        default_value_t = PagerConfig::DEFAULT.max_page_tokens,
        global = true
    )]
    pub max_page_tokens: usize,
    /// Characters of a source line shown when a call gives no `snippet_length`.
    ///
    /// The default keeps a page of `--max-limit` items inside the default budget in its JSON
    /// form even when every line is that long and paths are deep (an item's other fields take
    /// about 250 characters): longer lines are rare in code, whose indentation is trimmed.
    #[arg(
        long,
        env = "ZOEKT_PAGER_SNIPPET_LENGTH",
        default_value_t = PagerConfig::DEFAULT.snippet_length,
        global = true
    )]
    pub snippet_length: u32,
    /// Largest `snippet_length` a call may ask for (at most 1000).
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_SNIPPET_LENGTH",
        default_value_t = PagerConfig::DEFAULT.max_snippet_length,
        global = true
    )]
    pub max_snippet_length: u32,
    /// Bounds of one `read_file` answer.
    #[command(flatten)]
    pub read: ReadFlags,
}

/// How hard Zoekt may work on one query. The same for every page of every query: a cap that
/// changed with the page would change which files Zoekt finds, and pages would disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct EffortFlags {
    /// Zoekt ShardMaxMatchCount: matches one shard may collect before it stops.
    #[arg(
        long,
        env = "ZOEKT_PAGER_SHARD_MAX_MATCH_COUNT",
        default_value_t = PagerConfig::DEFAULT.effort.shard_max_match_count,
        global = true
    )]
    pub shard_max_match_count: u32,
    /// Zoekt TotalMaxMatchCount: matches all shards together may collect; 0 (the default)
    /// sends no such cap.
    ///
    /// Zoekt stops handing shards to its workers once the running total passes this cap, so
    /// WHICH shards were searched depends on timing: two calls may return different files and
    /// a walk may skip results. Leave it at 0 unless the per-shard cap and the wall time
    /// cannot bound the cost; answers it cuts are flagged incomplete.
    #[arg(
        long,
        env = "ZOEKT_PAGER_TOTAL_MAX_MATCH_COUNT",
        default_value_t = PagerConfig::DEFAULT.effort.total_max_match_count,
        global = true
    )]
    pub total_max_match_count: u32,
    /// Zoekt MaxWallTime, in milliseconds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WALL_TIME_MS",
        default_value_t = PagerConfig::DEFAULT.effort.max_wall_time_ms,
        global = true
    )]
    pub max_wall_time_ms: u64,
}

/// Bounds of the window cache (`engine/cache/`). Not part of the order: the cache changes
/// what a page costs, never what it holds, so cursors ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct CacheFlags {
    /// Bytes of ordered Zoekt answers the window cache may hold (estimated); 0 turns the
    /// cache off, and with it request sharing and prefetch.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CACHE_BYTES",
        default_value_t = CacheConfig::DEFAULT.cache_bytes,
        global = true
    )]
    pub cache_bytes: u64,
    /// Seconds a cached answer is used at most, from its fetch: how stale a page may be
    /// after the index changes.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CACHE_TTL_SECS",
        default_value_t = CacheConfig::DEFAULT.cache_ttl_secs,
        global = true
    )]
    pub cache_ttl_secs: u64,
    /// Seconds a cached answer is kept without being used.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CACHE_IDLE_SECS",
        default_value_t = CacheConfig::DEFAULT.cache_idle_secs,
        global = true
    )]
    pub cache_idle_secs: u64,
    /// Background fetches of the next bigger window that may run at once; 0: none.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CACHE_PREFETCH",
        default_value_t = CacheConfig::DEFAULT.cache_prefetch,
        global = true
    )]
    pub cache_prefetch: usize,
}

/// Bounds of one `read_file` answer; a range beyond them comes back cut, with `truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct ReadFlags {
    /// Most lines one read_file call (or file resource) returns.
    #[arg(
        long = "max-read-lines",
        env = "ZOEKT_PAGER_MAX_READ_LINES",
        default_value_t = PagerConfig::DEFAULT.read.max_lines,
        global = true
    )]
    pub max_lines: u32,
    /// Most bytes of file content one read_file call (or file resource) returns.
    #[arg(
        long = "max-read-bytes",
        env = "ZOEKT_PAGER_MAX_READ_BYTES",
        default_value_t = PagerConfig::DEFAULT.read.max_bytes,
        global = true
    )]
    pub max_bytes: usize,
}

impl From<PagerFlags> for PagerConfig {
    fn from(f: PagerFlags) -> PagerConfig {
        PagerConfig {
            default_limit: f.default_limit,
            max_limit: f.max_limit,
            max_offset: f.max_offset,
            suggest_filters: f.suggest_filters,
            census_wall_time_ms: f.census_wall_time_ms,
            max_window: f.max_window,
            max_context_lines: f.max_context_lines,
            effort: Effort {
                shard_max_match_count: f.effort.shard_max_match_count,
                total_max_match_count: f.effort.total_max_match_count,
                max_wall_time_ms: f.effort.max_wall_time_ms,
            },
            max_page_tokens: f.max_page_tokens,
            snippet_length: f.snippet_length,
            max_snippet_length: f.max_snippet_length,
            read: ReadLimits {
                max_lines: f.read.max_lines,
                max_bytes: f.read.max_bytes,
            },
        }
    }
}

impl From<CacheFlags> for CacheConfig {
    fn from(f: CacheFlags) -> CacheConfig {
        CacheConfig {
            cache_bytes: f.cache_bytes,
            cache_ttl_secs: f.cache_ttl_secs,
            cache_idle_secs: f.cache_idle_secs,
            cache_prefetch: f.cache_prefetch,
        }
    }
}

/// `on` or `off`, as a flag's value.
fn on_or_off(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{value:?}: say on or off")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        pager: PagerFlags,
        #[command(flatten)]
        cache: CacheFlags,
    }

    #[test]
    fn flags_default_to_the_engine_defaults() {
        // The environment could set any ZOEKT_PAGER_ variable; none is set in tests.
        let parsed = Flags::try_parse_from(["x"]).unwrap();
        assert_eq!(PagerConfig::from(parsed.pager), PagerConfig::DEFAULT);
        assert_eq!(CacheConfig::from(parsed.cache), CacheConfig::DEFAULT);
        let parsed = Flags::try_parse_from(["x", "--max-page-tokens", "3000"]).unwrap();
        assert_eq!(PagerConfig::from(parsed.pager).page_chars(), 12_000);
        let off = Flags::try_parse_from(["x", "--suggest-filters", "off"]).unwrap();
        assert!(!PagerConfig::from(off.pager).suggest_filters);
        assert!(Flags::try_parse_from(["x", "--suggest-filters", "maybe"]).is_err());
    }
}
