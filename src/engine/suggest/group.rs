//! Groups of siblings by name: how a level of hundreds of repositories, directories or files
//! is covered by a few ways.
//!
//! Fourteen ways cannot name 349 crates one by one, and the ones left out would be out of reach
//! of a model that follows only the ways. Names sorted are cut into a few runs of about the
//! same weight, each run written as one anchored regular expression: the names' common start
//! and a class of the character after it (`file:^rust-crates/[p-rP-R]`, `repo:^python-3\.1`,
//! `file:^test/fixedbugs/issue1[0-4]`). Called, a run is a result of its own, cut the same way,
//! until its names fit on the list.
//!
//! A run matches exactly what Zoekt's regular expression matches, so its count is exact: the
//! start is matched as written (a class of letters names both cases, so the atom holds a
//! capital and Zoekt matches it case-sensitively), and a letter's class holds both of its
//! cases.

use std::cmp::Ordering;

/// The character after a run's common start: which names of the run follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Initial {
    /// Nothing: the name is the start itself (a file whose name is a prefix of others').
    End,
    /// One character that is neither an ASCII letter nor a digit, as written.
    Char(char),
    /// A digit from the first to the second, both included.
    Digits(char, char),
    /// A letter from the first to the second (lower case, both included), in either case.
    Letters(char, char),
}

impl Initial {
    /// The initial of a name whose next character is `next` (`None`: the name ends).
    pub fn of(next: Option<char>) -> Initial {
        match next {
            None => Initial::End,
            Some(c) if c.is_ascii_digit() => Initial::Digits(c, c),
            Some(c) if c.is_ascii_alphabetic() => {
                let c = c.to_ascii_lowercase();
                Initial::Letters(c, c)
            }
            Some(c) => Initial::Char(c),
        }
    }

    /// Whether a name whose next character is `next` is one of this initial's.
    pub fn holds(self, next: Option<char>) -> bool {
        match (self, next) {
            (Initial::End, None) => true,
            (Initial::Char(c), Some(n)) => c == n,
            (Initial::Digits(lo, hi), Some(n)) => (lo..=hi).contains(&n),
            (Initial::Letters(lo, hi), Some(n)) => (lo..=hi).contains(&n.to_ascii_lowercase()),
            _ => false,
        }
    }

    /// The regular expression of this initial: `$`, the character (escaped by `escape`), a
    /// digit or a class of digits, or a class of letters in both cases (`[a-cA-C]`, `[mM]`).
    pub fn regex(self, escape: impl Fn(&str) -> String) -> String {
        match self {
            Initial::End => "$".into(),
            Initial::Char(c) => escape(&c.to_string()),
            Initial::Digits(lo, hi) if lo == hi => lo.to_string(),
            Initial::Digits(lo, hi) => format!("[{lo}-{hi}]"),
            Initial::Letters(lo, hi) => {
                let (ulo, uhi) = (lo.to_ascii_uppercase(), hi.to_ascii_uppercase());
                if lo == hi {
                    format!("[{lo}{ulo}]")
                } else {
                    format!("[{lo}-{hi}{ulo}-{uhi}]")
                }
            }
        }
    }

    /// The first name (in its order) of the run `start` + this initial.
    pub fn first_name(self, start: &str) -> String {
        match self {
            Initial::End => start.to_string(),
            Initial::Char(c) | Initial::Digits(c, _) | Initial::Letters(c, _) => {
                format!("{start}{c}")
            }
        }
    }

    /// The two as one run, when they are of one kind (digits with digits, letters with
    /// letters) and `self` comes first.
    fn joined(self, next: Initial) -> Option<Initial> {
        match (self, next) {
            (Initial::Digits(lo, _), Initial::Digits(_, hi)) => Some(Initial::Digits(lo, hi)),
            (Initial::Letters(lo, _), Initial::Letters(_, hi)) => Some(Initial::Letters(lo, hi)),
            _ => None,
        }
    }
}

/// One sibling to group: its name in its level (a directory's ends with `/`), its weight,
/// and what it stands for.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a, T> {
    /// The name, from its level down (`cmd/`, `print.go`, `tokio-1.54.1`).
    pub name: &'a str,
    /// What it holds, to balance the runs.
    pub weight: f64,
    /// What it stands for.
    pub item: T,
}

