"""phpMyAdmin on MariaDB from the Debian packages, run privately for the bench's real-app task rows.

Nothing system-wide is used or changed: MariaDB runs on a datadir of its own under a temporary
directory with ``--skip-networking`` and its own socket (no TCP port), and phpMyAdmin is served by
``php -S 127.0.0.1:PORT`` (both by ``bench/realapps.py``, the runner of every real app) from a
private copy of ``/usr/share/phpmyadmin`` made of symlinks, with its
own ``index.php`` and ``libraries/vendor_config.php`` pointing at its own ``config.inc.php``, temp
and cache directories. That way ``/etc/phpmyadmin/conf.d/`` (read by the Debian config, and used by
other runs on the same machine) is never read nor written.

The database ``crm`` holds the table ``clienti`` with the unique key ``uk_codice`` on ``codice``
and the row ``CLI-00042``: inserting that code again is the duplicate-key task.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

from . import realapps

__all__ = ["PhpMyAdmin", "missing", "DB", "TABLE", "DUP_CODE", "UNIQUE_KEY", "USER"]

PMA_DIR = Path("/usr/share/phpmyadmin")
DB = "crm"
TABLE = "clienti"
UNIQUE_KEY = "uk_codice"
#: The code of an existing customer: inserting it again breaks ``uk_codice``.
DUP_CODE = "CLI-00042"
USER = "gestionale"

_SCHEMA = f"""
CREATE DATABASE {DB} CHARACTER SET utf8mb4;
CREATE TABLE {DB}.{TABLE} (
  id INT AUTO_INCREMENT PRIMARY KEY,
  codice VARCHAR(20) NOT NULL,
  ragione_sociale VARCHAR(120) NOT NULL DEFAULT '',
  piva VARCHAR(11) NOT NULL DEFAULT '',
  provincia CHAR(2) NOT NULL DEFAULT '',
  UNIQUE KEY {UNIQUE_KEY} (codice)
);
INSERT INTO {DB}.{TABLE} (codice, ragione_sociale, piva, provincia) VALUES
  ('CLI-00041', 'Rossi Forniture SRL', '09876543210', 'MI'),
  ('{DUP_CODE}', 'ACME SRL', '01234567890', 'TO'),
  ('CLI-00043', 'Bianchi & Figli SNC', '11223344556', 'TO');
"""


def missing() -> str | None:
    """Why phpMyAdmin cannot run here (a package not installed), or None."""
    needs = ("mysqli_connect", "mb_strlen", "simplexml_load_string")
    return realapps.missing(PMA_DIR / "index.php", "phpmyadmin", needs)


class PhpMyAdmin(realapps.PhpSite):
    """MariaDB + phpMyAdmin in one temporary directory; ``start()``, ``stop_database()``, ``stop()``."""

    name = "pma"
    ready_path = "/index.php"

    def url(self, query: str = "") -> str:
        return self.base_url + ("index.php?" + query if query else "")

    def seed(self) -> None:
        self.db.sql(
            _SCHEMA + f"CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{self.password}';\n"
            f"GRANT ALL ON {DB}.* TO '{USER}'@'localhost';\n"
        )

    def reset_table(self) -> None:
        """The table as seeded (a task's insert may have left rows behind), the database running."""
        self.start_database()
        self.db.sql(f"DELETE FROM {DB}.{TABLE} WHERE codice NOT IN ('CLI-00041', '{DUP_CODE}', 'CLI-00043');")

    # -- phpMyAdmin ----------------------------------------------------------------------------

    def web_root(self) -> None:
        """A copy of /usr/share/phpmyadmin made of symlinks, with its own config (see the module doc)."""
        for entry in PMA_DIR.iterdir():
            if entry.name not in ("index.php", "libraries"):
                (self.root / entry.name).symlink_to(entry)
        # index.php defines ROOT_PATH from its own __DIR__ (symlinks resolved): a real copy.
        shutil.copy(PMA_DIR / "index.php", self.root / "index.php")
        libs = self.root / "libraries"
        libs.mkdir()
        for entry in (PMA_DIR / "libraries").iterdir():
            if entry.name not in ("vendor_config.php", "cache"):
                (libs / entry.name).symlink_to(entry)
        (libs / "cache").mkdir()
        (self.dir / "tmp").mkdir()
        vendor = (PMA_DIR / "libraries" / "vendor_config.php").read_text()
        vendor = vendor.replace("'/var/lib/phpmyadmin/tmp/'", repr(str(self.dir / "tmp") + "/"))
        vendor = vendor.replace("'/etc/phpmyadmin/config.inc.php'", repr(str(self.dir / "config.inc.php")))
        (libs / "vendor_config.php").write_text(vendor)
        (self.dir / "config.inc.php").write_text(
            "<?php\n"
            f"$cfg['blowfish_secret'] = {secrets.token_hex(16)!r};\n"
            "$i = 1;\n"
            "$cfg['Servers'][$i]['auth_type'] = 'cookie';\n"
            "$cfg['Servers'][$i]['host'] = 'localhost';\n"
            f"$cfg['Servers'][$i]['socket'] = {str(self.socket)!r};\n"
            "$cfg['Servers'][$i]['AllowNoPassword'] = false;\n"
            f"$cfg['TempDir'] = {str(self.dir / 'tmp')!r};\n"
            "$cfg['VersionCheck'] = false;\n"
            "$cfg['SendErrorReports'] = 'never';\n"
        )
