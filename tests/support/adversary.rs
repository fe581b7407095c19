//! An in-process fake Zoekt for the traps a real one cannot be made to spring on demand.
//!
//! It serves a fixed list of files for any query and, on every call, answers like a hostile
//! Zoekt: files sorted by score (desc), EVERY group of equal scores reshuffled at random, then
//! one file with the [`NOVEL_EXT`] extension moved from wherever it landed (often beyond the
//! `MaxDocDisplayCount` cut) up to position 3, then the cut. `FileCount` and `MatchCount`
//! count every file and line, as Zoekt's do. Each matching line is one `search` item.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use zoekt_pager::backend::{
    Backend, BackendError, FileSearch, Fragment, MatchedLine, RankedFile, RankedFiles, Readiness,
    RepoListing, SearchStats,
};

/// The extension Zoekt would boost ("novel": none of the top files has it).
pub const NOVEL_EXT: &str = ".novel";

/// One file of the fake corpus: where it is, its score, its matching line numbers.
#[derive(Debug, Clone)]
pub struct FakeFile {
    pub repo: String,
    pub path: String,
    pub score: f64,
    pub lines: Vec<u32>,
}

/// The fixture: tie groups of several sizes (the top one too), files yielding 1 to 3 items,
/// two tied novel files at the very bottom, listed in an order that is NOT the page order.
pub fn fixture() -> Vec<FakeFile> {
    // (score, files in the group, lines per file)
    let groups: [(f64, usize, u32); 7] = [
        (900.0, 3, 2),
        (800.0, 6, 2),
        (700.0, 9, 1),
        (650.0, 2, 3),
        (500.0, 7, 1),
        (300.0, 4, 2),
        (100.0, 3, 2),
    ];
    let mut files = Vec::new();
    for (g, &(score, n, lines)) in groups.iter().enumerate().rev() {
        for i in (0..n).rev() {
            let ext = if g == 6 && i < 2 { NOVEL_EXT } else { ".go" };
            files.push(FakeFile {
                repo: format!("repo-{}", ["c", "a", "b"][i % 3]),
                path: format!("g{g}/f{:02}{ext}", (i * 5 + 3) % 17),
                score,
                lines: (1..=lines).map(|l| l * 10 + i as u32).collect(),
            });
        }
    }
    files
}

/// The items (repo, path, line) in the documented page order, from the file list alone.
pub fn expected_order(files: &[FakeFile]) -> Vec<(String, String, u32)> {
    let mut sorted: Vec<&FakeFile> = files.iter().collect();
    sorted.sort_by_cached_key(|f| {
        (
            std::cmp::Reverse(super::oracle::OrdF64(f.score)),
            super::oracle::file_key(&f.repo, &f.path, &[]),
        )
    });
    let mut out = Vec::new();
    for f in sorted {
        let mut lines = f.lines.clone();
        lines.sort_unstable();
        out.extend(
            lines
                .into_iter()
                .map(|l| (f.repo.clone(), f.path.clone(), l)),
        );
    }
    out
}

pub struct Adversary {
    files: Vec<FakeFile>,
    rng: Mutex<u64>,
    /// Calls where the boosted file came from beyond the cut.
    pub boosts_from_beyond_cut: AtomicU64,
}

impl Adversary {
    pub fn new(files: Vec<FakeFile>, seed: u64) -> Self {
        Adversary {
            files,
            rng: Mutex::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            boosts_from_beyond_cut: AtomicU64::new(0),
        }
    }

    /// xorshift64*: a number in `0..n`.
    fn below(&self, n: usize) -> usize {
        let mut s = self.rng.lock().unwrap();
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    fn ranked_file(f: &FakeFile) -> RankedFile {
        let lines = f
            .lines
            .iter()
            .map(|&n| MatchedLine {
                text: format!("advProbe at line {n}\n"),
                number: n,
                fragments: vec![Fragment::default()],
                ..MatchedLine::default()
            })
            .collect();
        RankedFile {
            path: f.path.clone(),
            repo: f.repo.clone(),
            language: "Go".into(),
            score: f.score,
            lines,
            ..RankedFile::default()
        }
    }
}

impl Backend for Adversary {
    async fn search(&self, req: &FileSearch) -> Result<RankedFiles, BackendError> {
        let mut files: Vec<FakeFile> = self.files.clone();
        files.sort_by(|a, b| b.score.total_cmp(&a.score));
        // Fisher-Yates inside every run of equal scores.
        let mut start = 0;
        while start < files.len() {
            let bits = files[start].score.to_bits();
            let end = start + files[start..].partition_point(|f| f.score.to_bits() == bits);
            for i in (start + 1..end).rev() {
                let j = start + self.below(i - start + 1);
                files.swap(i, j);
            }
            start = end;
        }
        let cut = match req.max_files as usize {
            0 => files.len(),
            n => n.min(files.len()),
        };
        if let Some(i) = files.iter().position(|f| f.path.ends_with(NOVEL_EXT))
            && i > 2
            && files.len() > 3
        {
            if i >= cut {
                self.boosts_from_beyond_cut.fetch_add(1, Ordering::Relaxed);
            }
            let novel = files.remove(i);
            files.insert(2, novel);
        }
        files.truncate(cut);
        Ok(RankedFiles {
            stats: SearchStats {
                file_count: self.files.len() as u64,
                match_count: self.files.iter().map(|f| f.lines.len() as u64).sum(),
                ..SearchStats::default()
            },
            files: files.iter().map(Self::ranked_file).collect(),
            cut_at_bytes: false,
        })
    }

    async fn repos(
        &self,
        _query: &str,
        _wall_time: std::time::Duration,
    ) -> Result<RepoListing, BackendError> {
        Ok(RepoListing::default())
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        Ok(Readiness {
            status: 200,
            detail: String::new(),
            loading: false,
        })
    }
}
