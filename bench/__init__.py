"""Benchmarks that compare our MCP server with its peers; run by hand, not part of the test suite."""
