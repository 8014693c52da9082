"""phpMyAdmin on MariaDB from the Debian packages, run privately for the bench's real-app task rows.

Nothing system-wide is used or changed: MariaDB runs on a datadir of its own under a temporary
directory with ``--skip-networking`` and its own socket (no TCP port), and phpMyAdmin is served by
``php -S 127.0.0.1:PORT`` from a private copy of ``/usr/share/phpmyadmin`` made of symlinks, with its
own ``index.php`` and ``libraries/vendor_config.php`` pointing at its own ``config.inc.php``, temp
and cache directories. That way ``/etc/phpmyadmin/conf.d/`` (read by the Debian config, and used by
other runs on the same machine) is never read nor written.

The database ``crm`` holds the table ``clienti`` with the unique key ``uk_codice`` on ``codice``
and the row ``CLI-00042``: inserting that code again is the duplicate-key task.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from .procmem import HARNESS_PIDS

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

_BINARIES = ("mariadbd", "mariadb-install-db", "mariadb", "php")


def _which(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(p) for d in ("/usr/sbin", "/usr/bin") if (p := Path(d, name)).exists()), None
    )


def missing() -> str | None:
    """Why phpMyAdmin cannot run here (a package not installed), or None."""
    gone = [b for b in _BINARIES if _which(b) is None]
    if not (PMA_DIR / "index.php").exists():
        gone.append(f"{PMA_DIR} (package phpmyadmin)")
    return f"not installed: {', '.join(gone)}" if gone else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PhpMyAdmin:
    """MariaDB + phpMyAdmin in one temporary directory; ``start()``, ``stop_database()``, ``stop()``."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="bench-pma-"))
        self.socket = self.dir / "mysqld.sock"
        self.datadir = self.dir / "db"
        self.root = self.dir / "www"
        self.port = _free_port()
        #: The application user's login, typed by the person on the login page.
        self.password = secrets.token_hex(8)
        self._db: subprocess.Popen[bytes] | None = None
        self._php: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def url(self, query: str = "") -> str:
        return self.base_url + ("index.php?" + query if query else "")

    # -- MariaDB -------------------------------------------------------------------------------

    def _install_db(self) -> None:
        self.datadir.mkdir()
        user = ["--user=root"] if os.geteuid() == 0 else []
        subprocess.run(
            [
                _which("mariadb-install-db") or "mariadb-install-db",
                f"--datadir={self.datadir}",
                *user,
                "--auth-root-authentication-method=socket",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )

    def start_database(self) -> None:
        """Start (or restart) mariadbd on the private datadir and socket; wait until it answers."""
        if self._db is not None and self._db.poll() is None:
            return
        user = ["--user=root"] if os.geteuid() == 0 else []
        log = open(self.dir / "mariadbd.log", "ab")  # noqa: SIM115 (kept open for the process)
        self._db = subprocess.Popen(
            [
                _which("mariadbd") or "mariadbd",
                "--no-defaults",
                f"--datadir={self.datadir}",
                f"--socket={self.socket}",
                "--skip-networking",
                f"--pid-file={self.dir / 'mariadbd.pid'}",
                f"--log-error={self.dir / 'mariadbd.err'}",
                "--innodb-buffer-pool-size=32M",
                "--skip-log-bin",
                *user,
            ],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        HARNESS_PIDS.add(self._db.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self._db.poll() is not None:
                raise RuntimeError(f"mariadbd exited: {(self.dir / 'mariadbd.err').read_text()[-800:]}")
            if self._sql("SELECT 1", check=False).returncode == 0:
                return
            time.sleep(0.3)
        raise TimeoutError("mariadbd did not answer on its socket within 120 s")

    def stop_database(self) -> None:
        """Stop mariadbd (SIGTERM, a clean shutdown) and wait: the 'database stopped' of a task."""
        if self._db is None or self._db.poll() is not None:
            return
        self._db.terminate()
        try:
            self._db.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._db.kill()
            self._db.wait(timeout=10)

    def _sql(self, sql: str, *, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(
            [_which("mariadb") or "mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot"],
            input=sql.encode(),
            capture_output=True,
            timeout=60,
        )
        if check and done.returncode:
            raise RuntimeError(f"mariadb: {done.stderr.decode(errors='replace').strip()[:300]}")
        return done

    def _seed(self) -> None:
        self._sql(
            _SCHEMA + f"CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{self.password}';\n"
            f"GRANT ALL ON {DB}.* TO '{USER}'@'localhost';\n"
        )

    def reset_table(self) -> None:
        """The table as seeded (a task's insert may have left rows behind), the database running."""
        self.start_database()
        self._sql(f"DELETE FROM {DB}.{TABLE} WHERE codice NOT IN ('CLI-00041', '{DUP_CODE}', 'CLI-00043');")

    # -- phpMyAdmin ----------------------------------------------------------------------------

    def _web_root(self) -> None:
        """A copy of /usr/share/phpmyadmin made of symlinks, with its own config (see the module doc)."""
        self.root.mkdir()
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

    def start(self) -> PhpMyAdmin:
        try:
            self._install_db()
            self.start_database()
            self._seed()
            self._web_root()
            log = open(self.dir / "php.log", "ab")  # noqa: SIM115 (kept open for the process)
            self._php = subprocess.Popen(
                [_which("php") or "php", "-S", f"127.0.0.1:{self.port}", "-t", str(self.root)],
                stdout=log,
                stderr=log,
                cwd=self.root,
                start_new_session=True,
            )
            HARNESS_PIDS.add(self._php.pid)
            self._wait_http()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_http(self) -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                with opener.open(self.url(), timeout=10) as resp:
                    if resp.status == 200:
                        return
            time.sleep(0.2)
        raise TimeoutError(f"phpMyAdmin did not answer on {self.base_url} within 60 s")

    def stop(self) -> None:
        for proc in (self._php, self._db):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> PhpMyAdmin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
