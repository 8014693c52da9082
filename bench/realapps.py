"""The one runner of real PHP apps on MariaDB, for the bench's task rows and tests/realapps.

Why one: each app (phpMyAdmin, Adminer, WordPress) needs the same two processes, and two
harnesses drifted apart (one wrote into ``/etc``). Nothing system-wide is used or changed here:

- MariaDB runs on a datadir of its own under a temporary directory, with ``--skip-networking``
  and its own socket (no TCP port); its root logs in through that socket only.
- The app is served by ``php -S 127.0.0.1:PORT`` from a web root of its own in the same
  directory (symlinks into the Debian package's files, plus the app's own config), PHP's
  ``mysqli``/``pdo`` default socket pointing at that MariaDB, sessions and logs in that directory.

A subclass says what its web root holds (:meth:`PhpSite.web_root`), what it seeds
(:meth:`PhpSite.seed`) and which page answers once it is up (:attr:`PhpSite.ready_path`);
:func:`missing` names what is not installed, so a test skips that app with the reason.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Self

from .procmem import HARNESS_PIDS

__all__ = ["MariaDB", "PhpSite", "missing", "which", "DB_BINARIES"]

#: What every site needs on the machine (Debian: mariadb-server, php-cli)
DB_BINARIES = ("mariadbd", "mariadb-install-db", "mariadb", "php")


def which(name: str) -> str | None:
    """``name`` on PATH or in /usr/sbin (where Debian puts mariadbd, outside a user's PATH)."""
    return shutil.which(name) or next(
        (str(p) for d in ("/usr/sbin", "/usr/bin") if (p := Path(d, name)).exists()), None
    )


def missing(app_file: Path, package: str, php_functions: tuple[str, ...] = ("mysqli_connect",)) -> str | None:
    """Why a site cannot run here (the binaries, the package's ``app_file``, PHP's modules), or None."""
    gone = [b for b in DB_BINARIES if which(b) is None]
    if not app_file.exists():
        gone.append(f"{app_file} (package {package})")
    php = which("php")
    if php is not None and php_functions:
        check = " && ".join(f"function_exists({f!r})" for f in php_functions)
        done = subprocess.run([php, "-r", f"exit({check} ? 0 : 1);"], capture_output=True, timeout=60)
        if done.returncode:
            gone.append(f"PHP functions {', '.join(php_functions)} (php-mysql, php-xml, php-mbstring)")
    return f"not installed: {', '.join(gone)}" if gone else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop one process this runner started and its children (SIGTERM to its own process group, a
    clean shutdown, then SIGKILL): ``php -S`` with workers leaves them serving when only it stops."""
    if proc is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # started with start_new_session: the group is its own
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the workers go with the group, not with the parent
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


class MariaDB:
    """mariadbd on a datadir and socket of its own, socket only (``--skip-networking``)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.datadir = workdir / "db"
        self.socket = workdir / "mysqld.sock"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def install(self) -> None:
        self.datadir.mkdir()
        user = ["--user=root"] if os.geteuid() == 0 else []
        subprocess.run(
            [
                which("mariadb-install-db") or "mariadb-install-db",
                f"--datadir={self.datadir}",
                *user,
                "--auth-root-authentication-method=socket",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )

    def start(self) -> None:
        """Start (or restart) mariadbd; wait until it answers on its socket."""
        if self.running:
            return
        user = ["--user=root"] if os.geteuid() == 0 else []
        log = open(self.dir / "mariadbd.log", "ab")  # noqa: SIM115 (kept open for the process)
        self._proc = subprocess.Popen(
            [
                which("mariadbd") or "mariadbd",
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
        HARNESS_PIDS.add(self._proc.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"mariadbd exited: {(self.dir / 'mariadbd.err').read_text()[-800:]}")
            if self.sql("SELECT 1", check=False).returncode == 0:
                return
            time.sleep(0.3)
        raise TimeoutError("mariadbd did not answer on its socket within 120 s")

    def stop(self) -> None:
        """SIGTERM (a clean shutdown) and wait: also the 'database stopped' of a task."""
        _stop(self._proc)

    def sql(self, sql: str, *, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """Run ``sql`` as the datadir's root (through the socket); tab-separated rows on stdout."""
        done = subprocess.run(
            [which("mariadb") or "mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot", "--batch"],
            input=sql.encode(),
            capture_output=True,
            timeout=60,
        )
        if check and done.returncode:
            raise RuntimeError(f"mariadb: {done.stderr.decode(errors='replace').strip()[:300]}")
        return done


class PhpSite:
    """MariaDB + ``php -S`` serving one app, all in one temporary directory; ``start()``, ``stop()``."""

    #: a short name (the temporary directory's prefix, the logs')
    name = "app"
    #: the page that answers 200 once the site is up
    ready_path = "/"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"bench-{self.name}-"))
        self.db = MariaDB(self.dir)
        self.socket = self.db.socket
        self.root = self.dir / "www"
        self.port = _free_port()
        #: The person's login, typed on the app's login page (never in an answer or a file).
        self.password = secrets.token_hex(8)
        self._php: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    # -- what a site says ------------------------------------------------------------------------

    def seed(self) -> None:
        """Create the site's databases and users (MariaDB is running)."""

    def web_root(self) -> None:
        """Fill :attr:`root` (it exists, empty)."""

    def after_start(self) -> None:
        """What the site needs once it answers (WordPress: its install)."""

    def php_ini(self) -> dict[str, str]:
        sessions = self.dir / "sessions"
        sessions.mkdir(exist_ok=True)
        return {
            "mysqli.default_socket": str(self.socket),
            "pdo_mysql.default_socket": str(self.socket),
            "session.save_path": str(sessions),
            "display_errors": "0",
            "log_errors": "1",
            "error_log": str(self.dir / "php-errors.log"),
            "memory_limit": "256M",
        }

    # -- the database ----------------------------------------------------------------------------

    def start_database(self) -> None:
        self.db.start()

    def stop_database(self) -> None:
        self.db.stop()

    def sql(self, sql: str) -> str:
        return self.db.sql(sql).stdout.decode(errors="replace")

    # -- the site --------------------------------------------------------------------------------

    def start(self) -> Self:
        try:
            self.db.install()
            self.db.start()
            self.seed()
            self.root.mkdir()
            self.web_root()
            command = [which("php") or "php"]
            for key, value in self.php_ini().items():
                command += ["-d", f"{key}={value}"]
            command += ["-S", f"127.0.0.1:{self.port}", "-t", str(self.root)]
            env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
            env["PHP_CLI_SERVER_WORKERS"] = "4"  # a page's files load side by side, as a real server serves them
            log = open(self.dir / "php.log", "ab")  # noqa: SIM115 (kept open for the process)
            self._php = subprocess.Popen(
                command, stdout=log, stderr=log, cwd=self.root, env=env, start_new_session=True
            )
            HARNESS_PIDS.add(self._php.pid)
            self._wait_http()
            self.after_start()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_http(self) -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 60
        url = self.base_url + self.ready_path.lstrip("/")
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                with opener.open(url, timeout=10) as resp:
                    if resp.status == 200:
                        return
            time.sleep(0.2)
        raise TimeoutError(f"{self.name} did not answer on {url} within 60 s")

    def stop(self) -> None:
        _stop(self._php)
        self.db.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
