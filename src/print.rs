//! What the tool subcommands print: an answer, one page, or every page with `--all` and a
//! summary that shows whether the walk repeated anything. The commands themselves (their
//! flags, `serve`) are `main.rs`'s; the harness's are `commands.rs`'s.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgMatches, FromArgMatches};
use tokio::time::timeout;

use zoekt_pager::form;
use zoekt_pager::tool::PagedArgs;
use zoekt_pager::tools::{AnswerTool, PagedTool, ToolVisitor};
use zoekt_pager::{Pager, ToolError, error_text};

use crate::Backend;

/// Runs the tool subcommand `name`, if there is one by that name.
pub(crate) struct RunTool<'a> {
    pub(crate) name: &'a str,
    pub(crate) matches: &'a ArgMatches,
    pub(crate) pager: &'a Pager<Backend>,
    /// Each call's deadline (`--call-timeout-ms`), as the server keeps it: a query Zoekt
    /// cannot finish ends there with BACKEND_TIMEOUT, on the command line too.
    pub(crate) call_timeout: Duration,
    pub(crate) run: Option<Pin<Box<dyn Future<Output = ExitCode> + 'a>>>,
}

impl RunTool<'_> {
    fn args<A: FromArgMatches>(&self) -> Result<A, clap::Error> {
        A::from_arg_matches(self.matches)
    }
}

impl ToolVisitor for RunTool<'_> {
    fn paged<T: PagedTool>(&mut self) {
        if self.name != T::NAME {
            return;
        }
        let all = self.matches.get_flag("all");
        let json = self.matches.get_flag("json");
        self.run = Some(match self.args::<T::Args>() {
            Ok(args) => Box::pin(walk::<T>(self.pager, self.call_timeout, args, all, json)),
            Err(e) => Box::pin(async move { e.exit() }),
        });
    }

    fn answer<T: AnswerTool>(&mut self) {
        if self.name != T::NAME {
            return;
        }
        let (pager, deadline) = (self.pager, self.call_timeout);
        self.run = Some(match self.args::<T::Args>() {
            Ok(args) => Box::pin(async move {
                match timeout(deadline, T::answer(pager, &args)).await {
                    Ok(Ok(out)) => {
                        say(&T::text(&out));
                        ExitCode::SUCCESS
                    }
                    Ok(Err(e)) => failed(&ToolError::from(&e)),
                    Err(_) => failed(&ToolError::call_timeout(deadline)),
                }
            }),
            Err(e) => Box::pin(async move { e.exit() }),
        });
    }
}

/// Prints a call's error as the server words it, and fails the command.
fn failed(e: &ToolError) -> ExitCode {
    eprintln!("{}", error_text(e));
    ExitCode::FAILURE
}

/// How many held pages in a row `--all` asks again before it stops.
const HELD_TRIES: u32 = 5;

/// Prints one page, or every page with `--all`, then a summary that shows whether the walk
/// repeated anything.
async fn walk<T: PagedTool>(
    pager: &Pager<Backend>,
    deadline: Duration,
    mut args: T::Args,
    all: bool,
    json: bool,
) -> ExitCode {
    let (mut pages, mut items) = (0usize, 0usize);
    let mut seen = HashSet::new();
    let mut duplicates = 0usize;
    // Pages in a row that Zoekt's cut answer left empty, holding the walk's place.
    let mut held = 0u32;
    loop {
        let shown = match timeout(deadline, pager.page::<T>(&args)).await {
            Ok(Ok(p)) => form::show::<T>(T::NAME, &args, p, pager.config().page_chars()),
            Ok(Err(e)) => return failed(&ToolError::from(&e)),
            Err(_) => return failed(&ToolError::call_timeout(deadline)),
        };
        let form::Shown {
            page,
            text,
            structured,
            ..
        } = shown;
        pages += 1;
        items += page.count;
        for item in &page.items {
            if !seen.insert(serde_json::to_string(item).unwrap_or_default()) {
                duplicates += 1;
            }
        }
        // Exactly what MCP sends as the call's structuredContent: one shape for programs.
        let printed = if json {
            say(&structured.to_string())
        } else {
            say(&text)
        };
        if !printed {
            // The reader went away (`| head`): what it did not read needs no more pages.
            return ExitCode::SUCCESS;
        }
        // A held page (empty, its cursor the same place) asks again: a few times, a second
        // apart, then the walk stops where it is rather than loop on a shard that stays down.
        held = if page.count == 0 && page.has_more {
            held + 1
        } else {
            0
        };
        if all && held >= HELD_TRIES {
            eprintln!(
                "stopped: Zoekt's answer ended before this place {held} times in a row (see the \
                 warnings); go on later with --cursor '{}'",
                page.next_cursor.as_deref().unwrap_or_default()
            );
            return ExitCode::FAILURE;
        }
        if all && held > 0 {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
        match (&page.next_cursor, all) {
            (Some(c), true) => {
                let mut paging = args.paging();
                paging.cursor = Some(c.clone());
                args.set_paging(paging);
            }
            _ => break,
        }
    }
    if all {
        eprintln!(
            "walked {pages} page(s): {items} items, {} unique, {duplicates} duplicate(s)",
            seen.len()
        );
    }
    ExitCode::SUCCESS
}

/// Writes `text` and a newline to stdout; `false` when the reader has gone (a closed pipe),
/// which ends the command quietly instead of in a panic.
fn say(text: &str) -> bool {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => false,
        Err(e) => {
            eprintln!("zoekt-pager: cannot write the page: {e}");
            false
        }
    }
}
