//! A window table's row and the verdict line that says whether the fan-out held its target
//! over the rows.

use std::fmt::Write as _;

/// One window of one query: the fan-out's time, raw Zoekt's beside it, and a whole first page
/// whose first window it is (ms).
pub(crate) struct Row {
    pub(crate) corpus: &'static str,
    pub(crate) query: &'static str,
    pub(crate) files: u32,
    pub(crate) fan: (f64, f64),
    /// The slowest backend asked alone (p50, p90) and the fan-out's p50 over it; `None` when
    /// not measured.
    pub(crate) alone: Option<((f64, f64), f64)>,
    pub(crate) together: (f64, f64),
    pub(crate) over_together: f64,
    /// A whole first page whose first window is this one.
    pub(crate) page: PageRow,
    pub(crate) single: f64,
}

impl Row {
    /// The row's line in a window table, ending in a newline: the columns of the slowest
    /// backend asked alone only where they were measured (the first table has them, the
    /// table with the pager on a CPU of its own does not).
    pub(crate) fn table_line(&self) -> String {
        let mut line = format!(
            "| {} | `{}` | {} | {:.2} / {:.2} |",
            self.corpus, self.query, self.files, self.fan.0, self.fan.1
        );
        if let Some(((p50, p90), over)) = self.alone {
            let _ = write!(line, " {p50:.2} / {p90:.2} | {over:+.2} |");
        }
        let (page, together) = (&self.page, self.together);
        let _ = writeln!(
            line,
            " {:.2} / {:.2} | {:+.2} | {} | {:.2} | {:+.2} | {:.2} | {:.2} |",
            together.0,
            together.1,
            self.over_together,
            page.windows,
            page.p50,
            page.over,
            page.on_one,
            self.single
        );
        line
    }
}

/// A whole first page of `files_with_matches` (one item a file, cache off) whose first window
/// is a row's window.
pub(crate) struct PageRow {
    /// Its p50 (ms).
    pub(crate) p50: f64,
    /// Its p50 over the three asked together for the windows it asked, run by run (ms).
    pub(crate) over: f64,
    /// The same page's p50 from the webserver holding the whole index (ms).
    pub(crate) on_one: f64,
    /// How many windows it asked (more than one past files tied at a window's edge).
    pub(crate) windows: usize,
}

/// The line that says whether the fan-out held its target over `rows`: the worst p50 over
/// the three asked together, of the search, of a page of one window, and of a page that asks
/// several (one after another, with one webserver as with three: past files tied at the
/// window's edge), per window, which is what the target is about, and whole.
pub(crate) fn verdict(rows: &[Row]) -> String {
    let at = |r: &Row| format!("{} `{}` at {}", r.corpus, r.query, r.files);
    let (search, search_at) = worst(rows.iter(), |r| r.over_together).expect("rows");
    let mut out = format!(
        "Worst p50 over the slowest webserver's raw time: search {search:+.2} ms ({})",
        at(search_at)
    );
    let mut held = search <= TARGET_MS;
    if let Some((page, r)) = worst(rows.iter().filter(|r| r.page.windows == 1), |r| r.page.over) {
        held &= page <= TARGET_MS;
        let _ = write!(out, ", page of one window {page:+.2} ms ({})", at(r));
    }
    let per_window = |r: &Row| r.page.over / r.page.windows as f64;
    if let Some((page, r)) = worst(rows.iter().filter(|r| r.page.windows > 1), per_window) {
        held &= page <= TARGET_MS;
        let _ = write!(
            out,
            ", page of several windows {page:+.2} ms a window ({}, {} windows)",
            at(r),
            r.page.windows
        );
    }
    if let Some((page, r)) = worst(rows.iter().filter(|r| r.page.windows > 1), |r| r.page.over) {
        let _ = write!(
            out,
            " and {page:+.2} ms in all over the {} windows of {}",
            r.page.windows,
            at(r)
        );
    }
    let held = if held { "held" } else { "MISSED" };
    let _ = writeln!(out, "; target +{TARGET_MS:.0} ms a window: {held}.");
    out
}

/// The row of `rows` with the highest `over`, and that value.
fn worst<'a>(
    rows: impl Iterator<Item = &'a Row>,
    over: impl Fn(&Row) -> f64,
) -> Option<(f64, &'a Row)> {
    rows.max_by(|a, b| over(a).total_cmp(&over(b)))
        .map(|r| (over(r), r))
}

/// What a page over three backends may cost over the slowest backend's raw time for the same
/// window (p50, ms): issue 27's bar.
const TARGET_MS: f64 = 2.0;
