"""The task rows' pages: two screens of a legacy business app, served by the bench's page server.

``clienti.html`` (task *diagnosis*): a customer form whose Save button POSTs form-urlencoded data
with ``XMLHttpRequest`` to ``salva_cliente.php``. That endpoint answers 500 with what PHP prints
under ``display_errors``: the template's header, a deprecation notice, then the one line that
matters (a fatal ``PDOException`` with its file:line) and its stack trace. The page's script
then throws in a named function and logs the ``Error`` with ``console.error``, so the console
entry has a stack with file:line frames.

``ordine.html`` (task *save does nothing*): an order form whose Save handler throws before it
sends anything (it reads a field that was renamed), so the click looks like nothing happened.

The facts the harness looks for in the answers are built from the constants below
(``bench/task_sequences.py``), so the pages and the patterns cannot drift apart.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CLIENTI_PATH",
    "ORDINE_PATH",
    "SAVE_PATH",
    "SERVER_ERROR_LINE",
    "DIAG_ERROR",
    "DIAG_SCRIPT",
    "DIAG_THROW_LINE",
    "ORDINE_ERROR",
    "ORDINE_SCRIPT",
    "ORDINE_THROW_LINE",
    "install",
]

CLIENTI_PATH = "/bench/task/clienti.html"
ORDINE_PATH = "/bench/task/ordine.html"
SAVE_PATH = "/bench/task/salva_cliente.php"
DIAG_SCRIPT = "gestionale.js"
ORDINE_SCRIPT = "ordini.js"

#: The server's one useful line, as PHP prints it (html_errors on: the label in <b>).
SERVER_ERROR_LINE = (
    "Uncaught PDOException: SQLSTATE[42S22]: Column not found: 1054 Unknown column 'codice_sdi'"
    " in 'field list' in /var/www/gestionale/clienti/salva_cliente.php:87"
)
#: The message of the Error the diagnosis page throws once the save answered 500.
DIAG_ERROR = "Salvataggio cliente fallito: HTTP 500"
#: What Chrome says when ordini.js reads ``.value`` of a field that no longer exists.
ORDINE_ERROR = "Cannot read properties of null (reading 'value')"

CLIENTI_HTML = """<!doctype html>
<html lang="it"><head><meta charset="utf-8"><title>Anagrafica clienti - Gestionale</title>
<script src="/bench/task/gestionale.js" defer></script></head>
<body>
<div class="menu"><a href="#">Home</a> | <a href="#">Clienti</a> | <a href="#">Fornitori</a> |
  <a href="#">Fatture</a></div>
<h1>Anagrafica clienti</h1>
<form id="cliente" onsubmit="return false">
  <input type="hidden" name="id" value="1042">
  <label>Ragione sociale <input name="ragione" value="ACME SRL"></label>
  <label>Partita IVA <input name="piva" value="01234567890"></label>
  <label>Codice SDI <input name="codice_sdi" value="M5UXCR1"></label>
  <label>Provincia <select name="provincia"><option>MI</option><option selected>TO</option></select></label>
  <label>Note <textarea name="note">Cliente storico</textarea></label>
  <button type="button" id="salva">Salva</button>
  <a href="#">Annulla</a>
</form>
<p id="esito" role="status"></p>
</body></html>
"""

# The line numbers of the throws are found from the source, so editing the scripts keeps the facts right.
GESTIONALE_JS = """// gestionale.js - anagrafica clienti (2014)
function serializza(form) {
  var parti = [];
  for (var i = 0; i < form.elements.length; i++) {
    var el = form.elements[i];
    if (el.name) parti.push(encodeURIComponent(el.name) + "=" + encodeURIComponent(el.value));
  }
  return parti.join("&");
}

function controllaRisposta(xhr) {
  if (xhr.status !== 200) {
    throw new Error("Salvataggio cliente fallito: HTTP " + xhr.status);
  }
  return JSON.parse(xhr.responseText);
}

function mostraEsito(testo) {
  document.getElementById("esito").textContent = testo;
}

function salvaCliente() {
  var xhr = new XMLHttpRequest();
  xhr.open("POST", "/bench/task/salva_cliente.php");
  xhr.setRequestHeader("Content-Type", "application/x-www-form-urlencoded");
  xhr.onload = function () {
    try {
      controllaRisposta(xhr);
      mostraEsito("Salvato");
    } catch (e) {
      console.error(e);
      mostraEsito("Errore durante il salvataggio");
    }
    window.__benchTaskDone = true;
  };
  xhr.send(serializza(document.getElementById("cliente")));
}

