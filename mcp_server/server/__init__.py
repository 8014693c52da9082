"""The kernel every feature runs on: the app, how a call is routed, and what a handler gets.

``app`` (``BrowserMCP``) runs ``tools/call`` on the SDK's lowlevel server under the locks
(``locking``), progress heartbeats (``progress``) and call bound its action declares; ``routes``
finds the action of a call; ``registry`` is the action table the features fill with ``@action``;
``context`` is what a handler gets (``ToolContext``); ``catalog``, ``schema``, ``schema_defs`` and
``schema_output`` build ``tools/list``; ``envelope`` turns a handler's result or exception into
both renderings in the light form of ``tool_answer``; ``answer_cap`` is the last byte cap;
``settings`` and ``version`` describe the process.

May import ``answers`` and ``safety``; loads the features by name (``mcp_server.features``), never
imports one.
"""
