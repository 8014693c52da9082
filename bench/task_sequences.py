"""The task rows' data: each server's fixed call sequence per task, and the facts an answer must state.

A sequence is what an agent that knows the server's tools would send to reach every fact with
the fewest calls (bench/README.md gives the reason for each call). ``CLICK`` marks the point
where the agent asks the person to reproduce the failure: the harness does the person's part
itself (clicks Save; on phpMyAdmin, the task's ``person`` action) over its own CDP connection.
Argument values ``$name`` are filled from earlier answers: ``FIND`` names what to take from an
answer (``page``: the task's tab in the server's page list; any other name: the first group of
a regular expression over the answer's text).

A fact is reached when one answer *states* it under a client rule (text only, or
JSON(structuredContent) else text): its pattern matches in that answer, e.g. the method, URL
and status of the failed save in one entry, not a 500 anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .phpmyadmin import DUP_CODE, UNIQUE_KEY
from .pma_person import BROWSE_QUERY, INSERT_QUERY
from .task_pages import (
    CLIENTI_PATH,
    DIAG_ERROR,
    DIAG_SCRIPT,
    DIAG_THROW_LINE,
    ORDINE_ERROR,
    ORDINE_PATH,
    ORDINE_SCRIPT,
    ORDINE_THROW_LINE,
    SAVE_PATH,
)

__all__ = ["CLICK", "Fact", "Step", "Task", "TASKS", "REALAPP_TASKS", "ALL_TASKS", "SEQUENCES", "facts_reached"]

#: Tool name of the harness's own step (not a call to the server).
CLICK = "<person clicks Save>"
#: How far apart two parts of one stated fact may be (chars): one list entry, not the whole answer.
ENTRY = 300


@dataclass(frozen=True)
class Step:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    #: name -> "page" or a regex whose group 1, found in this answer's text, later steps use as $name.
    find: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Fact:
    key: str
    label: str
    #: Regexes that must all match within ENTRY chars of one match of the first.
    parts: tuple[str, ...]

    def stated_in(self, answer: str) -> bool:
        return _near(answer, [re.compile(p) for p in self.parts])


@dataclass(frozen=True)
class Task:
    key: str
    label: str
    #: The tab the agent must pick (path on the bench's page server).
    path: str
    facts: tuple[Fact, ...]
    #: True: the person reproduces the failure (the harness clicks Save at the CLICK step).
    person_clicks: bool
    #: "" for the bench's own pages; "phpmyadmin" for the real app (bench/phpmyadmin.py), where ``path``
    #: is the query of the page the person has open when the agent starts.
    app: str = ""
    #: What the person does at the CLICK step (bench/tasks.py ``_person_acts``).
    person: str = "save"


def _near(text: str, patterns: list[re.Pattern[str]]) -> bool:
    """All ``patterns`` match within ENTRY chars around one match of the first."""
    for m in patterns[0].finditer(text):
        window = text[max(0, m.start() - ENTRY) : m.end() + ENTRY]
        if all(p.search(window) for p in patterns[1:]):
            return True
    return False


_SAVE = re.escape(SAVE_PATH.rsplit("/", 1)[1])
#: The server's error as PHP printed it: its message, then its file:line within the same entry (as PHP
#: writes it, "... in /path:87", or as a server says it, "... (/path:87)"); quotes may come back as
#: entities, JSON may escape them.
_SERVER_MESSAGE = (
    r"Uncaught PDOException: SQLSTATE\[42S22\]: Column not found: 1054 Unknown column \W{1,8}codice_sdi\W{1,8}"
    r" in \W{1,8}field list"
)
_SERVER_WHERE = r"/var/www/gestionale/clienti/salva_cliente\.php:87\b"
_ORDINE_MSG = re.escape(ORDINE_ERROR).replace("'", r"\W{1,8}")

TASKS: dict[str, Task] = {
    "diagnosis": Task(
        "diagnosis",
        "diagnosis: AJAX save answers 500",
        CLIENTI_PATH,
        (
            Fact("request", "POST salva_cliente.php and its 500", (_SAVE, r"\bPOST\b", r"\b500\b")),
            Fact("server_error", "the server's error line from the body", (_SERVER_MESSAGE, _SERVER_WHERE)),
            Fact(
                "console_stack",
                f"console error with its stack ({DIAG_SCRIPT}:{DIAG_THROW_LINE})",
                (re.escape(DIAG_ERROR), rf"{re.escape(DIAG_SCRIPT)}:{DIAG_THROW_LINE}\b"),
            ),
        ),
        person_clicks=True,
    ),
    "save_nothing": Task(
        "save_nothing",
        "why does Save do nothing (agent clicks)",
        ORDINE_PATH,
        (
            Fact("error", "the uncaught TypeError's message", (_ORDINE_MSG,)),
            Fact(
                "throw_frame",
                f"the message with the frame that threw ({ORDINE_SCRIPT}:{ORDINE_THROW_LINE})",
                (_ORDINE_MSG, rf"{re.escape(ORDINE_SCRIPT)}:{ORDINE_THROW_LINE}\b"),
            ),
        ),
        person_clicks=False,
    ),
}

#: A quote as an answer may carry it: plain, JSON-escaped, or an HTML entity (phpMyAdmin sends &#039;).
_Q = r"""(?:\\?['"]|&#0*39;|&#x0*27;|&apos;|&quot;|\\u0027)"""
_DUP_TEXT = rf"#1062 - Duplicate entry {_Q}{re.escape(DUP_CODE)}{_Q} for key {_Q}{UNIQUE_KEY}{_Q}"
#: phpMyAdmin's AJAX answer when it cannot reach the database: {"redirect_flag":"1","success":false}
#: (as JSON or restated as redirect_flag=1; not the handler's source ``data.redirect_flag) === 1``).
_REDIRECT_FLAG = r"""redirect_flag[\\"' ]*[:=][\\"' ]*1\b"""

#: The URL the handler navigates to, as a request or a navigation lists it (not its source's '?session_expired=1').
_EXPIRED_URL = r"index\.php\?route=[^\s\"'<>]*session_expired=1"

#: phpMyAdmin tasks (bench/phpmyadmin.py): run with ``--only realapps`` or in the full run.
REALAPP_TASKS: dict[str, Task] = {
    "pma_duplicate": Task(
        "pma_duplicate",
        "phpMyAdmin: duplicate key on Insert",
        INSERT_QUERY,
        (
            Fact(
                "request", "POST route=/table/replace and its 200", (r"route=/table/replace", r"\bPOST\b", r"\b200\b")
            ),
            Fact("error", f"the #1062 text ('{DUP_CODE}', '{UNIQUE_KEY}')", (_DUP_TEXT,)),
        ),
        person_clicks=True,
        app="phpmyadmin",
        person="pma_insert_duplicate",
    ),
    "pma_db_stopped": Task(
        "pma_db_stopped",
        "phpMyAdmin: database stopped while browsing",
        BROWSE_QUERY,
        (
            Fact("redirect_body", "the XHR's body: redirect_flag 1", (_REDIRECT_FLAG,)),
            Fact("navigation", "the handler's navigation to the login page (session_expired=1)", (_EXPIRED_URL,)),
        ),
        person_clicks=True,
        app="phpmyadmin",
        person="pma_stop_db_then_browse",
    ),
}
#: Every task the harness knows: the report's order.
ALL_TASKS: dict[str, Task] = {**TASKS, **REALAPP_TASKS}

_PICK = "pick the tab the person named (other tabs are open)"
_CLICK = Step(CLICK, {}, "the agent asks the person to click Save; capture started at attach")

#: server key -> task key -> steps. Edit here to change a sequence; bench/README.md explains each call.
SEQUENCES: dict[str, dict[str, tuple[Step, ...]]] = {
    "ours": {
        "diagnosis": (
            Step(
                "browser_session",
                {"action": "attach_cdp", "cdp_url": "$cdp_url", "url_contains": "clienti"},
                "connect to the person's Chrome and pick the tab they named (never navigates)",
            ),
            _CLICK,
            Step(
                "browser_session",
                {"action": "debug_bundle"},
                "one answer with failed requests (body preview), console errors with stacks",
            ),
        ),
        "save_nothing": (
            Step(
                "browser_session",
                {"action": "attach_cdp", "cdp_url": "$cdp_url", "url_contains": "ordine"},
                "connect to the person's Chrome and pick the tab they named (never navigates)",
            ),
            Step(
                "browser_session",
                {"action": "snapshot", "interactive_only": True},
                "find Save's uid (controls only)",
                find={"save": r'\[uid=(\d+)\] button "Salva ordine"'},
            ),
            Step(
                "browser_interact",
                {"action": "click_uid", "uid": "$save"},
                "click Save as the person did; the answer names the error it caused and the frame that threw",
            ),
        ),
    },
    "chrome-devtools-mcp": {
        "diagnosis": (
            Step("list_pages", {}, "find the tab's pageId", find={"page": "page"}),
            Step("select_page", {"pageId": "$page"}, _PICK),
            _CLICK,
            Step(
                "list_network_requests",
                {"pageId": "$page", "resourceTypes": ["xhr", "fetch"]},
                "the AJAX requests: the failed save and its reqid",
                find={"reqid": rf"reqid=(\d+) POST \S*{_SAVE}"},
            ),
            Step(
                "get_network_request",
                {"pageId": "$page", "reqid": "$reqid"},
                "the response body with the server's error line",
            ),
            Step(
                "list_console_messages",
                {"pageId": "$page", "types": ["error"]},
                "the console errors: the logged Error and its msgid",
                find={"msg": rf"msgid=(\d+) \[error\] Error: {re.escape(DIAG_ERROR)}"},
            ),
            Step(
                "get_console_message",
                {"pageId": "$page", "msgid": "$msg"},
                "that message in full: the Error argument with its stack",
            ),
        ),
        "save_nothing": (
            Step("list_pages", {}, "find the tab's pageId", find={"page": "page"}),
            Step(
                "take_snapshot",
                {"pageId": "$page"},
                "find Save's uid",
                find={"save": r'uid=(\S+) button "Salva ordine"'},
            ),
            Step("click", {"pageId": "$page", "uid": "$save"}, "click Save as the person did"),
            Step(
                "list_console_messages",
                {"pageId": "$page", "types": ["error"], "includeStackTraces": True},
                "the uncaught error with its stack in one call",
            ),
        ),
    },
    "playwright-mcp": {
        "diagnosis": (
            Step("browser_tabs", {"action": "list"}, "find the tab's index", find={"page": "page"}),
            Step("browser_tabs", {"action": "select", "index": "$page"}, _PICK),
            _CLICK,
            Step(
                "browser_network_requests",
                {},
                "the page's requests (static files left out): the failed save and its number",
                find={"req": rf"(\d+)\]?\.? \[?POST\]? \S*{_SAVE}"},
            ),
            Step(
                "browser_network_request",
                {"index": "$req", "part": "response-body"},
                "the response body with the server's error line",
            ),
            Step("browser_console_messages", {"level": "error"}, "the console error"),
        ),
        "save_nothing": (
            Step("browser_tabs", {"action": "list"}, "find the tab's index", find={"page": "page"}),
            Step("browser_tabs", {"action": "select", "index": "$page"}, _PICK),
            Step("browser_snapshot", {}, "find Save's ref", find={"save": r'button "Salva ordine" \[ref=(\w+)\]'}),
            Step("browser_click", {"element": "Salva ordine", "target": "$save"}, "click Save as the person did"),
            Step("browser_console_messages", {"level": "error"}, "the uncaught error"),
        ),
    },
}


_PERSON_INSERTS = Step(CLICK, {}, "the agent asks the person to press Go again; capture started at attach")
_PERSON_BROWSES = Step(CLICK, {}, "the database stops; the person clicks on to the table's Structure tab")
_REPLACE = r"\S*route=/table/replace"
#: The AJAX page load of the tab the person clicked (phpMyAdmin asks ajax_page_request=true).
_PAGE_XHR = r"\S*ajax_page_request=true"

SEQUENCES["ours"].update(
    {
        "pma_duplicate": (
            Step(
                "browser_session",
                {"action": "attach_cdp", "cdp_url": "$cdp_url", "url_contains": "route=/table/change"},
                "connect and pick the Insert tab the person named (all table tabs share one title)",
            ),
            _PERSON_INSERTS,
            Step("browser_session", {"action": "debug_bundle"}, "one answer: the failed save, its body, the alert"),
        ),
        "pma_db_stopped": (
            Step(
                "browser_session",
                {"action": "attach_cdp", "cdp_url": "$cdp_url", "url_contains": "route=/sql"},
                "connect and pick the tab the person browses",
            ),
            _PERSON_BROWSES,
            Step("browser_session", {"action": "debug_bundle"}, "one answer: the XHR, its body, the navigation"),
        ),
    }
)
SEQUENCES["chrome-devtools-mcp"].update(
    {
        "pma_duplicate": (
            Step("list_pages", {}, "find the tab's pageId", find={"page": "page"}),
            Step("select_page", {"pageId": "$page"}, _PICK),
            _PERSON_INSERTS,
            Step(
                "list_network_requests",
                {"pageId": "$page", "resourceTypes": ["xhr", "fetch"]},
                "the AJAX requests: the save and its reqid",
                find={"reqid": rf"reqid=(\d+) POST {_REPLACE}"},
            ),
            Step(
                "get_network_request",
                {"pageId": "$page", "reqid": "$reqid"},
                "the response body: phpMyAdmin's JSON with the error HTML",
            ),
        ),
        "pma_db_stopped": (
            Step("list_pages", {}, "find the tab's pageId", find={"page": "page"}),
            Step("select_page", {"pageId": "$page"}, _PICK),
            _PERSON_BROWSES,
            Step(
                "list_network_requests",
                {"pageId": "$page", "resourceTypes": ["xhr", "fetch", "document"], "includePreservedRequests": True},
                "the AJAX page load and the documents after it, across the navigation",
                find={"reqid": rf"reqid=(\d+) GET {_PAGE_XHR}"},
            ),
            Step(
                "get_network_request",
                {"pageId": "$page", "reqid": "$reqid"},
                "the XHR's response body (it answered before the page navigated)",
            ),
        ),
    }
)
SEQUENCES["playwright-mcp"].update(
    {
        "pma_duplicate": (
            Step("browser_tabs", {"action": "list"}, "find the tab's index", find={"page": "page"}),
            Step("browser_tabs", {"action": "select", "index": "$page"}, _PICK),
            _PERSON_INSERTS,
            Step(
                "browser_network_requests",
                {"static": False},
                "the page's requests (static files left out): the save and its number",
                find={"req": rf"(\d+)\]?\.? \[?POST\]? {_REPLACE}"},
            ),
            Step("browser_network_request", {"index": "$req", "part": "response-body"}, "the response body"),
        ),
        "pma_db_stopped": (
            Step("browser_tabs", {"action": "list"}, "find the tab's index", find={"page": "page"}),
            Step("browser_tabs", {"action": "select", "index": "$page"}, _PICK),
            _PERSON_BROWSES,
            Step(
                "browser_network_requests",
                {"static": False, "all": True},
                "every request since the session began (a navigation came after the XHR)",
                find={"req": rf"(\d+)\]?\.? \[?GET\]? {_PAGE_XHR}"},
            ),
            Step("browser_network_request", {"index": "$req", "part": "response-body"}, "the XHR's response body"),
        ),
    }
)


def facts_reached(task: Task, answers: list[str]) -> dict[str, bool]:
    """Per fact of ``task``: whether one of ``answers`` states it."""
    return {f.key: any(f.stated_in(a) for a in answers) for f in task.facts}
