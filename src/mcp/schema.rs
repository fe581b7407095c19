//! Tool schemas in plain JSON Schema 2020-12, as `tools/list` sends them.
//!
//! schemars writes `format` values of its own for Rust's number types: `uint32` for `u32`,
//! `uint64` for `u64`, `uint` for `usize`, `int32`, `double` and so on. JSON Schema defines none
//! of them, and validators that check formats complain: the TypeScript SDK's Ajv (inside Claude
//! Code, VS Code and the MCP Inspector) logs `unknown format "uint64" ignored in schema` for
//! each. [`standardize`] says the same thing with bounds every validator knows (`minimum`, and
//! `maximum` for widths of 32 bits or less) and drops every format JSON Schema does not define.
//!
//! Before: `{"type": "integer", "format": "uint32", "minimum": 0}`.
//! After: `{"type": "integer", "minimum": 0, "maximum": 4294967295}`.

use rmcp::model::JsonObject;
use serde_json::{Number, Value};

/// Writes each optional argument of an input schema as its own type, with no null: leaving
/// it out means its default. schemars writes `Option<u32>` as `{"type": ["integer", "null"],
/// "default": null}`, and a client that converts what a person types by the schema's type
/// (the MCP Inspector's CLI turns `--tool-arg limit=3` into a number only for a plain
/// `integer`) sends a string, which the tool refuses. The server still takes an explicit null
/// as "left out", as models often send one.
pub(crate) fn plain_optionals(schema: &mut JsonObject) {
    let required: Vec<String> = match schema.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        let Value::Object(prop) = prop else { continue };
        if required.contains(name) {
            continue;
        }
        if let Some(Value::Array(types)) = prop.get_mut("type") {
            types.retain(|t| t != "null");
            if let [one] = types.as_slice() {
                let one = one.clone();
                prop.insert("type".into(), one);
            }
        }
        if let Some(Value::Array(any)) = prop.get_mut("anyOf") {
            any.retain(|s| s.get("type").and_then(Value::as_str) != Some("null"));
            if let [Value::Object(only)] = any.as_slice() {
                let only = only.clone();
                prop.remove("anyOf");
                for (k, v) in only {
                    prop.entry(k).or_insert(v);
                }
            }
        }
        if prop.get("default") == Some(&Value::Null) {
            prop.remove("default");
        }
    }
}

