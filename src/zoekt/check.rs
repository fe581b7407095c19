//! What an answer of Zoekt must satisfy before the client returns it: the checks that tell
//! Zoekt's answer apart from one that says nothing reliable (contradictory counts, unnamed
//! files). Junk nested without limit is refused while the answer is read (`zoekt/read.rs`).

use super::wire::{RepoList, SearchRequest, SearchResult};

/// What a search answer must satisfy to be Zoekt's answer to `req` (`docs/zoekt.md`,
/// "Response"): `FileCount` counts every matching file before the display cut, so it is at
/// least the files returned, and exactly that many when fewer than `MaxDocDisplayCount` came
/// back (Zoekt ran out); never more files than asked; every file named. An answer that breaks
/// one of them says nothing reliable, least of all that nothing matched (`FileCount: 7` with
/// `Files: null` would otherwise read as an exact, empty result).
pub fn check_answer(req: &SearchRequest, result: &SearchResult) -> Result<(), String> {
    check_answer_for(u64::from(req.opts.max_doc_display_count), result)
}

/// [`check_answer`] for an answer to a request for `asked` files; for the start of an
/// answer too big to read whole, the files it holds (it is Zoekt's answer for that many).
pub fn check_answer_for(asked: u64, result: &SearchResult) -> Result<(), String> {
    let unnamed = result
        .files
        .iter()
        .find(|f| f.file_name.is_empty() || f.repository.is_empty())
        .map(|f| (f.file_name.as_str(), f.repository.as_str()));
    check_files(asked, result.files.len() as u64, result.file_count, unnamed)
}

/// [`check_answer`] over either API's answer: `asked` files (0: no cut), `returned`,
/// Zoekt's `FileCount`, and the first file without a name or a repository, if any.
pub fn check_files(
    asked: u64,
    returned: u64,
    file_count: u64,
    unnamed: Option<(&str, &str)>,
) -> Result<(), String> {
    if asked > 0 && returned > asked {
        return Err(format!("{returned} files returned for {asked} asked"));
    }
    if file_count < returned {
        return Err(format!(
            "FileCount {file_count} but {returned} files returned"
        ));
    }
    if returned < asked && file_count > returned {
        return Err(format!(
            "FileCount {file_count} but only {returned} files returned of {asked} asked"
        ));
    }
    if let Some((path, repo)) = unnamed {
        return Err(format!(
            "a file without a {} (FileName {:?}, Repository {:?})",
            if path.is_empty() {
                "name"
            } else {
                "repository"
            },
            crate::engine::text::clipped(path, 80),
            crate::engine::text::clipped(repo, 80)
        ));
    }
    Ok(())
}

/// What a list answer must satisfy: its statistics count the repositories it lists (one
/// entry per repository, however many shards hold it), and each is named. An answer that
/// counts repositories and lists none is not an empty index.
pub fn check_listing(list: &RepoList) -> Result<(), String> {
    if list.repos.is_empty() && list.stats.repos > 0 {
        return Err(format!(
            "Stats.Repos {} but no repository listed",
            list.stats.repos
        ));
    }
    if list.repos.iter().any(|r| r.repository.name.is_empty()) {
        return Err("a repository without a name".into());
    }
    Ok(())
}
