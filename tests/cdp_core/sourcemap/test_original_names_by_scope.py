"""Original names of a minified bundle's variables, from the real esbuild map of tests/pages/debug.

esbuild renames every local to one letter and reuses the letters from function to function
(``e`` is ``subtotale`` in totaleRiga, ``righe`` in validaOrdine, ``indice`` in sommaLunga), so
a name is only right when read over the scope that binds it; these checks would fail with the
one mapping at a frame's line.
"""

from __future__ import annotations

import paths

from cdp_core.recorders.debugger.capture import logpoint_condition
from cdp_core.sourcemap import parse_source_map
from cdp_core.sourcemap.scopes import (
    NameIndex,
    generated_position,
    source_index,
    split_top_level,
    translate_identifiers,
)

PAGES = paths.PAGES / "debug"
TEXT = (PAGES / "app.min.js").read_text()
SMAP = parse_source_map((PAGES / "app.min.js.map").read_text(), "http://127.0.0.1/debug/app.min.js.map")


def _function_range(generated_name: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The generated range of ``function NAME(...){...}`` (one line; no braces in its strings)."""
    start = TEXT.index(f"function {generated_name}(")
    depth, i = 0, TEXT.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(TEXT[i], 0)
        if depth == 0:
            return (0, start), (0, i + 1)
        i += 1


def test_one_letter_means_what_its_scope_binds():
    index = NameIndex(SMAP, TEXT)
    named = {fn: _function_range(fn) for fn in ("l", "s", "g")}  # totaleRiga, validaOrdine, sommaLunga
    assert index.original_name("e", *named["l"]) == "subtotale"
    assert index.original_name("e", *named["s"]) == "righe"
    assert index.original_name("e", *named["g"]) == "indice"
    assert index.original_name("i", *named["s"]) == "password"
    assert index.original_name("a", *named["s"]) == "totale"
    whole = ((0, 0), (1, 0))
    # the module scope, the functions' own bindings left out: `n` is the heartbeat object
    assert index.original_name("n", whole[0], whole[1], inner=named["g"]) == "battito"


def test_an_original_line_runs_where_its_statement_starts():
    [src] = source_index(SMAP, "ordini.js")
    line, col = generated_position(SMAP, src, 14 - 1)  # totale += totaleRiga(riga.prezzo, riga.quantita);
    assert TEXT[col:].startswith("a+=l(o.prezzo,o.quantita)") and line == 0
    assert generated_position(SMAP, src, 2 - 1) is None  # a blank line has no code


def test_a_logpoint_expression_is_rewritten_to_the_bundles_names():
    index = NameIndex(SMAP, TEXT)
    [src] = source_index(SMAP, "ordini.js")
    at = generated_position(SMAP, src, 14 - 1)
    renamed = {n: index.generated_name(n, at, src) for n in ("totale", "riga")}
    assert renamed == {"totale": "a", "riga": "o"}
    expression = "totale, riga.prezzo * 2, 'riga', riga.totale"
    assert translate_identifiers(expression, renamed) == "a, o.prezzo * 2, 'riga', o.totale"
    assert split_top_level("totale, f(a, b), 'x,y'") == ["totale", "f(a, b)", "'x,y'"]


def test_the_logpoint_condition_never_pauses_and_keeps_its_names_out_of_the_pages_scope():
    condition = logpoint_condition("__mcpDebug_ab", 3, 100, "a, o.prezzo", "a > 0")
    assert condition.endswith(", false)")  # whatever it records, the breakpoint never pauses
    assert "c3 || 0) + 1) <= 100" in condition and "c3 === 101" in condition
    assert "let __mcpV" in condition and "let v" not in condition
