# The two commands of the README. Both install what they need first (idempotent).
.PHONY: setup serve test lint golden bench bench-peers mcpb

setup:
	bash scripts/setup.sh

# Start the MCP server on stdio (add ARGS="--http --port 8765" for streamable HTTP).
serve: setup
	.venv/bin/mcp-browser $(ARGS)

# Run the whole test suite against a real headless Chromium. The outer timeout turns a hung
# test into a failure with a traceback (faulthandler_timeout in pyproject.toml) instead of a
# CI run that never ends.
TEST_TIMEOUT ?= 45m
test: setup
	.venv/bin/ruff check .
	@# No os/signal name missing on Windows or macOS (mypy --platform win32/darwin; issue 29).
	.venv/bin/python scripts/mypy_platforms.py
	@# The token budgets of what the model reads are in o200k tokens: the tokenizer (npm) makes
	@# them exact; without Node or the registry the tests fall back to a char-based overestimate.
	@[ -d bench/peers/node_modules/gpt-tokenizer ] || npm install --prefix bench/peers --no-audit --no-fund \
		--silent gpt-tokenizer >/dev/null 2>&1 || echo "test: gpt-tokenizer not installed; token budgets estimated"
	@# tests/mcp_server/server/test_output_schemas_in_ts_sdk.py runs the TypeScript SDK's Client against the server: every answer
	@# must validate against its outputSchema under ajv too (it fails without the SDK, skips without Node).
	@[ -d bench/peers/node_modules/@modelcontextprotocol/sdk ] || npm install --prefix bench/peers --no-audit \
		--no-fund --silent @modelcontextprotocol/sdk >/dev/null 2>&1 || echo "test: @modelcontextprotocol/sdk not installed"
	@# tests/project/test_mcpb_bundle.py validates the .mcpb bundle with the official CLI (fails without it).
	@[ -d bench/peers/node_modules/@anthropic-ai/mcpb ] || npm install --prefix bench/peers --no-audit \
		--no-fund --silent @anthropic-ai/mcpb >/dev/null 2>&1 || echo "test: @anthropic-ai/mcpb not installed"
	timeout --signal=INT --kill-after=60 $(TEST_TIMEOUT) .venv/bin/python -m pytest $(PYTEST_ARGS)

lint: setup
	.venv/bin/ruff check .

# Rewrite the golden answers (tests/mcp_server/<feature>/golden/*.txt) from this checkout's
# server, then review `git diff tests/mcp_server`: it is what the model will read (docs/testing.md).
golden: setup
	GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/mcp_server -q -k golden $(PYTEST_ARGS)

# Micro-benchmarks (not part of the test suite); the peer benchmark is `make bench-peers`.
bench: setup
	.venv/bin/python tests/bench/cdp_overhead.py
	.venv/bin/python tests/bench/capture_bench.py
	.venv/bin/python tests/bench/snapshot_bench.py
	.venv/bin/python tests/bench/trace_bench.py
	.venv/bin/python tests/bench/long_work_bench.py

bench-peers: setup
	.venv/bin/python -m bench.peer_benchmark

# The Claude Desktop bundle: dist/mcp-browser-debug-VERSION.mcpb (scripts/build_mcpb.py).
mcpb: setup
	.venv/bin/python scripts/build_mcpb.py
