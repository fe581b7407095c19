"""What checking a page against its outputSchema costs a Python host, for two builds side by side.

Usage: python bench-schema-check.py ZOEKT_URL NAME=BINARY [NAME=BINARY ...]
           [--tool search_symbols] [--args '{"query": "pagerItem"}'] [--limit 30] [--runs 200]

The official Python MCP SDK checks every tool result's structuredContent against the tool's
outputSchema: it compiles a validator once per schema (check_schema, then the validator class)
and, for every call, takes `best_match(validator.iter_errors(structured))`. This script does
the same with the SDK's own jsonschema, on the same page each build serves for the same call
(the first page of TOOL with ARGS at LIMIT, asked twice so the second is served from the
server's cache), and prints for each build:

- check: milliseconds to check the page (min / median / max over RUNS);
- call: milliseconds of a whole `call_tool` through the SDK, its check included (the page is
  cached by the server, so this is the client's cost plus the server's sub-millisecond time);
- page and schema sizes in characters of compact JSON.

Run it with the SDK's virtual environment (scripts/py-deps.sh prints its python), against a
Zoekt serving the fixture corpus (scripts/zoekt.sh).
"""

import argparse
import asyncio
import json
import statistics
import time

from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from referencing import Registry


def field(obj, snake, camel):
    """An attribute by its SDK 2.x name (snake case) or its 1.x name (camel case)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def spread(ms):
    return f"{min(ms):6.2f} / {statistics.median(ms):6.2f} / {max(ms):6.2f}"


async def measure(binary, zoekt, tool, args, runs):
    params = StdioServerParameters(
        command=binary, args=["serve"], env={"ZOEKT_URL": zoekt, "ZOEKT_PAGER_LOG": "warn"}
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            schema = field(tools[tool], "output_schema", "outputSchema")
            await session.call_tool(tool, args)
            result = await session.call_tool(tool, args)
            page = field(result, "structured_content", "structuredContent")
            cls = validator_for(schema)
            cls.check_schema(schema)
            validator = cls(schema, registry=Registry())
            checks = []
            for _ in range(runs):
                started = time.perf_counter()
                error = best_match(validator.iter_errors(page))
                checks.append((time.perf_counter() - started) * 1000)
                assert error is None, error
            calls = []
            for _ in range(max(runs // 4, 10)):
                started = time.perf_counter()
                await session.call_tool(tool, args)
                calls.append((time.perf_counter() - started) * 1000)
            return checks, calls, page, schema


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("zoekt")
    parser.add_argument("builds", nargs="+", help="NAME=BINARY")
    parser.add_argument("--tool", default="search_symbols")
    parser.add_argument("--args", default='{"query": "pagerItem"}')
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--runs", type=int, default=200)
    opts = parser.parse_args()
    args = json.loads(opts.args)
    args["limit"] = opts.limit
    print(f"{opts.tool} {json.dumps(args)}, {opts.runs} checks each (ms: min / median / max)")
    for build in opts.builds:
        name, binary = build.split("=", 1)
        checks, calls, page, schema = await measure(binary, opts.zoekt, opts.tool, args, opts.runs)
        size = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False))
        print(
            f"{name:>8}: check {spread(checks)}   call {spread(calls)}   "
            f"page {size(page)} chars, schema {size(schema)} chars"
        )


if __name__ == "__main__":
    asyncio.run(main())