/// A part of a split: one member, or a run of several.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part<'a, T> {
    /// One member alone.
    One(T),
    /// The members whose names start with `start` followed by `initial`.
    Run {
        /// Their common start.
        start: &'a str,
        /// The character after it.
        initial: Initial,
    },
}

/// Whether `name` is one of the run `start` + `initial`.
pub fn in_run(name: &str, start: &str, initial: Initial) -> bool {
    name.strip_prefix(start)
        .is_some_and(|rest| initial.holds(rest.chars().next()))
}

/// Cuts `members` (all of whose names start with their first `known` bytes) into at most
/// `most` parts of about the same weight, in the order of their names: the names' common
/// start, then runs of the character after it. A run of one member is that member. Members
/// that differ only in the case of that character cannot be told apart by a run: they come
/// back one by one.
pub fn split<'a, T: Copy>(
    members: &[Member<'a, T>],
    known: usize,
    most: usize,
) -> Vec<Part<'a, T>> {
    if members.len() <= 1 {
        return members.iter().map(|m| Part::One(m.item)).collect();
    }
    let start = shared_start(members.iter().map(|m| m.name), known);
    let initials = initials_after(members, start);
    if initials.len() == 1 {
        return members.iter().map(|m| Part::One(m.item)).collect();
    }
    parts_at(start, balanced(&initials, most.max(2)))
}

/// The members (all starting with `start`) by the character after it, in that character's
/// order: `(initial, weight, members, first member)`.
fn initials_after<'a, T: Copy>(
    members: &[Member<'a, T>],
    start: &str,
) -> Vec<(Initial, f64, usize, T)> {
    let mut initials: Vec<(Initial, f64, usize, T)> = Vec::new();
    for m in members {
        let initial = Initial::of(m.name[start.len()..].chars().next());
        match initials.iter_mut().find(|(i, ..)| *i == initial) {
            Some((_, weight, count, _)) => {
                *weight += m.weight;
                *count += 1;
            }
            None => initials.push((initial, m.weight, 1, m.item)),
        }
    }
    initials.sort_by_key(|a| order(a.0));
    initials
}

/// `runs` of `start` (`(initial, members, first member)`) as parts: a run of one member is
/// that member.
fn parts_at<'a, T>(start: &'a str, runs: Vec<(Initial, usize, T)>) -> Vec<Part<'a, T>> {
    runs.into_iter()
        .map(|(initial, count, item)| match count {
            1 => Part::One(item),
            _ => Part::Run { start, initial },
        })
        .collect()
}

/// The members of `part`, among `members`.
pub fn held<'m, 'a, T: Copy + PartialEq>(
    members: &'m [Member<'a, T>],
    part: Part<'a, T>,
) -> impl Iterator<Item = &'m Member<'a, T>> {
    members.iter().filter(move |m| match part {
        Part::One(item) => m.item == item,
        Part::Run { start, initial } => in_run(m.name, start, initial),
    })
}

/// The members of a run whose expression also holds `big` (a name not among them), as parts
/// none of which holds it: past their common start with `big`, the members whose next
/// character comes before big's as few runs as they allow, those after it the same, and
/// those sharing it (in its very case) cut the same way one character further. A few parts,
/// where halving the run until none held `big` left a trail of small ones on each side.
pub fn around<'a, T: Copy>(
    members: &[Member<'a, T>],
    known: usize,
    big: &'a str,
) -> Vec<Part<'a, T>> {
    if members.len() <= 1 {
        return members.iter().map(|m| Part::One(m.item)).collect();
    }
    let start = shared_start(members.iter().map(|m| m.name).chain([big]), known);
    let next = |name: &'a str| name[start.len()..].chars().next();
    let big_next = next(big);
    let big_at = order(Initial::of(big_next));
    let (mut below, mut same, mut other_case, mut above) = (vec![], vec![], vec![], vec![]);
    for m in members {
        let at = next(m.name);
        match order(Initial::of(at)).cmp(&big_at) {
            Ordering::Less => below.push(*m),
            Ordering::Greater => above.push(*m),
            Ordering::Equal if at == big_next => same.push(*m),
            Ordering::Equal => other_case.push(*m),
        }
    }
    // A side is as few runs at the start as its initials allow (letters joined, digits
    // joined, any other character alone: none holds big's, which lies beyond the side; a
    // share of the whole weight joins all it can), a member alone as itself.
    let fewest =
        |side: &[Member<'a, T>]| parts_at(start, balanced(&initials_after(side, start), 1));
    let mut parts = fewest(&below);
    // Big's initial in the other case: a start of their own, past it (in as few runs as
    // `split` makes: two at most where their kinds allow).
    parts.extend(split(&other_case, start.len(), 2));
    // Those sharing big's character share one more with it: the start grows each time.
    let further = start.len() + big_next.map_or(0, char::len_utf8);
    if further > start.len() {
        parts.extend(around(&same, further, big));
    } else {
        parts.extend(same.iter().map(|m| Part::One(m.item)));
    }
    parts.extend(fewest(&above));
    parts
}

