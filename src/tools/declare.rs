//! The macros that declare what tools have in common, so that each tool says only what
//! differs: its arguments with the paging fields every paged tool takes ([`paged_args!`]),
//! and its items in files with their location, lines and text ([`file_item!`]).

/// Declares the arguments struct of a paged tool: the tool's own fields, then the `limit`,
/// `cursor` and `count_only` every paged tool takes (the same names, docs and flags
/// everywhere), and its [`PagedArgs`]. A tool whose items show source lines starts with
/// `snippets;` and also takes `include_snippet` and `snippet_length`; one whose items show
/// them only when asked starts with `source;` and takes `source` (default false) instead of
/// `include_snippet` (`outline_file`: where each symbol is, not its line, unless asked). A
/// tool that suggests ways to narrow names the argument a suggestion sets with `narrows ARG;`
/// (its query, or its filters), where the filter is added to what the caller gave.
///
/// [`PagedArgs`]: crate::engine::tool::PagedArgs
macro_rules! paged_args {
    // `snippets;`: the snippet fields join the tool's own.
    (snippets; $($rest:tt)*) => {
        paged_args! {
            @snippets include_snippet
            ["Show the source lines (default true); false leaves only where each item is."]
            []
            $($rest)*
        }
    };
    // `source;`: the same, but no source lines unless `source` asks.
    (source; $($rest:tt)*) => {
        paged_args! {
            @snippets source
            ["Show each item's source line (default false: only where each item is)."]
            [false]
            $($rest)*
        }
    };
    // The field that shows source lines (`$shows`, the engine's `include_snippet`), its
    // doc, and its default when not the engine's (shown).
    (@snippets $shows:ident [$shows_doc:literal] $default:tt $($rest:tt)*) => {
        paged_args! {
            @fields [(include_snippet $shows) (snippet_length snippet_length)] $default {
                #[doc = $shows_doc]
                #[serde(default)]
                #[arg(long)]
                pub $shows: Option<bool>,
                /// Most characters of each source line shown, `…` included when cut (default:
                /// the server's `--snippet-length`, 120 unless set). Changes what items show,
                /// never which item comes next.
                #[serde(default)]
                #[arg(long)]
                pub snippet_length: Option<u32>,
            }
            $($rest)*
        }
    };
    // `narrows ARG;`: the argument a suggestion sets.
    (@fields $snippets:tt $default:tt $extra:tt narrows $narrow:ident; $($rest:tt)*) => {
        paged_args! { @build $snippets $default $extra [$narrow] $($rest)* }
    };
    (@fields $snippets:tt $default:tt $extra:tt $($rest:tt)*) => {
        paged_args! { @build $snippets $default $extra [] $($rest)* }
    };
    (
        @build [$(($page:ident $own:ident))*] [$($shown:literal)?] {$($extra:tt)*}
        [$($narrow:ident)?]
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            $($extra)*
            /// Items per page.
            #[serde(default)]
            #[arg(long)]
            pub limit: Option<u32>,
            /// `next_cursor` from the previous page of the same call.
            #[serde(default)]
            #[arg(long)]
            pub cursor: Option<String>,
            /// Return no items, only the total (exact, or an estimate with its reason) and the
            /// number of pages at `limit`. Counts the whole result (a cursor is ignored): a
            /// Zoekt request per query (find_references: its usages first) and, with
            /// suggestions on, one for the result's files, at once; one more per query when
            /// the count can be exact.
            #[serde(default)]
            #[arg(long)]
            pub count_only: Option<bool>,
        }

        impl $crate::engine::tool::PagedArgs for $name {
            // The update fills the snippet fields of tools without them; with them it is empty.
            #[allow(clippy::needless_update)]
            fn paging(&self) -> $crate::engine::tool::PageArgs {
                let paging = $crate::engine::tool::PageArgs {
                    limit: self.limit,
                    cursor: self.cursor.clone(),
                    count_only: self.count_only.unwrap_or(false),
                    $($page: self.$own,)*
                    ..Default::default()
                };
                // The engine shows source lines unless told not to: a tool whose default is
                // otherwise tells it when the caller said nothing.
                $(
                    let paging = $crate::engine::tool::PageArgs {
                        include_snippet: paging.include_snippet.or(Some($shown)),
                        ..paging
                    };
                )?
                paging
            }
            fn set_paging(&mut self, paging: $crate::engine::tool::PageArgs) {
                self.limit = paging.limit;
                self.cursor = paging.cursor;
                self.count_only = Some(paging.count_only).filter(|c| *c);
                $(self.$own = paging.$page;)*
            }
            $(
                fn narrowed(
                    &self,
                    ways: &[$crate::engine::tool::NarrowBy],
                ) -> Option<$crate::engine::tool::Narrowed> {
                    let given = $crate::tools::shared::ArgText::arg_text(&self.$narrow);
                    let filters: Vec<String> =
                        ways.iter().map($crate::zoekt::query::narrowing_filter).collect();
                    let (base, added) = $crate::zoekt::query::and_filters(given, &filters);
                    Some($crate::engine::tool::Narrowed {
                        arg: stringify!($narrow),
                        base,
                        added,
                    })
                }
                fn excludes(&self, way: &$crate::engine::tool::NarrowBy) -> bool {
                    let given = $crate::tools::shared::ArgText::arg_text(&self.$narrow);
                    $crate::zoekt::query::excludes(
                        given,
                        &$crate::zoekt::query::narrowing_filter(way),
                    )
                }
            )?
        }
    };
    // No snippets: no fields join the tool's own.
    ($($rest:tt)*) => {
        paged_args! { @fields [] [] {} $($rest)* }
    };
}
pub(crate) use paged_args;

