"""What keeps the user's data and machine safe, whatever an agent or a page asks.

``artifacts`` (the one folder where bodies, screenshots and traces go, owner-only),
``audit`` and ``audit_arguments`` (one redacted line per call), ``uploads`` (which local files a
page may receive), ``safe_regex`` (caller patterns, bounded in size and time).

The bottom room: imports nothing from ``mcp_server``.
"""
