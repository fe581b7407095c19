//! What a listing of names is ([`Source::Names`]): the directory a tool declares and how its
//! query reads for a part, and the files found, with the parts the backend left cut. The
//! engine collects it in `names.rs`; a tool reads it in [`Found::Names`].
//!
//! [`Source::Names`]: super::tool::Source::Names
//! [`Found::Names`]: super::tool::Found::Names

use std::sync::Arc;

use super::window::Cut;

/// How a tool's query reads for one part of its listing: implemented by the plan of a tool
/// whose source is [`Names`], in the backend's query syntax, which the engine does not speak.
pub trait NamesQuery: Send + Sync + std::fmt::Debug {
    /// The query for every file under `dir` (a path ending in `/`, or empty for everywhere
    /// the listing covers), except those under each of `except` (directories inside `dir`,
    /// each ending in `/`). Paths compare case-sensitively.
    fn under(&self, dir: &str, except: &[String]) -> String;
}

/// A listing of names a tool declares: the directory, and how its query reads for a part.
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    /// The directory listed: a path ending in `/`, or empty for the top.
    pub dir: &'a str,
    /// The query of a part of it.
    pub query: &'a dyn NamesQuery,
}

/// One file of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// Repository name.
    pub repo: Arc<str>,
    /// Path inside the repository.
    pub path: Box<str>,
    /// Language, as the backend detected it (empty: unknown).
    pub language: Arc<str>,
}

/// Part of a listing: the files under a directory, except those under some of its
/// subdirectories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The directory (ending in `/`, or empty for the top).
    pub dir: String,
    /// Subdirectories left out (each ending in `/`).
    pub except: Vec<String>,
}

impl Part {
    /// Whether the file at `path` is one of the part's.
    pub(crate) fn holds(&self, path: &str) -> bool {
        path.starts_with(&self.dir) && !self.except.iter().any(|e| path.starts_with(e.as_str()))
    }

    /// Whether some files under `dir` may be the part's.
    fn meets(&self, dir: &str) -> bool {
        self.dir.starts_with(dir) || self.holds(dir)
    }
}

/// Every file a listing found, and what the backend may have left out.
#[derive(Debug, Clone, Default)]
pub struct NameList {
    /// The directory listed (ending in `/`, or empty for the top).
    pub dir: String,
    /// The files, sorted by repository and path, each once.
    pub files: Vec<ListedFile>,
    /// Parts whose answer the backend cut, and which could not be split further: files
    /// under them may be missing.
    pub cut: Vec<Part>,
    /// What the backend left out that asking in parts does not bring back (crashed shards,
    /// backends of a fan-out that did not answer), over every part.
    pub missing: Cut,
    /// Backends of a fan-out found serving the same files (a bit each).
    pub shared_backends: u64,
}

impl NameList {
    /// Whether every file under `dir` (ending in `/`, or empty) was listed: counts over it
    /// are exact. Otherwise they are lower bounds.
    pub fn whole_under(&self, dir: &str) -> bool {
        self.missing.is_none() && !self.cut.iter().any(|p| p.meets(dir))
    }

    /// Whether every file the listing covers was listed.
    pub fn is_whole(&self) -> bool {
        self.whole_under(&self.dir)
    }

    /// The listing of `dir`, a directory inside this one.
    pub(crate) fn within(&self, dir: &str) -> NameList {
        NameList {
            dir: dir.to_string(),
            files: self
                .files
                .iter()
                .filter(|f| f.path.starts_with(dir))
                .cloned()
                .collect(),
            cut: self.cut.iter().filter(|p| p.meets(dir)).cloned().collect(),
            missing: self.missing,
            shared_backends: self.shared_backends,
        }
    }

    /// Bytes it holds, roughly: what the window cache weighs it at.
    pub(crate) fn weight(&self) -> u32 {
        let paths: usize = self.files.iter().map(|f| f.path.len()).sum();
        let per_file = std::mem::size_of::<ListedFile>();
        u32::try_from(paths + self.files.len() * per_file + 256).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_holds_its_files_and_meets_the_directories_it_touches() {
        let part = Part {
            dir: "a/".into(),
            except: vec!["a/b/".into()],
        };
        assert!(part.holds("a/x.go") && part.holds("a/c/y.go"));
        assert!(!part.holds("a/b/z.go") && !part.holds("ab/z.go"));
        // Its own directory, those inside it (not left out), and those around it.
        assert!(part.meets("a/") && part.meets("a/c/") && part.meets(""));
        assert!(!part.meets("a/b/") && !part.meets("a/b/c/") && !part.meets("d/"));
    }

    #[test]
    fn counts_are_whole_only_where_no_cut_part_reaches() {
        let list = NameList {
            dir: String::new(),
            cut: vec![Part {
                dir: "big/".into(),
                except: vec!["big/sub/".into()],
            }],
            ..NameList::default()
        };
        assert!(list.whole_under("small/") && list.whole_under("big/sub/"));
        assert!(!list.whole_under("big/") && !list.whole_under("") && !list.is_whole());
        let inside = list.within("small/");
        assert!(inside.is_whole() && inside.dir == "small/");
    }
}
