//! The engine's settings, a plain struct: the process reads them from flags and the
//! environment at its edge (`src/config/pager.rs`) and fills it; serde writes them into
//! recordings and reads them back for a replay. [`PagerConfig::DEFAULT`] is the one place the
//! default numbers live.

use serde::{Deserialize, Serialize};

/// Limits and defaults of the paging engine.
///
/// The serde form is flat (the recordings' `settings` object): `effort` and `read` are
/// flattened into it and keep the names the flags have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagerConfig {
    /// Items per page when a call gives no limit.
    pub default_limit: u32,
    /// Largest limit a call may ask for.
    pub max_limit: u32,
    /// Largest item offset a cursor may reach.
    pub max_offset: u64,
    /// Suggest ways to narrow a broad result (`on`), with counts, on its first page and with
    /// `count_only`; `off` sends pure pages. Items and cursors are the same either way.
    #[serde(default = "suggest_filters_default")]
    pub suggest_filters: bool,
    /// How long a census of a broad result may take Zoekt (milliseconds, at most
    /// --max-wall-time-ms): the most it may hold a first page beyond the page's own search
    /// (with `find_references`, whose census carries its definitions, beyond the
    /// definitions' own search when it cut them). A census Zoekt cuts at this time counts
    /// what it reached, as lower bounds.
    #[serde(default = "census_wall_time_default")]
    pub census_wall_time_ms: u64,
    /// Largest number of files asked of Zoekt in one request (MaxDocDisplayCount ceiling).
    pub max_window: u32,
    /// Most context lines a `search` call may ask for before and after each match.
    pub max_context_lines: u32,
    /// How hard Zoekt may work on one query.
    #[serde(flatten)]
    pub effort: Effort,
    /// What one page may cost a model to read, in tokens (estimated as 4 characters each).
    ///
    /// Clients differ in which form of a result they hand the model: most pass the text
    /// block, some (Claude Code, when both are present) the structured content. So each form
    /// of a page's items must fit on its own; the text block and the structured content are
    /// measured separately, never summed, in characters. Default options fit `--max-limit`
    /// items inside it; a page cut short by it (large `snippet_length` or `context_lines`)
    /// says so, and its cursor continues right after its last item. A page always keeps its
    /// first item, so the budget must hold the largest item the other limits allow.
    pub max_page_tokens: usize,
    /// Characters of a source line shown when a call gives no `snippet_length`.
    ///
    /// The default keeps a page of `--max-limit` items inside the default budget in its JSON
    /// form even when every line is that long and paths are deep (an item's other fields take
    /// about 250 characters): longer lines are rare in code, whose indentation is trimmed.
    pub snippet_length: u32,
    /// Largest `snippet_length` a call may ask for (at most 1000).
    pub max_snippet_length: u32,
    /// Bounds of one `read_file` answer.
    #[serde(flatten)]
    pub read: ReadLimits,
}

/// How hard Zoekt may work on one query. The same for every page of every query: a cap that
/// changed with the page would change which files Zoekt finds, and pages would disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Effort {
    /// Zoekt ShardMaxMatchCount: matches one shard may collect before it stops.
    pub shard_max_match_count: u32,
    /// Zoekt TotalMaxMatchCount: matches all shards together may collect; 0 (the default)
    /// sends no such cap.
    ///
    /// Zoekt stops handing shards to its workers once the running total passes this cap, so
    /// WHICH shards were searched depends on timing: two calls may return different files and
    /// a walk may skip results. Leave it at 0 unless the per-shard cap and the wall time
    /// cannot bound the cost; answers it cuts are flagged incomplete.
    pub total_max_match_count: u32,
    /// Zoekt MaxWallTime, in milliseconds.
    pub max_wall_time_ms: u64,
}

