# The two commands of the README. Both install what they need first (idempotent).
.PHONY: setup serve test lint bench

setup:
	bash scripts/setup.sh

# Start the MCP server on stdio (add ARGS="--http --port 8765" for streamable HTTP).
serve: setup
	.venv/bin/mcp-browser $(ARGS)

# Run the whole test suite against a real headless Chromium.
test: setup
	.venv/bin/ruff check .
	.venv/bin/python -m pytest $(PYTEST_ARGS)

lint: setup
	.venv/bin/ruff check .

bench: setup
	.venv/bin/python -m tests.bench.cdp_overhead
