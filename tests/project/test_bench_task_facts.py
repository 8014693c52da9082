"""The peer bench's task facts: stated facts count, numbers found somewhere do not (no browser, no peers).

The answers below are shortened from real answers of the three servers (bench/results logs).
"""

from __future__ import annotations

import json
import sys

import paths

# The repository's bench/, not tests/bench/ (tests/ comes first on sys.path under pytest).
sys.path.insert(0, str(paths.ROOT))

from bench.task_pages import DIAG_THROW_LINE, GESTIONALE_JS, ORDINE_THROW_LINE, ORDINI_JS  # noqa: E402
from bench.task_sequences import ALL_TASKS, SEQUENCES, TASKS, facts_reached  # noqa: E402

DIAG = TASKS["diagnosis"]
NOTHING = TASKS["save_nothing"]
DUPLICATE = ALL_TASKS["pma_duplicate"]
DB_STOPPED = ALL_TASKS["pma_db_stopped"]

PW_BODY = (
    "### Result\n<br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[42S22]: Column not found: 1054"
    " Unknown column 'codice_sdi' in 'field list' in /var/www/gestionale/clienti/salva_cliente.php:87\nStack trace:"
)
PW_LIST = "### Result\n1. [POST] http://127.0.0.1:1/bench/task/salva_cliente.php => [500] Internal Server Error"
PW_CONSOLE = (
    "[ERROR] Error: Salvataggio cliente fallito: HTTP 500\n"
    "    at controllaRisposta (http://127.0.0.1:1/bench/task/gestionale.js:13:11)\n"
    "    at xhr.onload (http://127.0.0.1:1/bench/task/gestionale.js:28:7) @ http://127.0.0.1:1/bench/task/gestionale.js:31"
)


def test_the_throw_lines_are_the_lines_that_throw() -> None:
    assert "throw new Error" in GESTIONALE_JS.splitlines()[DIAG_THROW_LINE - 1]
    assert "sconto_cliente" in ORDINI_JS.splitlines()[ORDINE_THROW_LINE - 1]


def test_all_three_diagnosis_facts_stated_in_text_answers() -> None:
    assert facts_reached(DIAG, [PW_LIST, PW_BODY, PW_CONSOLE]) == {
        "request": True,
        "server_error": True,
        "console_stack": True,
    }


def test_the_facts_are_found_in_json_too() -> None:
    js = json.dumps(
        {
            "httpErrors": [[1, "POST", 500, "xhr", "/bench/task/salva_cliente.php", {"response": PW_BODY}]],
            "errors": [[2, "error", "Error: Salvataggio cliente fallito: HTTP 500 at controllaRisposta (/x/g.js:1:1)"]],
            "stack": ["controllaRisposta (/x/gestionale.js:13:11)"],
        },
        separators=(",", ":"),
    )
    assert all(facts_reached(DIAG, [js]).values())


def test_the_server_error_with_its_file_and_line_said_our_way_is_the_fact() -> None:
    ours = (
        "#1 POST 500 xhr /bench/task/salva_cliente.php\n      server error: PHP Fatal error: Uncaught PDOException:"
        " SQLSTATE[42S22]: Column not found: 1054 Unknown column 'codice_sdi' in 'field list'"
        " (/var/www/gestionale/clienti/salva_cliente.php:87)"
    )
    assert facts_reached(DIAG, [ours])["server_error"]


def test_a_500_elsewhere_or_the_logging_frame_alone_is_not_the_fact() -> None:
    answers = [
        "GET /bench/task/salva_cliente.php 200\n" + "x" * 400 + "\nPOST /api/other 500",
        # only the frame of the console.error call, not where the Error was thrown
        "msgid=2 [error] Error: Salvataggio cliente fallito: HTTP 500 (1 args)\n  at xhr.onload (gestionale.js:31:15)",
        # the error line's start without its file:line
        "Fatal error: Uncaught PDOException: SQLSTATE[42S22]: Column not found: 1054 Unknown column 'codice_sdi'",
    ]
    assert facts_reached(DIAG, answers) == {"request": False, "server_error": False, "console_stack": False}


def test_a_message_without_its_frame_is_half_the_save_nothing_facts() -> None:
    click = 'then: console pageerror #1, page says: "Uncaught TypeError: '
    click += "Cannot read properties of null (reading 'value')\""
    assert facts_reached(NOTHING, [click]) == {"error": True, "throw_frame": False}
    full = click + "\n  at leggiOrdine (/bench/task/ordini.js:11:67)"
    assert facts_reached(NOTHING, [full]) == {"error": True, "throw_frame": True}


def test_every_server_has_a_sequence_for_every_task() -> None:
    for server, tasks in SEQUENCES.items():
        assert set(tasks) == set(ALL_TASKS), server
        for key, steps in tasks.items():
            wanted = {v[1:] for s in steps for v in s.args.values() if isinstance(v, str) and v.startswith("$")}
            given = {"cdp_url"} | {name for s in steps for name in s.find}
            assert wanted <= given, (server, key, wanted - given)


# phpMyAdmin (bench/phpmyadmin.py), shortened from the three servers' answers.
PMA_BODY = (
    '{"success":false,"error":"<div class=\\"alert alert-danger\\" role=\\"alert\\"><h1>Error<\\/h1>'
    "<p><strong>MySQL said: <\\/strong><\\/p>\\n<code>#1062 - Duplicate entry &#039;CLI-00042&#039; for key "
    '&#039;uk_codice&#039;<\\/code><br>\\n<\\/div>"}'
)


def test_the_duplicate_key_text_counts_with_entity_or_plain_quotes() -> None:
    listed = "1. [POST] http://127.0.0.1:1/index.php?route=/table/replace => [200] OK"
    assert facts_reached(DUPLICATE, [listed, PMA_BODY]) == {"request": True, "error": True}
    alert = "[uid=63] alert \"Error ... MySQL said: #1062 - Duplicate entry 'CLI-00042' for key 'uk_codice'\""
    assert facts_reached(DUPLICATE, [alert]) == {"request": False, "error": True}


def test_a_cut_preview_or_another_key_is_not_the_duplicate_key_text() -> None:
    cut = PMA_BODY[: PMA_BODY.index("#1062") + 30]
    other = "#1062 - Duplicate entry 'CLI-00042' for key 'PRIMARY'"
    assert facts_reached(DUPLICATE, [cut, other]) == {"request": False, "error": False}
    get = "reqid=7 GET http://127.0.0.1:1/index.php?route=/table/replace [200]"
    assert facts_reached(DUPLICATE, [get]) == {"request": False, "error": False}


def test_the_redirect_flag_counts_as_the_body_says_it_not_as_the_handler_reads_it() -> None:
    assert facts_reached(DB_STOPPED, ['{"redirect_flag":"1","success":false}'])["redirect_body"]
    assert facts_reached(DB_STOPPED, ['response: {\\"redirect_flag\\":\\"1\\",\\"success\\":false}'])["redirect_body"]
    source = "if (parseInt(data.redirect_flag) === 1) { window.location.href += '?session_expired=1'"
    assert facts_reached(DB_STOPPED, [source, "### Response Body\n<not available anymore>"]) == {
        "redirect_body": False,
        "navigation": False,
    }
    listed = "2. [GET] http://127.0.0.1:1/index.php?route=/table/structure&db=crm&session_expired=1 => [FAILED]"
    assert facts_reached(DB_STOPPED, [listed]) == {"redirect_body": False, "navigation": True}
