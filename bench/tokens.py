"""Token counts with a real BPE tokenizer when one is at hand, chars/4 always.

``gpt-tokenizer`` (npm, pure JavaScript, its o200k_base ranks ship inside the package, so
nothing is downloaded at run time) is installed next to the peers. Python's tiktoken
would download its ranks on first use, which this machine cannot do. No Claude tokenizer
is published; o200k_base is a stand-in that moves the same way with the text.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

__all__ = ["approx_tokens", "bpe_tokens", "TOKENIZER_NAME"]

TOKENIZER_NAME = "o200k_base (gpt-tokenizer)"

_SCRIPT = """
const {countTokens} = require("gpt-tokenizer/encoding/o200k_base");
let data = "";
process.stdin.on("data", d => data += d);
process.stdin.on("end", () => console.log(JSON.stringify(JSON.parse(data).map(t => countTokens(t)))));
"""


def approx_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def bpe_tokens(texts: list[str], peers_dir: Path, timeout: float = 120.0) -> list[int] | None:
    """o200k_base counts for ``texts`` via node, or None when the tokenizer is missing or fails."""
    if not (peers_dir / "node_modules" / "gpt-tokenizer").is_dir():
        return None
    try:
        proc = subprocess.run(
            ["node", "-e", _SCRIPT],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            cwd=peers_dir,
            timeout=timeout,
            check=True,
        )
        counts = json.loads(proc.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return counts if isinstance(counts, list) and len(counts) == len(texts) else None