/// The start all `names` share (all of them sharing their first `known` bytes), ending at a
/// character boundary; empty for no names.
pub fn shared_start<'a>(names: impl Iterator<Item = &'a str> + Clone, known: usize) -> &'a str {
    let Some(first) = names.clone().next() else {
        return "";
    };
    let base = known.min(first.len());
    let mut end = base;
    'grow: for (at, c) in first[base..].char_indices() {
        let at = base + at;
        for name in names.clone().skip(1) {
            if !name.get(at..).is_some_and(|rest| rest.starts_with(c)) {
                break 'grow;
            }
        }
        end = at + c.len_utf8();
    }
    &first[..end]
}

/// Where an initial sorts: by its character (a letter by its lower case), the end first.
fn order(i: Initial) -> (u32, u8) {
    match i {
        Initial::End => (0, 0),
        Initial::Char(c) => (c as u32, 0),
        Initial::Digits(lo, _) | Initial::Letters(lo, _) => (lo as u32, 1),
    }
}

/// Runs of neighbouring initials (of one kind) into at most `most` parts, each at most a
/// share of the weight that grows until they fit: `(initial, members, first member)`.
fn balanced<T: Copy>(
    initials: &[(Initial, f64, usize, T)],
    most: usize,
) -> Vec<(Initial, usize, T)> {
    let total: f64 = initials.iter().map(|i| i.1).sum();
    let mut cap = total / most as f64;
    loop {
        let mut runs: Vec<(Initial, f64, usize, T)> = Vec::new();
        for &(initial, weight, count, item) in initials {
            if let Some(last) = runs.last_mut()
                && last.1 + weight <= cap
                && let Some(joined) = last.0.joined(initial)
            {
                *last = (joined, last.1 + weight, last.2 + count, last.3);
                continue;
            }
            runs.push((initial, weight, count, item));
        }
        // Past the whole weight, every run that can join has: no cap fits better.
        if runs.len() <= most || cap > total {
            return runs.into_iter().map(|(i, _, c, t)| (i, c, t)).collect();
        }
        cap = match cap.partial_cmp(&0.0) {
            Some(Ordering::Greater) => cap * 1.25,
            _ => 1.0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members<'a>(names: &[&'a str]) -> Vec<Member<'a, usize>> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| Member {
                name,
                weight: 1.0,
                item: i,
            })
            .collect()
    }

    /// The parts as text: `#i` for a member alone, `start+regex` for a run.
    fn said(parts: &[Part<usize>]) -> Vec<String> {
        parts
            .iter()
            .map(|p| match p {
                Part::One(i) => format!("#{i}"),
                Part::Run { start, initial } => format!("{start}+{}", initial.regex(|s| s.into())),
            })
            .collect()
    }

    #[test]
    fn many_names_become_a_few_runs_by_their_first_letters() {
        let names: Vec<String> = ('a'..='z').map(|c| format!("{c}x/")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let parts = split(&members(&names), 0, 6);
        assert!(parts.len() <= 6, "{:?}", said(&parts));
        // Every name is alone or in exactly one run, and runs are written as classes of
        // both cases.
        each_once(&names, &parts);
        assert_eq!(said(&parts)[0], "+[a-eA-E]");
    }

    #[test]
    fn a_common_start_is_kept_and_the_character_after_it_cut() {
        let names = [
            "issue10.go",
            "issue11.go",
            "issue2.go",
            "issue30.go",
            "issue31.go",
            "issue4.go",
            "bug1.go",
            "bug2.go",
        ];
        // All issue*: the start grows to `issue`, then digits split.
        let issues = members(&names[..6]);
        assert_eq!(said(&split(&issues, 0, 3)), ["issue+[1-2]", "issue+[3-4]"]);
        // Both kinds: by the first letter, bug* and issue* apart.
        assert_eq!(said(&split(&members(&names), 0, 4)), ["+[bB]", "+[iI]"]);
    }

    #[test]
    fn a_run_holding_a_big_name_is_cut_around_it_into_a_few_parts() {
        // python-2.7's Lib for `init`: idlelib/ named alone among these.
        let names = [
            "hmac.py",
            "htmllib.py",
            "ihooks.py",
            "imaplib.py",
            "inspect.py",
            "Idle.py",
            "json/",
            "keyword.py",
        ];
        let parts = around(&members(&names), 0, "idlelib/");
        // Before i, after it, i's other case from its own start, and i's names past the d.
        assert_eq!(said(&parts), ["+[hH]", "#5", "i+[h-nH-N]", "+[j-kJ-K]"]);
        each_once_and_not(&names, &parts, "idlelib/");
        // Names that share more with the big one are cut one character further each time.
        let tests = [
            "tabnanny.py",
            "telnetlib.py",
            "tempfile.py",
            "textwrap.py",
            "trace.py",
        ];
        let parts = around(&members(&tests), 0, "test/");
        assert_eq!(said(&parts), ["#0", "te+[l-mL-M]", "#3", "#4"]);
        each_once_and_not(&tests, &parts, "test/");
        // Digits, other characters and letters beside a big name that starts the others
        // (go-toolchain among go-* repositories): one run of each kind.
        let go = [
            "go-auth", "go-cmp", "go-yaml", "go1", "go2", "go_x", "go_y", "gopls", "gox", "g0",
        ];
        let parts = around(&members(&go), 0, "go-toolchain");
        assert_eq!(
            said(&parts),
            [
                "#9",
                "go-+[a-cA-C]",
                "#2",
                "go+[1-2]",
                "go+_",
                "go+[p-xP-X]"
            ]
        );
        each_once_and_not(&go, &parts, "go-toolchain");
    }

    /// Every one of `names` is in exactly one of `parts`, and none of them holds `big`.
    fn each_once_and_not(names: &[&str], parts: &[Part<usize>], big: &str) {
        each_once(names, parts);
        for p in parts {
            if let Part::Run { start, initial } = p {
                assert!(!in_run(big, start, *initial), "{big} in {:?}", said(parts));
            }
        }
    }

    /// Every one of `names` is alone or in exactly one run of `parts`.
    fn each_once(names: &[&str], parts: &[Part<usize>]) {
        for (i, name) in names.iter().enumerate() {
            let holding = parts
                .iter()
                .filter(|p| match p {
                    Part::Run { start, initial } => in_run(name, start, *initial),
                    Part::One(one) => *one == i,
                })
                .count();
            assert_eq!(holding, 1, "{name} in {:?}", said(parts));
        }
    }

    #[test]
    fn names_of_other_characters_and_a_name_that_ends_are_runs_alone() {
        let names = [
            "@types/",
            "@babel/",
            "_x/",
            "a/",
            "b/",
            "Makefile",
            "Makefile.am",
        ];
        let parts = split(&members(&names), 0, 2);
        // `@` and `_` cannot join letters; the two Makefiles are one run.
        assert_eq!(said(&parts), ["+@", "#2", "+[a-mA-M]"]);
        let makefiles = members(&names[5..]);
        assert_eq!(said(&split(&makefiles, 0, 4)), ["#0", "#1"]);
        assert!(in_run("Makefile", "Makefile", Initial::End));
        assert!(!in_run("Makefile.am", "Makefile", Initial::End));
    }

    #[test]
    fn names_that_differ_only_in_case_come_back_one_by_one() {
        let parts = split(&members(&["Readme", "readme.md"]), 0, 4);
        assert_eq!(said(&parts), ["#0", "#1"]);
        assert!(Initial::Letters('m', 'm').holds(Some('M')));
        assert!(!Initial::Digits('0', '4').holds(Some('5')));
    }

    #[test]
    fn a_multibyte_start_is_cut_at_a_character() {
        let parts = split(&members(&["éa/", "éb/", "éc/"]), 0, 2);
        assert!(
            parts
                .iter()
                .all(|p| !matches!(p, Part::Run { start, .. } if *start != "é")),
            "{:?}",
            said(&parts)
        );
    }
}