/// Bounds of the window cache (`engine/cache/`). Not part of the order: the cache changes
/// what a page costs, never what it holds, so cursors ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheConfig {
    /// Bytes of ordered Zoekt answers the window cache may hold (estimated); 0 turns the
    /// cache off, and with it request sharing and prefetch.
    pub cache_bytes: u64,
    /// Seconds a cached answer is used at most, from its fetch: how stale a page may be
    /// after the index changes.
    pub cache_ttl_secs: u64,
    /// Seconds a cached answer is kept without being used.
    pub cache_idle_secs: u64,
    /// Background fetches of the next bigger window that may run at once; 0: none.
    pub cache_prefetch: usize,
}

impl CacheConfig {
    /// The defaults: 64 MiB, 5 minutes to live, 2 minutes idle, 2 prefetches.
    pub const DEFAULT: CacheConfig = CacheConfig {
        cache_bytes: 64 << 20,
        cache_ttl_secs: 300,
        cache_idle_secs: 120,
        cache_prefetch: 2,
    };

    /// No cache: every window is its own request.
    pub const OFF: CacheConfig = CacheConfig {
        cache_bytes: 0,
        ..CacheConfig::DEFAULT
    };
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig::DEFAULT
    }
}

/// Bounds of one `read_file` answer; a range beyond them comes back cut, with `truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadLimits {
    /// Most lines one read_file call (or file resource) returns.
    #[serde(rename = "max_read_lines")]
    pub max_lines: u32,
    /// Most bytes of file content one read_file call (or file resource) returns.
    #[serde(rename = "max_read_bytes")]
    pub max_bytes: usize,
}

impl PagerConfig {
    /// The defaults of every setting.
    pub const DEFAULT: PagerConfig = PagerConfig {
        default_limit: 30,
        max_limit: 100,
        max_offset: 5_000,
        suggest_filters: true,
        census_wall_time_ms: 3_000,
        max_window: 5_000,
        max_context_lines: 10,
        effort: Effort {
            shard_max_match_count: 10_000,
            total_max_match_count: 0,
            max_wall_time_ms: 10_000,
        },
        max_page_tokens: 10_000,
        snippet_length: 120,
        max_snippet_length: 1_000,
        read: ReadLimits {
            max_lines: 400,
            max_bytes: 32_000,
        },
    };

    /// Checks that the settings make sense together; the message names the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_limit == 0 || self.default_limit == 0 {
            return Err("--default-limit and --max-limit must be at least 1".into());
        }
        if self.default_limit > self.max_limit {
            return Err(format!(
                "--default-limit ({}) is larger than --max-limit ({})",
                self.default_limit, self.max_limit
            ));
        }
        if self.max_window == 0 {
            return Err("--max-window must be at least 1".into());
        }
        if self.effort.max_wall_time_ms == 0 {
            // Zoekt reads 0 as no limit, and a listing's timeout would be 0: refused both ways.
            return Err("--max-wall-time-ms must be at least 1 (0 would leave searches unbounded and make every repository listing time out at once)".into());
        }
        if self.census_wall_time_ms == 0 {
            return Err("--census-wall-time-ms must be at least 1 (to take no census, turn suggestions off: --suggest-filters off)".into());
        }
        if self.effort.shard_max_match_count == 0 {
            return Err("--shard-max-match-count must be at least 1 (0 lets Zoekt derive the caps from the page size, which breaks paging)".into());
        }
        if self.max_offset > u64::from(u32::MAX) {
            return Err(format!(
                "--max-offset must be at most {} (cursors hold a 32-bit offset)",
                u32::MAX
            ));
        }
        if self.max_page_tokens < 500 {
            return Err("--max-page-tokens must be at least 500".into());
        }
        let hard = super::text::MAX_TEXT_CHARS as u32;
        if self.max_snippet_length == 0 || self.max_snippet_length > hard {
            return Err(format!("--max-snippet-length must be from 1 to {hard}"));
        }
        if self.snippet_length == 0 || self.snippet_length > self.max_snippet_length {
            return Err(format!(
                "--snippet-length ({}) must be from 1 to --max-snippet-length ({})",
                self.snippet_length, self.max_snippet_length
            ));
        }
        // A page always keeps its first item: the largest one the limits allow must fit.
        let largest_item = (2 * self.max_context_lines as usize + 1)
            * self.max_snippet_length as usize
            + ITEM_FIELDS_CHARS;
        if largest_item + PAGE_FRAME_CHARS > self.page_chars() {
            return Err(format!(
                "--max-page-tokens {} leaves {} characters for a page's items, less than one item \
                 with --max-context-lines {} and --max-snippet-length {} may take ({largest_item}): \
                 raise the budget or lower those",
                self.max_page_tokens,
                self.page_chars().saturating_sub(PAGE_FRAME_CHARS),
                self.max_context_lines,
                self.max_snippet_length
            ));
        }
        if self.read.max_lines == 0 || self.read.max_bytes < 100 {
            return Err(
                "--max-read-lines must be at least 1 and --max-read-bytes at least 100".into(),
            );
        }
        Ok(())
    }
}

