"""The fences around what the server writes and reads, and what it records.

``artifacts`` and ``owner_only`` (files under the artifacts root, owner-only), ``audit`` and
``audit_arguments`` (one redacted line per call), ``uploads`` (which files upload_file may
send), ``safe_regex`` (callers' patterns with a time bound), ``script_urls`` (no javascript:
navigation), ``http_auth`` (the bearer secret of streamable HTTP).

Imports no other room of mcp_server.
"""
