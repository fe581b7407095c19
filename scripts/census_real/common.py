"""What every check of the census shares: the settings (limit, the raw requests' options, the
bounds), the queries and targets chosen before running, and the progress and timing helpers.

The lists here are single shared objects: `main` narrows `TOOLS` and `QUERIES` in place from
`--tools` and `--queries`, and every module that imported them sees the narrowed lists. Keep
them mutated in place (never rebound) for that reason.
"""

import statistics
import sys

LIMIT = 30
# A result is broad when it holds more than this many items (3 pages at limit 30).
BROAD = 3 * LIMIT
# The raw requests of must-show 1 (src/engine/fetch.rs first_window(31) = 34; the census of
# src/engine/survey.rs: CENSUS_FILES files, --census-wall-time-ms).
WINDOW_OPTS = {"MaxDocDisplayCount": 34, "ShardMaxMatchCount": 10000, "MaxWallTime": 10_000_000_000}
CENSUS_OPTS = {"MaxDocDisplayCount": 40000, "ShardMaxMatchCount": 10000, "MaxWallTime": 3_000_000_000}
# Zoekt's whole count: no cap binds, and a wall time of 20 s (a `.` regex takes minutes over
# every file: such a count is then itself cut, a lower bound, and a count held against it is
# checked only where the bound decides). One file displayed: FileCount is the same, the answer
# small.
WHOLE_OPTS = {"MaxDocDisplayCount": 1, "ShardMaxMatchCount": 10_000_000,
              "TotalMaxMatchCount": 100_000_000, "MaxWallTime": 20_000_000_000}
# The pager's own effort (its defaults), for counts of what a call of it can see.
PAGER_OPTS = {"ShardMaxMatchCount": 10000, "MaxWallTime": 10_000_000_000}
# Must-show 3: Zoekt's wall time (the pager's default --max-wall-time-ms) + 5 s.
HEAVY_BOUND = 10.0 + 5.0

TOOLS = ["search", "search_symbols", "files_with_matches", "search_files", "find_references"]

# Must-show 1 and 2: ten queries per tool, broad on both corpora and fit for the tool (the
# symbol for find_references). Chosen by what the tools are for, then checked broad with raw
# Zoekt (total > 90 at limit 30 on each corpus).
QUERIES = {
    "search": [".", "func", "import", "return", "the", "error", "func main", "printf", "a b",
               "TODO"],
    "search_symbols": [".", "new", "get", "init", "New", "parse", "String", "test", "Error",
                       "main"],
    "files_with_matches": [".", "func", "import", "return", "the", "error", "func main",
                           "printf", "TODO", "Copyright"],
    "search_files": [".", "/", "test", "\\.go$", "\\.py$", "internal/", "src/", "\\.h$",
                     "_test\\.go$", "\\.rs$"],
    "find_references": ["err", "len", "self", "nil", "ctx", "String", "Error", "int", "data",
                        "name"],
}
# Must-show 4 starts from the first of these whose result holds the target (raw Zoekt): the
# queries a model types first for what it looks for, the broadest (`.`) last, since its census
# is the thinnest (Zoekt's wall time cuts a `.` census to a few hundred files).
REACH_QUERIES = {
    "search": ["func main", "printf", "a b", "TODO", "error", "return nil", "import",
               "#include", "def __init__", "fn new", "the", "return", "if", "for"],
    "search_symbols": ["new", "get", "init", "New", "parse", "String", "test", "read", "Error",
                       "main", "e", "s", "_", "."],
    "files_with_matches": ["func main", "printf", "TODO", "error", "Copyright", "import",
                           "license", "fmt.Errorf", "unsafe", "#include", "the", "return", "if",
                           "for"],
    "search_files": ["test", "util", "\\.h$", "\\.go$", "\\.py$", "internal/", "src/",
                     "\\.md$", "_test\\.go$", "\\.rs$", "\\.js$", "\\.c$", "\\.ts$", "/"],
    "find_references": ["err", "len", "self", "nil", "ctx", "String", "Error", "int", "data",
                        "name", "the", "if", "return", "for", "i"],
}
# Must-show 5: one broad query per tool, as a model would count it first.
COUNT_QUERY = {"search": "func main", "search_symbols": "new", "files_with_matches": "func main",
               "search_files": "test", "find_references": "err"}
# Must-show 3: (tool, query, corpora). `a b` is the issue's `many` case; it runs on both.
HEAVY = [("files_with_matches", "."), ("search", "(?s)."), ("search", "a b"), ("search", "\\b")]
# Narrow results: one page or less, no suggestion.
NARROW = [("search", {"query": "zoektNeverWritesThis"}),
          ("search_symbols", {"query": "^NewTicker$ lang:Go file:time/"})]

# Must-show 4: targets chosen BEFORE running, each for what makes it hard to reach: directories
# of different sizes and depths, one file among many alike, a directory's own files beside its
# subdirectories. (repo, path) per corpus; `mono` is the one repository `monorepo`.
_TARGETS = [
    # A deep file of a big tree: go-toolchain holds 14,268 files, net/http a few hundred.
    ("go-toolchain", "go-toolchain", "src/net/http/server.go"),
    # A top-level header of /usr/include, beside 100 subdirectories: the directory's own files.
    ("c-include", "c-include", "stdio.h"),
    # One of 9 files of a small folder deep in one of 349 crates.
    ("tokio-1.54.1", "rust-crates/tokio-1.54.1", "src/task/spawn.rs"),
    # One Python standard library among 9 versions holding nearly the same files.
    ("python-3.12", "python/3.12", "asyncio/tasks.py"),
    # A scoped npm package's build output, four folders down.
    ("npm-@modelcontextprotocol-sdk", "npm/@modelcontextprotocol/sdk", "dist/esm/server/index.js"),
    # A Go module's folder of 382 mostly generated files.
    ("x-sys@v0.47.0", "go-modules/x-sys@v0.47.0", "unix/syscall_linux.go"),
    # One small file among 2,047 of one folder.
    ("go-toolchain", "go-toolchain", "test/fixedbugs/issue10047.go"),
    # One of 571 headers of a subdirectory of /usr/include.
    ("c-include", "c-include", "linux/if_ether.h"),
    # A module's top-level file, beside its many subfolders.
    ("grpc@v1.82.1", "go-modules/grpc@v1.82.1", "server.go"),
    # The oldest Python's copy of a module every version has.
    ("python-2.7", "python/2.7", "json/decoder.py"),
    # A Rust file two folders down in a big crate.
    ("regex-automata-0.4.19", "rust-crates/regex-automata-0.4.19", "src/meta/regex.rs"),
    # A very common file name (print.go) in a mid-size folder of the Go tree.
    ("go-toolchain", "go-toolchain", "src/fmt/print.go"),
]
TARGETS = {
    "many": [(repo, path) for repo, _, path in _TARGETS],
    "mono": [("monorepo", f"{folder}/{path}") for _, folder, path in _TARGETS],
}

SIGN = {"": "=", "about": "~", "at_least": ">="}


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


def ms(xs):
    return statistics.median(xs) * 1000 if xs else float("nan")