document.getElementById("salva").addEventListener("click", salvaCliente);
"""

ORDINE_HTML = """<!doctype html>
<html lang="it"><head><meta charset="utf-8"><title>Nuovo ordine - Gestionale</title>
<script src="/bench/task/ordini.js" defer></script></head>
<body>
<div class="menu"><a href="#">Home</a> | <a href="#">Clienti</a> | <a href="#">Ordini</a> |
  <a href="#">Fatture</a></div>
<h1>Nuovo ordine</h1>
<form id="ordine" onsubmit="return false">
  <label>Cliente <input name="cliente" value="ACME SRL"></label>
  <label>Data consegna <input name="consegna" type="date" value="2026-12-15"></label>
  <label>Sconto %% <input id="sconto" name="sconto" value="5"></label>
  <table>
    <tr><th>Articolo</th><th>Quantit\u00e0</th><th>Prezzo</th></tr>
    %(rows)s
  </table>
  <button type="button" id="aggiungi">Aggiungi riga</button>
  <button type="button" id="salva">Salva ordine</button>
  <a href="#">Annulla</a>
</form>
<p id="esito" role="status"></p>
</body></html>
"""

ORDINI_JS = """// ordini.js - nuovo ordine (2016)
function leggiRighe(form) {
  var righe = [];
  var inputs = form.querySelectorAll("input[name^=qta]");
  for (var i = 0; i < inputs.length; i++) righe.push({articolo: i, qta: Number(inputs[i].value)});
  return righe;
}

function leggiOrdine(form) {
  var ordine = {cliente: form.cliente.value, righe: leggiRighe(form)};
  ordine.sconto = Number(document.getElementById("sconto_cliente").value);
  return ordine;
}

function salvaOrdine() {
  var form = document.getElementById("ordine");
  var ordine = leggiOrdine(form);
  return fetch("/bench/task/salva_ordine.php", {
    method: "POST",
    headers: {"Content-Type": "application/x-www-form-urlencoded"},
    body: "dati=" + encodeURIComponent(JSON.stringify(ordine)),
  });
}

document.getElementById("salva").addEventListener("click", salvaOrdine);
"""

#: What PHP printed before and after the fatal error: the template's header and a notice.
_SAVE_BODY = (
    "<!doctype html>\n<html><head><title>Gestionale</title>\n"
    "<style>body{font-family:Verdana,sans-serif;font-size:11px}.menu a{color:#036}</style></head>\n"
    '<body><div class="menu"><a href="/">Home</a> | <a href="/clienti/">Clienti</a></div>\n'
    "<br />\n<b>Deprecated</b>:  Function utf8_encode() is deprecated in "
    "<b>/var/www/gestionale/lib/compat.php</b> on line <b>12</b><br />\n"
    "<br />\n<b>Fatal error</b>:  " + SERVER_ERROR_LINE + "\nStack trace:\n"
    "#0 /var/www/gestionale/clienti/salva_cliente.php(87): PDOStatement-&gt;execute(Array)\n"
    "#1 {main}\n  thrown in <b>/var/www/gestionale/clienti/salva_cliente.php</b> on line <b>87</b><br />\n"
)


def _line_of(source: str, needle: str) -> int:
    """1-based line of the first line of ``source`` holding ``needle``."""
    for number, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return number
    raise ValueError(needle)


#: The line of each script where the task's error is thrown: the stack frame a fact must name.
DIAG_THROW_LINE = _line_of(GESTIONALE_JS, "throw new Error")
ORDINE_THROW_LINE = _line_of(ORDINI_JS, 'getElementById("sconto_cliente")')


def _order_rows(n: int = 8) -> str:
    items = ("Toner HP 83A", "Carta A4 80g", "Penne blu", "Raccoglitori", "Post-it", "Cucitrice", "Graffette", "Buste")
    cells = (
        f'<td>{items[i % len(items)]}</td><td><input name="qta{i}" value="{i + 1}"></td><td>{(i + 1) * 3},50</td>'
        for i in range(n)
    )
    return "\n    ".join(f"<tr>{c}</tr>" for c in cells)


def install(server: Any) -> None:
    """Add the task routes to a ``tests/httpserver.py`` ``TestServer`` (the bench's page server)."""
    from httpserver import Reply  # bench/pages.py put tests/ on sys.path

    js = "application/javascript; charset=utf-8"
    server.route(CLIENTI_PATH, Reply(body=CLIENTI_HTML))
    server.route("/bench/task/" + DIAG_SCRIPT, Reply(body=GESTIONALE_JS, content_type=js))
    server.route(SAVE_PATH, Reply(status=500, body=_SAVE_BODY))
    server.route(ORDINE_PATH, Reply(body=ORDINE_HTML % {"rows": _order_rows()}))
    server.route("/bench/task/" + ORDINE_SCRIPT, Reply(body=ORDINI_JS, content_type=js))
    server.route("/bench/task/salva_ordine.php", Reply(body='{"ok": true}', content_type="application/json"))
