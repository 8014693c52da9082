"""Turn a recorded whole session into the detector's corpus, its secrets replaced.

    REALAPPS_SESSION_DIR=/tmp/wp .venv/bin/python -m pytest tests/realapps/test_wordpress_duplicate_tag.py
    .venv/bin/python tests/realapps/session_corpus.py /tmp/wp wordpress [xhr,fetch]

writes ``tests/mcp_server/evidence/corpus/sessions/<app>/`` (each body, and ``index.json`` with
the URL, status, type and what the detector says of the body now: the expectation, to review by
hand before committing). Why a script: the corpus must be re-recordable when an app's package changes,
and the bodies hold CSRF tokens, nonces and script nonces that must not be committed: every value
the patterns below find anywhere in the session is replaced, in every body and URL, by as many
``x`` (lengths kept, so the markup stays what it was). The port becomes 8080, so a new recording
differs from the old one only where the app changed. It refuses to write a body that still holds
a long hex run next to a secret-sounding word.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from mcp_server.evidence.app_errors import app_error_in

OUT = Path(__file__).resolve().parents[1] / "mcp_server" / "evidence" / "corpus" / "sessions"

#: Where the apps put their tokens: form fields, JSON and script settings, URLs, CSP nonces
SECRET_PATTERNS = (
    re.compile(r"""name=["'][^"']*(?:token|nonce)[^"']*["'][^>]*?value=["']([^"']{6,})["']""", re.I),
    re.compile(r"""value=["']([^"']{6,})["'][^>]*?name=["'][^"']*(?:token|nonce)[^"']*["']""", re.I),
    re.compile(r"""["']?\w*(?:token|nonce)\w*["']?\s*[:=]\s*["']([0-9A-Za-z+/=_-]{8,})["']""", re.I),
    re.compile(r"""[?&;](?:amp;)?\w*(?:token|nonce)\w*=([0-9A-Za-z%_-]{8,})""", re.I),
    re.compile(r"""\bnonce=["']([^"']{8,})["']"""),
    re.compile(r"""\bnonce%3D([0-9a-f]{8,})""", re.I),
    # WordPress's nonces have one shape, whatever they are named (``_inline_edit``, ``"site_status"``)
    re.compile(r"""["'=]([0-9a-f]{10})(?=["'&])"""),
)
_LEFT = re.compile(r"(?:token|nonce)\W{0,6}[0-9a-f]{10,}|[\"'=][0-9a-f]{10}[\"'&]", re.I)
_PORT = re.compile(r"127\.0\.0\.1:\d+")


def secrets_of(texts: list[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        for pattern in SECRET_PATTERNS:
            found.update(m for m in pattern.findall(text) if len(m) >= 6 and not m.isalpha())
    return found


def redact(text: str, secrets: set[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "x" * len(secret))
    return _PORT.sub("127.0.0.1:8080", text)


def extension(mime: str) -> str:
    return "json" if "json" in mime else "xml" if "xml" in mime else "html" if "html" in mime else "txt"


def main(dump: Path, app: str, only: str = "") -> None:
    rows = [json.loads(line) for line in (dump / "index.jsonl").read_text().splitlines()]
    if only:  # e.g. "xhr,fetch": a session's calls without its (large) pages
        rows = [r for r in rows if r["kind"] in only.split(",")]
    bodies = {r["file"]: (dump / r["file"]).read_bytes().decode("utf-8", "replace") for r in rows}
    secrets = secrets_of([*bodies.values(), *(r["url"] for r in rows)])
    out = OUT / app
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for n, row in enumerate(rows):
        page = row["url"].split("?")[0].rstrip("/").rsplit("/", 1)[-1]
        body = redact(bodies[row["file"]], secrets)
        if (left := _LEFT.search(body)) is not None:
            raise SystemExit(f"{row['file']}: a secret may be left: {left.group(0)!r}")
        name = f"{n:02d}.{extension(row['mime'])}"
        (out / name).write_text(body, encoding="utf-8")
        index.append(
            {
                "name": f"session {app} {n:02d} {row['method']} {page}",
                "file": name,
                "method": row["method"],
                "url": redact(row["url"], secrets),
                "status": row["status"],
                "mime": row["mime"],
                "type": row["kind"],
                "expect": app_error_in(
                    body.encode(), row["mime"], status=row["status"], url=row["url"], resource_type=row["kind"]
                ),
            }
        )
    (out / "index.json").write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(index)} answers of {app} in {out}, {len(secrets)} secret values replaced")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], *sys.argv[3:4])
