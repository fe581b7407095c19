"""Walks every paged tool through the official Python MCP SDK, as a Python host would.

Usage: python walk_with_python_sdk.py ZOEKT_PAGER_BINARY ZOEKT_URL

The SDK's client validates each result's structuredContent against the tool's outputSchema
(and fails the call when it does not match). The script also validates explicitly with
jsonschema, walks each tool to its end with next_cursor, and fails on any warning the SDK or
the validator logs or emits (an unknown "format", say). Prints one line per tool and the plain
closing line 'N passed, N failed'.
"""

import asyncio
import json
import logging
import sys
import warnings

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# Each paged tool and its query at a limit that takes several pages; an optional fourth entry
# is a key some page of the walk must carry, so that the schema check meets it.
WALKS = [
    ("search_symbols", {"query": "pagerItem"}, 7),
    ("search_files", {"query": r"\.go$"}, 7),
    ("find_references", {"symbol": "get"}, 5),
    ("search", {"query": r"pagerItem\d+", "context_lines": 1}, 9),
    # Byte-identical files in beta-go and twin-go: its first page says a recurring line once
    # (`text_by_number`), which the schema check must meet.
    ("search", {"query": "tiebreakProbe"}, 5, "text_by_number"),
    ("files_with_matches", {"query": "pagerItem"}, 7),
    ("list_repos", {}, 2),
    # Every kind of entry: directories, files, and a `more` entry counting the rest.
    ("list_tree", {"repo": "beta-go", "depth": 3, "per_directory": 4}, 3),
    # 46 symbols as a tree (fixtures/README.md, section 2): its kinds recur, said once a page.
    ("outline_file", {"repo": "alpha-rs", "path": "src/registry.rs"}, 7, "kind_by_number"),
    (
        "outline_file",
        {"repo": "alpha-rs", "path": "src/registry.rs", "kinds": ["method"], "source": True},
        10,
    ),
]


def page_items(sc):
    """Every item of a structured page, each as one string that names it: its group's cells
    and its own, a recurring value said once (`<column>_by_number`) given back in its cell,
    and the part it is in. Rows are read by `fields`: a nested list there is the columns of
    the rows inside each group."""
    parts = [("", sc)] if "fields" in sc else [
        (k, v) for k, v in sc.items() if isinstance(v, dict) and "fields" in v]
    out = []
    for name, part in parts:
        said = {k[: -len("_by_number")]: v for k, v in part.items() if k.endswith("_by_number")}

        def cell(column, c):
            ok = column in said and isinstance(c, int) and not isinstance(c, bool)
            return said[column][c] if ok else c

        def rows(fields, listed, group):
            inner = next((i for i, f in enumerate(fields) if isinstance(f, list)), None)
            for r in listed:
                if inner is None:
                    cells = [cell(fields[i], c) for i, c in enumerate(r)]
                    out.append(json.dumps([name, *group, *cells]))
                else:
                    rows(fields[inner], r[inner], [*group, *r[:inner]])

        rows(part["fields"], part.get("rows") or part.get("files") or part.get("repos") or [], [])
    return out


def field(obj, snake, camel):
    """An attribute by its SDK 2.x name (snake case) or its 1.x name (camel case)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


async def main(binary, zoekt):
    caught = Collect()
    logging.getLogger().addHandler(caught)
    warnings.simplefilter("always")
    passed = failed = 0
    params = StdioServerParameters(
        command=binary, args=["serve"], env={"ZOEKT_URL": zoekt, "ZOEKT_PAGER_LOG": "warn"}
    )
    with warnings.catch_warnings(record=True) as emitted:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                for name, args, limit, *must_carry in WALKS:
                    schema = field(tools[name], "output_schema", "outputSchema")
                    validator = jsonschema.Draft202012Validator(schema)
                    jsonschema.Draft202012Validator.check_schema(schema)
                    cursor, pages, keys, items = None, 0, set(), []
                    try:
                        while True:
                            a = dict(args, limit=limit)
                            if cursor:
                                a["cursor"] = cursor
                            r = await session.call_tool(name, a)
                            assert not field(r, "is_error", "isError"), r.content[0].text
                            validator.validate(field(r, "structured_content", "structuredContent"))
                            pages += 1
                            keys |= set(field(r, "structured_content", "structuredContent"))
                            sc = field(r, "structured_content", "structuredContent")
                            items += page_items(sc)
                            cursor = sc.get("next_cursor")
                            assert pages < 100, "runaway walk"
                            if not cursor:
                                break
                        assert pages >= 2, f"only {pages} page(s): the walk shows no paging"
                        # The items read back are the walk's, not an empty reading of a page
                        # shape this reader does not know: as many as an exact total says.
                        assert len(items) > limit, f"{len(items)} items read back"
                        if "total" in sc:
                            assert len(items) == sc["total"], f"{len(items)} items, total {sc['total']}"
                        for key in must_carry:
                            assert key in keys, f"no page carried {key}: {keys}"
                        duplicates = len(items) - len(set(items))
                        assert duplicates == 0, f"{duplicates} item(s) came twice"
                        print(f"ok   {name}: {pages} pages, {len(items)} items, 0 duplicates")
                        passed += 1
                    except Exception as e:  # noqa: BLE001 - report and go on
                        print(f"FAIL {name}: {e!r}")
                        failed += 1
                for name, args in [("read_file", {"repo": "alpha-rs", "path": "src/lib.rs"}),
                                   ("health", {})]:
                    r = await session.call_tool(name, args)
                    sc = field(r, "structured_content", "structuredContent")
                    ok = not field(r, "is_error", "isError") and sc is not None
                    schema = field(tools[name], "output_schema", "outputSchema")
                    jsonschema.Draft202012Validator(schema).validate(sc)
                    print(f"{'ok  ' if ok else 'FAIL'} {name}")
                    passed, failed = passed + ok, failed + (not ok)
    noise = caught.records + [str(w.message) for w in emitted]
    if noise:
        print("FAIL warnings:", json.dumps(noise[:10]))
        failed += 1
    else:
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return failed == 0


if __name__ == "__main__":
    sys.exit(0 if asyncio.run(main(sys.argv[1], sys.argv[2])) else 1)
