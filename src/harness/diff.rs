//! Comparing MCP results with goldens, field by field, in words a maintainer can act on:
//! `scenario symbols-walk, step 0 page 2 (search_symbols):
//! result.structuredContent.files[4][2][0][2]: expected "pagerItem61", got "pagerItem16"`.

use std::fmt;

use serde_json::Value;

use super::recording::Outcome;

/// Most differences listed per scenario (the first ones are the useful ones).
const MAX_LISTED: usize = 20;

/// One field where a result differs from its golden.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Name of the scenario the difference was found in.
    pub scenario: String,
    /// `step S page P (tool)`, or `results` for a count mismatch.
    pub place: String,
    /// JSON path of the field, e.g. `result.structuredContent.items[3].name`.
    pub field: String,
    /// The golden's value, as compact JSON cut to 300 characters.
    pub expected: String,
    /// The value the run produced, in the same form as `expected`.
    pub actual: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "scenario {}, {}: {}:\n    expected {}\n    got      {}",
            self.scenario, self.place, self.field, self.expected, self.actual
        )
    }
}

/// Every difference between the goldens and the results of one scenario (at most 20).
pub fn compare(scenario: &str, expected: &[Outcome], actual: &[Outcome]) -> Vec<Difference> {
    let mut out = Vec::new();
    for (e, a) in expected.iter().zip(actual) {
        let place = format!("step {} page {} ({})", e.step, e.page, e.tool);
        let mut push = |field: String, expected: String, actual: String| {
            out.push(Difference {
                scenario: scenario.to_string(),
                place: place.clone(),
                field,
                expected,
                actual,
            })
        };
        if (e.step, e.page, &e.tool) != (a.step, a.page, &a.tool) {
            push(
                "call".into(),
                format!("step {} page {} ({})", e.step, e.page, e.tool),
                format!("step {} page {} ({})", a.step, a.page, a.tool),
            );
            break;
        }
        walk(&e.args, &a.args, "args".into(), &mut push);
        walk(&e.result, &a.result, "result".into(), &mut push);
        if out.len() >= MAX_LISTED {
            break;
        }
    }
    if expected.len() != actual.len() && out.len() < MAX_LISTED {
        out.push(Difference {
            scenario: scenario.to_string(),
            place: "results".into(),
            field: "number of results (pages)".into(),
            expected: expected.len().to_string(),
            actual: actual.len().to_string(),
        });
    }
    out.truncate(MAX_LISTED);
    out
}

/// Every leaf where `e` and `a` differ, as (JSON path below `path`, `e`'s value, `a`'s).
pub(super) fn walk(
    e: &Value,
    a: &Value,
    path: String,
    push: &mut impl FnMut(String, String, String),
) {
    match (e, a) {
        (Value::Object(em), Value::Object(am)) => {
            for (k, ev) in em {
                let p = format!("{path}.{k}");
                match am.get(k) {
                    Some(av) => walk(ev, av, p, push),
                    None => push(p, short(ev), "(missing)".into()),
                }
            }
            for (k, av) in am {
                if !em.contains_key(k) {
                    push(format!("{path}.{k}"), "(missing)".into(), short(av));
                }
            }
        }
        (Value::Array(ea), Value::Array(aa)) => {
            for (i, (ev, av)) in ea.iter().zip(aa).enumerate() {
                walk(ev, av, format!("{path}[{i}]"), push);
            }
            if ea.len() != aa.len() {
                push(
                    format!("{path}.length"),
                    ea.len().to_string(),
                    aa.len().to_string(),
                );
            }
        }
        (Value::String(es), Value::String(as_))
            if es != as_ && (es.contains('\n') || as_.contains('\n')) =>
        {
            // Long text (the text block): point at the first differing line.
            let (el, al): (Vec<&str>, Vec<&str>) = (es.lines().collect(), as_.lines().collect());
            let n = el.iter().zip(&al).take_while(|(x, y)| x == y).count();
            push(
                format!("{path} line {}", n + 1),
                short(&Value::String(el.get(n).unwrap_or(&"(end)").to_string())),
                short(&Value::String(al.get(n).unwrap_or(&"(end)").to_string())),
            );
        }
        _ if e != a => push(path, short(e), short(a)),
        _ => {}
    }
}

/// A value as compact JSON, cut to 300 characters.
fn short(v: &Value) -> String {
    crate::engine::text::clipped(&v.to_string(), 301)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(page: usize, result: Value) -> Outcome {
        Outcome {
            step: 0,
            page,
            tool: "search_symbols".into(),
            args: json!({"query": "x"}),
            result,
        }
    }

    #[test]
    fn names_scenario_page_and_field() {
        let e = [outcome(
            0,
            json!({"items": [{"name": "a"}, {"name": "b"}], "text": "l1\nl2"}),
        )];
        let a = [outcome(
            0,
            json!({"items": [{"name": "a"}, {"name": "c"}], "text": "l1\nX"}),
        )];
        let d = compare("s", &e, &a);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].field, "result.items[1].name");
        assert_eq!(
            (d[0].expected.as_str(), d[0].actual.as_str()),
            ("\"b\"", "\"c\"")
        );
        assert_eq!(d[1].field, "result.text line 2");
        let text = d[0].to_string();
        assert!(
            text.starts_with("scenario s, step 0 page 0 (search_symbols): result.items[1].name")
        );
        assert!(compare("s", &e, &e).is_empty());
    }

    #[test]
    fn a_missing_page_is_a_difference() {
        let e = [outcome(0, json!(1)), outcome(1, json!(2))];
        let d = compare("s", &e, &e[..1]);
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].expected.as_str(), d[0].actual.as_str()), ("2", "1"));
    }
}