impl Default for PagerConfig {
    fn default() -> Self {
        PagerConfig::DEFAULT
    }
}

impl Effort {
    /// Zoekt's wall time as a duration: what a search may take, and the bound on every
    /// other backend request.
    pub fn wall_time(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.max_wall_time_ms)
    }
}

impl Default for Effort {
    fn default() -> Self {
        PagerConfig::DEFAULT.effort
    }
}

impl Default for ReadLimits {
    fn default() -> Self {
        PagerConfig::DEFAULT.read
    }
}

impl PagerConfig {
    /// Characters each form of a whole page may take (its text block, its structured page's
    /// JSON), footer, suggestions and warnings included: the token budget at 4 characters a
    /// token. The page's form measures what it writes against it.
    pub fn page_chars(&self) -> usize {
        self.max_page_tokens.saturating_mul(CHARS_PER_TOKEN)
    }
}

/// The usual estimate of characters per token for code and JSON.
pub const CHARS_PER_TOKEN: usize = 4;

/// Characters a page may say besides its items (footer, suggestions, warnings, totals), at
/// most: what the budget must leave a page's first item.
const PAGE_FRAME_CHARS: usize = 1_500;

/// Characters an item takes besides its source lines (JSON keys, repository, path, name...).
const ITEM_FIELDS_CHARS: usize = 1_000;

/// Recordings made before the setting existed were made without suggestions.
fn suggest_filters_default() -> bool {
    false
}

/// Recordings made before the setting existed: the default.
fn census_wall_time_default() -> u64 {
    PagerConfig::DEFAULT.census_wall_time_ms
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn settings_that_do_not_fit_together_are_refused_naming_the_flag() {
        let mut small = PagerConfig::DEFAULT;
        small.snippet_length = 2_000;
        assert!(small.validate().unwrap_err().contains("--snippet-length"));
        assert_eq!(PagerConfig::DEFAULT.validate(), Ok(()));
        // 21 context-lined lines of 1,000 characters cannot fit 2,500 characters.
        let tight = PagerConfig {
            max_page_tokens: 1_000,
            ..PagerConfig::DEFAULT
        };
        assert!(
            tight
                .validate()
                .unwrap_err()
                .contains("--max-page-tokens 1000")
        );
    }

    #[test]
    fn a_zero_wall_time_is_refused() {
        let mut cfg = PagerConfig::DEFAULT;
        assert!(cfg.validate().is_ok());
        cfg.effort.max_wall_time_ms = 0;
        let e = cfg.validate().unwrap_err();
        assert!(e.contains("--max-wall-time-ms"), "{e}");
    }

    #[test]
    fn the_serde_form_is_the_flat_recorded_settings() {
        let v = serde_json::to_value(PagerConfig::DEFAULT).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "census_wall_time_ms",
                "default_limit",
                "max_context_lines",
                "max_limit",
                "max_offset",
                "max_page_tokens",
                "max_read_bytes",
                "max_read_lines",
                "max_snippet_length",
                "max_wall_time_ms",
                "max_window",
                "shard_max_match_count",
                "snippet_length",
                "suggest_filters",
                "total_max_match_count"
            ]
        );
        let back: PagerConfig = serde_json::from_value(v).unwrap();
        assert_eq!(back, PagerConfig::DEFAULT);
    }
}
