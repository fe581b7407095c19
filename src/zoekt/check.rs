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
    let returned = result.files.len() as u64;
    let asked = u64::from(req.opts.max_doc_display_count);
    if asked > 0 && returned > asked {
        return Err(format!("{returned} files returned for {asked} asked"));
    }
    if result.file_count < returned {
        return Err(format!(
            "FileCount {} but {returned} files returned",
            result.file_count
        ));
    }
    if returned < asked && result.file_count > returned {
        return Err(format!(
            "FileCount {} but only {returned} files returned of {asked} asked",
            result.file_count
        ));
    }
    if let Some(f) = result
        .files
        .iter()
        .find(|f| f.file_name.is_empty() || f.repository.is_empty())
    {
        return Err(format!(
            "a file without a {} (FileName {:?}, Repository {:?})",
            if f.file_name.is_empty() {
                "name"
            } else {
                "repository"
            },
            crate::engine::text::clipped(&f.file_name, 80),
            crate::engine::text::clipped(&f.repository, 80)
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
