"""The prompt-submit hook: hint on "Chrome is already open" prompts, silence on everything else.

Run as a function and as the real subprocess a client would start, with the payload shapes
Claude Code and Codex send, plain text, and garbage (which must never fail the hook).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

from mcp_server.cli import hook

TRIGGERS = [
    # Italian
    "ho Chrome già aperto sulla pagina del cliente, guarda perché il salvataggio dà errore 500",
    "ho già aperto chrome sulla pagina",
    "Chrome è già aperto, dimmi perché il form non salva",
    "ho chrome aperto sulla scheda clienti",
    "non navigare da capo, il modulo è già compilato",
    "usa la tab che sto guardando",
    "guarda la scheda che ho aperto e leggi la console",
    "la pagina è già aperta in Chrome, controlla le chiamate di rete",
    "collegati al mio Chrome e dimmi cosa succede quando premo Salva",
    "il browser è già avviato con la porta di debug",
    "resta sulla tab corrente e fai uno snapshot",
    "non ricaricare la pagina, ho già inserito i dati",
    "NON RIPARTIRE DA CAPO",
    "ho gia aperto chrome",  # typed without the accent
    # English
    "I already have Chrome open on the invoice page",
    "use the tab I'm on",
    "use the tab I\u2019m on and tell me why the save fails",  # curly apostrophe
    "don't start over, I already filled the form",
    "Chrome is already running, check why the AJAX call returns 500",
    "I've got my browser open on the failing page, check the console",
    "attach to my Chrome and read the network errors",
    "the page I have open in chrome throws an error",
    "Don't navigate, just tell me why the save button fails",
    "do not reload the page, the state matters",
    "Chrome is open on the report page; what is slow?",
    "stay on the current tab and take a snapshot",
    "I started Chrome with --remote-debugging-port=9222, debug the checkout",
]

SILENT = [
    "open chrome and go to google",
    "apri chrome e vai su google.com",
    "chrome extension development",
    "apri il file",
    "apri il file index.html e correggi il bug",
    "navigate to http://127.0.0.1:8000/login and fill in the form",
    "write a playwright test that opens the browser",
    "launch the browser and take a screenshot of example.com",
    "update the table without reloading the page",
    "aggiorna la tabella senza ricaricare la pagina",
    "fix the active tab styling in the tabs component",
    "il colore della tab attiva è sbagliato",
    "Chromium is open source, right?",
    "the form must not navigate away when it has unsaved changes",
    "don't navigate away from the form if it is dirty",
    "the tab key does not move focus to the next input",
    "ho un bug nel file chrome.js",
    "refactor the browser module and start over with the tests",
    "why is chrome so slow on this machine?",
    "",
    "   ",
]


@pytest.mark.parametrize("prompt", TRIGGERS)
def test_prompt_saying_chrome_is_open_gets_the_hint(prompt: str) -> None:
    assert hook.says_chrome_is_open(prompt), prompt
    assert hook.hint_for(prompt) == hook.HINT


@pytest.mark.parametrize("prompt", SILENT)
def test_other_prompts_get_nothing(prompt: str) -> None:
    assert not hook.says_chrome_is_open(prompt), prompt
    assert hook.hint_for(prompt) is None


def test_hint_is_one_line_naming_the_skill_and_attach() -> None:
    assert "\n" not in hook.HINT
    assert "mcp-browser-automation" in hook.HINT
    assert "action=attach_cdp" in hook.HINT
    assert "instead of action=navigate" in hook.HINT


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "ciao"}), "ciao"),
        (json.dumps({"event": {"user_prompt": "hello codex"}}), "hello codex"),
        (json.dumps({"input": [{"content": "first"}, {"text": "second"}]}), "first\nsecond"),
        (json.dumps("a bare json string"), "a bare json string"),
        ("plain text prompt", "plain text prompt"),
        ('{"prompt": "broken', '{"prompt": "broken'),  # bad JSON is read as text, never an error
        (json.dumps({"cwd": "/tmp"}), ""),
        (json.dumps([1, 2, 3]), ""),
        ("", ""),
    ],
)
def test_extract_prompt_from_client_payloads(raw: str, expected: str) -> None:
    assert hook.extract_prompt(raw) == expected


def _run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: bytes, argv: list[str]):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = hook.main(argv)
    return code, capsys.readouterr()


def test_main_prints_hint_for_claude_code_payload(monkeypatch, capsys) -> None:
    payload = {"session_id": "x", "hook_event_name": "UserPromptSubmit", "prompt": "ho Chrome già aperto"}
    code, out = _run_main(monkeypatch, capsys, json.dumps(payload).encode(), ["user-prompt"])
    assert code == 0
    assert out.out == hook.HINT + "\n"


def test_main_is_silent_for_other_prompts(monkeypatch, capsys) -> None:
    payload = {"prompt": "open chrome and go to google"}
    code, out = _run_main(monkeypatch, capsys, json.dumps(payload).encode(), ["user-prompt"])
    assert (code, out.out) == (0, "")


@pytest.mark.parametrize("stdin", [b"", b"\xff\xfe\x00garbage", b"{not json", b"null", b"[]"])
def test_main_never_fails_on_bad_input(monkeypatch, capsys, stdin: bytes) -> None:
    code, out = _run_main(monkeypatch, capsys, stdin, ["user-prompt"])
    assert (code, out.out) == (0, "")


def test_main_unknown_event_exits_zero_and_says_so_on_stderr(monkeypatch, capsys) -> None:
    code, out = _run_main(monkeypatch, capsys, b'{"prompt": "ho chrome gia aperto"}', ["session-start"])
    assert code == 0
    assert out.out == ""
    assert "unknown event" in out.err


def _subprocess(cmd: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, input=stdin, capture_output=True, cwd=ROOT, timeout=60, check=False)


@pytest.mark.parametrize(
    ("stdin", "hinted"),
    [
        (json.dumps({"prompt": "I already have Chrome open, use the tab I'm on"}).encode(), True),
        (json.dumps({"event": {"user_prompt": "non navigare da capo"}}).encode(), True),
        ("usa la tab che sto guardando: è già lì".encode(), True),
        (json.dumps({"prompt": "open chrome and go to google"}).encode(), False),
        (b"{broken json", False),
    ],
)
def test_module_subprocess(stdin: bytes, hinted: bool) -> None:
    proc = _subprocess([sys.executable, "-m", "mcp_server.cli.hook", "user-prompt"], stdin)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().strip() == (hook.HINT if hinted else "")


def test_console_script_hook_subcommand() -> None:
    """The command line the README tells users to put in their client's hook settings."""
    script = shutil.which("mcp-browser", path=str(Path(sys.executable).parent))
    assert script, "console script mcp-browser not installed in the venv"
    hinted = _subprocess([script, "hook", "user-prompt"], json.dumps({"prompt": "ho Chrome già aperto"}).encode())
    assert hinted.returncode == 0, hinted.stderr
    assert hinted.stdout.decode().strip() == hook.HINT
    silent = _subprocess([script, "hook", "user-prompt"], json.dumps({"prompt": "apri il file"}).encode())
    assert (silent.returncode, silent.stdout) == (0, b"")
