"""Adminer (Debian's single-file ``adminer.php``) on MariaDB, run privately by ``bench/realapps.py``.

Adminer answers a failed statement with the whole page again, a full-page POST (a document, not
an XHR) holding ``<p class="error">…</p>``: a shape unlike phpMyAdmin's 200 JSON. The database
``magazzino`` holds ``articoli`` with the unique key ``uk_sku`` and the row ``ART-0007``: saving a
new item with that SKU is the duplicate-key task.
"""

from __future__ import annotations

from pathlib import Path

from . import realapps

__all__ = ["Adminer", "missing", "DB", "TABLE", "DUP_SKU", "UNIQUE_KEY", "USER"]

ADMINER_FILE = Path("/usr/share/adminer/adminer.php")
DB = "magazzino"
TABLE = "articoli"
UNIQUE_KEY = "uk_sku"
#: The SKU of an existing item: saving it again breaks ``uk_sku``.
DUP_SKU = "ART-0007"
USER = "magazziniere"

_SCHEMA = f"""
CREATE DATABASE {DB} CHARACTER SET utf8mb4;
CREATE TABLE {DB}.{TABLE} (
  id INT AUTO_INCREMENT PRIMARY KEY,
  sku VARCHAR(20) NOT NULL,
  descrizione VARCHAR(120) NOT NULL DEFAULT '',
  giacenza INT NOT NULL DEFAULT 0,
  UNIQUE KEY {UNIQUE_KEY} (sku)
);
INSERT INTO {DB}.{TABLE} (sku, descrizione, giacenza) VALUES
  ('ART-0006', 'Viti M6 (scatola da 100)', 40),
  ('{DUP_SKU}', 'Bulloni M8 (scatola da 50)', 12),
  ('ART-0008', 'Rondelle 8 mm', 300);
"""


def missing() -> str | None:
    """Why Adminer cannot run here (a package not installed), or None."""
    return realapps.missing(ADMINER_FILE, "adminer")


class Adminer(realapps.PhpSite):
    """MariaDB + Adminer in one temporary directory; the person logs in as :data:`USER`."""

    name = "adminer"
    ready_path = "/adminer.php"

    def url(self, query: str = "") -> str:
        return self.base_url + "adminer.php" + ("?" + query if query else "")

    def seed(self) -> None:
        self.db.sql(
            _SCHEMA + f"CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{self.password}';\n"
            f"GRANT ALL ON {DB}.* TO '{USER}'@'localhost';\n"
        )

    def web_root(self) -> None:
        (self.root / "adminer.php").symlink_to(ADMINER_FILE)

    def reset_table(self) -> None:
        """The table as seeded, the database running."""
        self.start_database()
        self.db.sql(f"DELETE FROM {DB}.{TABLE} WHERE sku NOT IN ('ART-0006', '{DUP_SKU}', 'ART-0008');")