/// The formats JSON Schema 2020-12 defines (Validation vocabulary, section 7.3). Any other
/// `format` is dropped.
pub(crate) const DEFINED_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Rewrites `schema` and every schema inside it (through the keywords above, never through
/// data such as `default`, `const`, `enum` or `examples`) into JSON Schema 2020-12: an integer
/// format becomes the bounds it stands for, kept tighter where the schema already has tighter
/// ones; any format JSON Schema does not define is removed.
pub(crate) fn standardize(schema: &mut JsonObject) {
    if let Some(Value::String(format)) = schema.get("format")
        && !DEFINED_FORMATS.contains(&format.as_str())
    {
        let (min, max) = integer_bounds(format);
        schema.remove("format");
        if let Some(min) = min {
            tighten(schema, "minimum", min, |new, old| new > old);
        }
        if let Some(max) = max {
            tighten(schema, "maximum", max, |new, old| new < old);
        }
    }
    for (key, value) in schema.iter_mut() {
        let key = key.as_str();
        if ONE_SCHEMA.contains(&key) {
            standardize_value(value);
        } else if SCHEMA_ARRAYS.contains(&key) {
            if let Value::Array(list) = value {
                list.iter_mut().for_each(standardize_value);
            }
        } else if SCHEMA_MAPS.contains(&key)
            && let Value::Object(map) = value
        {
            map.values_mut().for_each(standardize_value);
        }
    }
}

/// [`standardize`] for a value that may be a schema: an object, or (for `items` in drafts
/// before 2020-12) an array of them. `true`/`false` schemas have nothing to change.
fn standardize_value(value: &mut Value) {
    match value {
        Value::Object(schema) => standardize(schema),
        Value::Array(list) => list.iter_mut().for_each(standardize_value),
        _ => {}
    }
}

/// The range of a schemars integer format: `(minimum, maximum)`, either left out where it
/// says nothing useful (64-bit and wider maxima are past what a JSON number holds exactly in
/// most clients). `(None, None)` for formats that are not integer widths (`float`, `double`).
fn integer_bounds(format: &str) -> (Option<i64>, Option<i64>) {
    match format {
        "uint8" => (Some(0), Some(u8::MAX.into())),
        "uint16" => (Some(0), Some(u16::MAX.into())),
        "uint32" => (Some(0), Some(u32::MAX.into())),
        "uint" | "uint64" | "uint128" => (Some(0), None),
        "int8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        _ => (None, None),
    }
}

/// Sets `schema[key]` to `bound` unless it already holds a number at least as tight
/// (`tighter(bound, existing)` false).
fn tighten(schema: &mut JsonObject, key: &str, bound: i64, tighter: fn(f64, f64) -> bool) {
    let keep = schema
        .get(key)
        .and_then(Value::as_f64)
        .is_some_and(|old| !tighter(bound as f64, old));
    if !keep {
        schema.insert(key.into(), Value::Number(Number::from(bound)));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::engine::Pager;
    use crate::engine::config::PagerConfig;
    use crate::engine::testing::FakeBackend;
    use crate::mcp::PagerServer;

    fn standardized(schema: Value) -> Value {
        let Value::Object(mut map) = schema else {
            panic!("not an object")
        };
        standardize(&mut map);
        Value::Object(map)
    }

    /// Every `format` string anywhere in `value` (data included, to be strict), with its path.
    fn formats(value: &Value, path: &str, out: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    if key == "format"
                        && let Value::String(f) = v
                    {
                        out.push((path.to_string(), f.clone()));
                    }
                    formats(v, &format!("{path}/{key}"), out);
                }
            }
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    formats(v, &format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }

    /// Every schema whose `type` is or includes "integer", with its path.
    fn integer_schemas<'a>(value: &'a Value, path: &str, out: &mut Vec<(String, &'a Value)>) {
        match value {
            Value::Object(map) => {
                let ty = map.get("type");
                if ty == Some(&json!("integer"))
                    || ty
                        .and_then(Value::as_array)
                        .is_some_and(|t| t.contains(&json!("integer")))
                {
                    out.push((path.to_string(), value));
                }
                for (key, v) in map {
                    integer_schemas(v, &format!("{path}/{key}"), out);
                }
            }
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    integer_schemas(v, &format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn integer_formats_become_bounds() {
        assert_eq!(
            standardized(json!({"type": "integer", "format": "uint32", "minimum": 0})),
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})
        );
        assert_eq!(
            standardized(json!({"type": ["integer", "null"], "format": "uint64", "minimum": 0})),
            json!({"type": ["integer", "null"], "minimum": 0})
        );
        assert_eq!(
            standardized(json!({"type": "integer", "format": "uint"})),
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            standardized(json!({"type": "integer", "format": "int32"})),
            json!({"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647})
        );
        assert_eq!(
            standardized(json!({"type": "integer", "format": "uint8"})),
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            standardized(json!({"type": "number", "format": "double"})),
            json!({"type": "number"})
        );
    }

    #[test]
    fn tighter_bounds_and_defined_formats_stay() {
        assert_eq!(
            standardized(
                json!({"type": "integer", "format": "uint32", "minimum": 1, "maximum": 100})
            ),
            json!({"type": "integer", "minimum": 1, "maximum": 100})
        );
        // A bound looser than the width is the width's.
        assert_eq!(
            standardized(
                json!({"type": "integer", "format": "uint8", "minimum": -5, "maximum": 1000})
            ),
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        let uri = json!({"type": "string", "format": "uri"});
        assert_eq!(standardized(uri.clone()), uri);
    }

    #[test]
    fn every_place_a_schema_can_sit_is_reached_and_data_is_not() {
        let u32_schema = json!({"type": "integer", "format": "uint32"});
        let done = json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32});
        // Data that looks like a schema: left exactly as it is.
        let data = json!({"format": "uint32"});
        let schema = json!({
            "type": "object",
            "properties": {"a": u32_schema, "format": u32_schema},
            "patternProperties": {"^x": u32_schema},
            "additionalProperties": u32_schema,
            "$defs": {"D": {"type": "object", "properties": {"n": u32_schema}}},
            "definitions": {"E": u32_schema},
            "items": u32_schema,
            "prefixItems": [u32_schema],
            "anyOf": [u32_schema, {"type": "null"}],
            "oneOf": [{"items": [u32_schema]}],
            "allOf": [u32_schema],
            "not": u32_schema,
            "if": u32_schema, "then": u32_schema, "else": u32_schema,
            "default": data, "const": data, "enum": [data], "examples": [data],
        });
        let want = json!({
            "type": "object",
            "properties": {"a": done, "format": done},
            "patternProperties": {"^x": done},
            "additionalProperties": done,
            "$defs": {"D": {"type": "object", "properties": {"n": done}}},
            "definitions": {"E": done},
            "items": done,
            "prefixItems": [done],
            "anyOf": [done, {"type": "null"}],
            "oneOf": [{"items": [done]}],
            "allOf": [done],
            "not": done,
            "if": done, "then": done, "else": done,
            "default": data, "const": data, "enum": [data], "examples": [data],
        });
        assert_eq!(standardized(schema), want);
    }

    #[test]
    fn optional_arguments_have_their_own_type_and_no_null_default() {
        let mut schema = json!({
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": ["integer", "null"], "default": 30, "minimum": 1},
                "cursor": {"type": ["string", "null"], "default": null},
                "kinds": {"type": ["array", "null"], "items": {"type": "string"}},
                "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}],
                         "description": "how"},
            },
        });
        let Value::Object(map) = &mut schema else {
            unreachable!()
        };
        plain_optionals(map);
        assert_eq!(
            schema["properties"],
            json!({
                "query": {"type": "string"},
                "limit": {"type": "integer", "default": 30, "minimum": 1},
                "cursor": {"type": "string"},
                "kinds": {"type": "array", "items": {"type": "string"}},
                "mode": {"$ref": "#/$defs/Mode", "description": "how"},
            })
        );
    }

    /// The whole `tools/list` answer, every input and output schema: no format JSON Schema
    /// does not define, and every integer still bounded below (the formats became bounds, they
    /// were not just deleted; all our integers are unsigned).
    #[test]
    fn tools_list_has_only_json_schema_formats() {
        let server = PagerServer::new(Pager::new(FakeBackend::new(), PagerConfig::default()));
        let list = rmcp::model::ListToolsResult::with_all_items(server.tools().to_vec());
        let list = serde_json::to_value(&list).unwrap();
        let mut found = Vec::new();
        formats(&list, "tools", &mut found);
        found.retain(|(_, f)| !DEFINED_FORMATS.contains(&f.as_str()));
        assert!(
            found.is_empty(),
            "formats JSON Schema does not define: {found:#?}"
        );

        let mut ints = Vec::new();
        integer_schemas(&list, "tools", &mut ints);
        assert!(
            ints.len() > 40,
            "only {} integer schemas: walk broken",
            ints.len()
        );
        let unbounded: Vec<&String> = ints
            .iter()
            .filter(|(_, s)| {
                s.get("minimum") != Some(&json!(0)) && s.get("minimum") != Some(&json!(1))
            })
            .map(|(p, _)| p)
            .collect();
        assert!(
            unbounded.is_empty(),
            "integers without a minimum: {unbounded:#?}"
        );
    }
}