/// Declares the item of a tool whose items are in files: the tool's own fields, then where
/// the file is (repository, path, branches), the same names and docs for every tool, and
/// what its kind adds. Adds `location()`, where the item is.
/// - `line;` an item that is a line of a file (`search`, `search_symbols`,
///   `find_references`): its line, column, text and context lines, `shape_lines()` (its line
///   and context clipped as a page asks) and its text ([`ItemText`]: the tool's own
///   `write_line()` between its context lines, under its file);
/// - `file;` an item that is a file of a listing (`search_files`, `files_with_matches`):
///   its language, and `listed_cells()`, its row: path and branches, the tool's own cells,
///   then the language (last, so that a row whose language its extension says ends early).
///
/// [`ItemText`]: crate::form::ItemText
macro_rules! file_item {
    (line; $($rest:tt)*) => {
        file_item! {
            @build [line] {
                /// 1-based line number.
                pub line: u32,
                /// 1-based character column of the match on the line.
                pub column: u32,
                /// The line, trimmed and shortened to `snippet_length`.
                pub text: String,
                /// Lines before this one, oldest first (only with `context_lines`).
                #[serde(skip_serializing_if = "Vec::is_empty")]
                pub before: Vec<String>,
                /// Lines after this one (only with `context_lines`).
                #[serde(skip_serializing_if = "Vec::is_empty")]
                pub after: Vec<String>,
            }
            $($rest)*
        }
    };
    (file; $($rest:tt)*) => {
        file_item! {
            @build [file] {
                /// Language Zoekt detected (may be empty).
                pub language: String,
            }
            $($rest)*
        }
    };
    (
        @build [$($line:ident)?] {$($extra:tt)*}
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Repository name.
            pub repo: String,
            /// Path inside the repository.
            pub path: String,
            /// Branches holding this version of the file (absent for plain-folder indexes).
            #[serde(skip_serializing_if = "Vec::is_empty")]
            pub branches: Vec<String>,
            $($extra)*
        }

        impl $name {
            /// Where the item is: its repository, branches and path.
            pub fn location(&self) -> $crate::form::Location<'_> {
                $crate::form::Location {
                    repo: &self.repo,
                    branches: &self.branches,
                    path: &self.path,
                }
            }
        }

        $(file_item! { @$line $name })?
    };
    (@file $name:ident) => {
        impl $name {
            /// The file's row: its path and branches, the tool's own `cells`, its language.
            fn listed_cells(
                &self,
                cells: impl IntoIterator<Item = Option<serde_json::Value>>,
            ) -> Vec<Option<serde_json::Value>> {
                let mut row = vec![
                    $crate::tools::shared::text(&self.path),
                    $crate::tools::shared::lines(&self.branches),
                ];
                row.extend(cells);
                row.push($crate::tools::shared::text(&self.language));
                row
            }
        }
    };
    (@line $name:ident) => {
        impl $name {
            /// Its line and context lines, clipped or dropped as `snippet` asks.
            fn shape_lines(&mut self, snippet: &$crate::engine::text::Snippet) {
                snippet.apply_with_context(&mut self.text, &mut self.before, &mut self.after);
            }
        }

        impl $crate::form::ItemText for $name {
            fn file(&self) -> Option<$crate::form::Location<'_>> {
                Some(self.location())
            }

            fn write_text(&self, out: &mut String) {
                $crate::tools::shared::write_in_context(
                    out,
                    &self.before,
                    |out| self.write_line(out),
                    &self.after,
                );
            }
        }
    };
}
pub(crate) use file_item;
