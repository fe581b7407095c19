//! The page budget: a page ends early when what a reader gets would pass the token budget.
//! It is measured by writing it, with the same code that writes what is sent (`text.rs`,
//! `json.rs`), so nothing is measured that is not written and nothing is written that was
//! not measured. A client hands a model one form or the other (the text, or the structured
//! page's JSON), so each must fit on its own.

use serde_json::Value;

use super::item::{ItemRow, ItemText};
use super::json::page_view;
use super::layout::json_chars;
use super::narrow::Suggestions;
use super::text::page_text;
use crate::engine::page::Page;
use crate::engine::tool::Tool;

/// A page as a reader gets it: the page, ended where its budget says, and its two forms.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown<T> {
    /// The page as sent: its items, cursor and facts.
    pub page: Page<T>,
    /// Its text block.
    pub text: String,
    /// Its structured page.
    pub structured: Value,
    /// What the budget measured: the sizes of `text` and `structured` as sent.
    pub size: PageSize,
}

/// How big a page is in each form a client may hand a model, in characters (what a token
/// budget of about 4 characters a token bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize {
    /// Characters of the text block.
    pub text: usize,
    /// Characters of the structured page's compact JSON.
    pub json: usize,
}

impl PageSize {
    /// The size of a page written as `text` and `structured`.
    pub fn of(text: &str, structured: &Value) -> PageSize {
        PageSize {
            text: text.chars().count(),
            json: json_chars(structured),
        }
    }

    /// Whether both forms fit in `budget` characters.
    pub fn fits(&self, budget: usize) -> bool {
        self.text <= budget && self.json <= budget
    }
}

/// The page of tool `T` (named `tool`, called with `args`) as a reader gets it, in at most
/// `budget` characters in each form: whole when it fits, otherwise ended after the most
/// items that fit (never fewer than one, so a walk moves), its cursor right after the last
/// one kept. Its suggested ways to narrow are part of what is measured.
pub fn show<T: Tool>(
    tool: &str,
    args: &T::Args,
    page: Page<T::Item>,
    budget: usize,
) -> Shown<T::Item>
where
    T::Item: ItemText + ItemRow,
{
    let narrow = Suggestions::of::<T>(args, &page);
    let write = |page: Page<T::Item>| {
        let text = page_text(tool, &page, narrow.as_ref());
        let structured = page_view(tool, &page, narrow.as_ref());
        let size = PageSize::of(&text, &structured);
        Shown {
            page,
            text,
            structured,
            size,
        }
    };
    let len = page.items.len();
    let whole = write(page);
    if len <= 1 || whole.size.fits(budget) {
        return whole;
    }
    // Every shorter page says it was cut short, so its size grows with its items: the most
    // that fit are found by halving, each try written whole. The first item always stays.
    let (mut fitting, mut over) = (1, len);
    let mut best = write(whole.page.shortened(1));
    while over - fitting > 1 {
        let mid = fitting + (over - fitting) / 2;
        let tried = write(whole.page.shortened(mid));
        if tried.size.fits(budget) {
            (fitting, best) = (mid, tried);
        } else {
            over = mid;
        }
    }
    best
}
