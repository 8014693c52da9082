"""Real applications from Debian packages, started on loopback for tests: MariaDB, phpMyAdmin, Adminer, WordPress.

Our own test pages fail the ways we detect, because we wrote them; these apps fail the ways their
authors chose (200 JSON with ``success:false``, HTML error blocks, redirects to a login). Each
app runs from its package's files with PHP's built-in server on ``127.0.0.1`` and a free port;
MariaDB runs on a datadir of its own with ``--skip-networking`` (clients use its socket), so
nothing listens beyond loopback and nothing touches the system's own service.

The packages keep their configuration under ``/etc``; an app reads one extra file of ours there
(phpMyAdmin's ``conf.d``, WordPress's ``config-<name>.php``), guarded by our port or name so a
second run on the same machine is not affected, and removed by :meth:`RealApps.stop`.
A missing package makes :func:`missing` name it, so a test skips that app with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

#: Debian packages each app needs (``.ci/run`` installs them all).
PACKAGES: dict[str, tuple[str, ...]] = {
    "mariadb": ("mariadb-server",),
    "phpmyadmin": ("phpmyadmin", "php-cli", "php-mysql", "php-mbstring", "php-xml"),
    "adminer": ("adminer", "php-cli", "php-mysql"),
    "wordpress": ("wordpress", "php-cli", "php-mysql", "php-xml"),
}
#: A file each app serves from (present when the package is unpacked, whatever dpkg says).
ROOTS: dict[str, Path] = {
    "phpmyadmin": Path("/usr/share/phpmyadmin"),
    "adminer": Path("/usr/share/adminer"),
    "wordpress": Path("/usr/share/wordpress"),
}
PMA_CONF_DIR = Path("/etc/phpmyadmin/conf.d")
WP_CONF_DIR = Path("/etc/wordpress")

#: The person's database account (phpMyAdmin and Adminer refuse an account without a password).
DB_USER = "operatore"
DB_PASSWORD = "Pw-Operatore-7731"
#: The person's WordPress account.
WP_USER = "redazione"
WP_PASSWORD = "Wp-Redazione-5520"

SEED_SQL = f"""
CREATE DATABASE crm CHARACTER SET utf8mb4;
CREATE TABLE crm.clienti (
  id INT AUTO_INCREMENT PRIMARY KEY,
  codice VARCHAR(20) NOT NULL,
  ragione_sociale VARCHAR(100) NOT NULL,
  citta VARCHAR(60) NULL,
  UNIQUE KEY uk_codice (codice)
) ENGINE=InnoDB;
INSERT INTO crm.clienti (codice, ragione_sociale, citta) VALUES
  ('CLI-00041', 'Rossi Srl', 'Torino'),
  ('CLI-00042', 'Bianchi SpA', 'Milano'),
  ('CLI-00043', 'Verdi & Figli', 'Bologna');
CREATE DATABASE wordpress CHARACTER SET utf8mb4;
CREATE USER '{DB_USER}'@'localhost' IDENTIFIED BY '{DB_PASSWORD}';
GRANT ALL PRIVILEGES ON *.* TO '{DB_USER}'@'localhost';
FLUSH PRIVILEGES;
"""


def package_installed(name: str) -> bool:
    """Whether dpkg knows ``name`` as installed (False off Debian)."""
    if shutil.which("dpkg-query") is None:
        return False
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True, check=False, timeout=30
    )
    return done.returncode == 0 and done.stdout.strip().endswith("installed")


def missing(app: str) -> str | None:
    """Why ``app`` cannot run here (the missing packages, or an unwritable /etc), or None when it can."""
    absent = [p for p in PACKAGES[app] if not package_installed(p)]
    if absent:
        return f"{app}: Debian packages not installed: {' '.join(absent)} (.ci/run installs them)"
    if app == "mariadb":
        for exe in ("mariadbd", "mariadb-install-db", "mariadb"):
            if shutil.which(exe) is None and not Path("/usr/sbin", exe).exists():
                return f"mariadb: {exe} not found"
        return None
    if not ROOTS[app].is_dir():
        return f"{app}: {ROOTS[app]} is missing"
    conf = {"phpmyadmin": PMA_CONF_DIR, "wordpress": WP_CONF_DIR}.get(app)
    if conf is not None and not os.access(conf, os.W_OK):
        return f"{app}: cannot write its test configuration into {conf} (run as root)"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: object, what: str, timeout: float, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if callable(check) and check():
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready within {timeout:g} s: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 20.0) -> None:
    """Stop one process we started (its own session), politely first."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _exe(name: str) -> str:
    found = shutil.which(name) or (f"/usr/sbin/{name}" if Path("/usr/sbin", name).exists() else None)
    if found is None:
        raise RuntimeError(f"{name} not found")
    return found


class MariaDB:
    """A MariaDB server on a datadir of its own, socket only (``--skip-networking``)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.datadir = workdir / "db"
        self.socket = workdir / "mysql.sock"
        self.log = workdir / "mariadb.err"
        self.proc: subprocess.Popen[bytes] | None = None
        # The datadir's root account logs in through the socket as the system user who ran install-db.
        self.admin = "root" if os.geteuid() == 0 else os.environ.get("USER", "root")

    def install(self) -> None:
        cmd = [
            _exe("mariadb-install-db"),
            f"--datadir={self.datadir}",
            "--skip-test-db",
            "--auth-root-authentication-method=socket",
        ]
        if os.geteuid() == 0:
            cmd.append("--user=root")
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")

    def start(self, timeout: float = 90.0) -> None:
        cmd = [
            _exe("mariadbd"),
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--socket={self.socket}",
            "--skip-networking",
            f"--pid-file={self.workdir / 'mariadb.pid'}",
            f"--log-error={self.log}",
            "--innodb-buffer-pool-size=32M",
            "--performance-schema=OFF",
        ]
        if os.geteuid() == 0:
            cmd.append("--user=root")
        self.log.touch()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        _wait(self._answers, "mariadbd", timeout, self.proc, self.log)

    def _answers(self) -> bool:
        if not self.socket.exists():
            return False
        done = subprocess.run(
            [_exe("mariadb"), f"--socket={self.socket}", "-u", self.admin, "-e", "SELECT 1"],
            capture_output=True,
            check=False,
            timeout=30,
        )
        return done.returncode == 0

    def sql(self, statements: str, database: str = "") -> str:
        """Run SQL as the datadir's admin; the output in tab-separated rows (``--batch``)."""
        cmd = [_exe("mariadb"), f"--socket={self.socket}", "-u", self.admin, "--batch", "--skip-column-names"]
        if database:
            cmd.append(database)
        done = subprocess.run(cmd, input=statements, capture_output=True, text=True, check=False, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"SQL failed: {done.stderr.strip()}")
        return done.stdout

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class PhpServer:
    """``php -S 127.0.0.1:PORT -t DOCROOT`` with a few workers, so a page's files load in parallel."""

    def __init__(self, name: str, docroot: Path, workdir: Path, ini: dict[str, str]) -> None:
        self.name = name
        self.docroot = docroot
        self.port = free_port()
        self.log = workdir / f"{name}.log"
        self.ini = ini
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        cmd = [_exe("php")]
        for key, value in self.ini.items():
            cmd += ["-d", f"{key}={value}"]
        cmd += ["-S", f"127.0.0.1:{self.port}", "-t", str(self.docroot)]
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env["PHP_CLI_SERVER_WORKERS"] = "4"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        _wait(self._listening, f"php -S for {self.name}", timeout, self.proc, self.log)

    def _listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None


@dataclass
class RealApps:
    """The apps of one test session and everything they left on disk, undone by :meth:`stop`."""

    workdir: Path
    db: MariaDB | None = None
    servers: dict[str, PhpServer] = field(default_factory=dict)
    #: why an app is not running (its skip reason)
    unavailable: dict[str, str] = field(default_factory=dict)
    written: list[Path] = field(default_factory=list)

    @classmethod
    def start(cls, apps: tuple[str, ...] = ("phpmyadmin", "adminer", "wordpress")) -> RealApps:
        workdir = Path(tempfile.mkdtemp(prefix="realapps-", dir="/tmp"))
        self = cls(workdir)
        try:
            reason = missing("mariadb")
            if reason is None:
                self.db = MariaDB(workdir)
                self.db.install()
                self.db.start()
                self.db.sql(SEED_SQL)
            for app in apps:
                why = reason or missing(app)
                if why is not None:
                    self.unavailable[app] = why
                    continue
                getattr(self, f"_start_{app}")()
        except BaseException:
            self.stop()
            raise
        return self

    def url(self, app: str, path: str = "/") -> str:
        return self.servers[app].origin + path

    def _php(self, app: str, docroot: Path, ini: dict[str, str] | None = None) -> PhpServer:
        assert self.db is not None
        sessions = self.workdir / f"{app}-sessions"
        sessions.mkdir()
        base = {
            "mysqli.default_socket": str(self.db.socket),
            "pdo_mysql.default_socket": str(self.db.socket),
            "session.save_path": str(sessions),
            "display_errors": "0",
            "log_errors": "1",
            "error_log": str(self.workdir / f"{app}-php-errors.log"),
            "memory_limit": "256M",
        }
        server = PhpServer(app, docroot, self.workdir, base | (ini or {}))
        self.servers[app] = server
        return server

    def _write(self, path: Path, text: str) -> None:
        path.write_text(text)
        self.written.append(path)

    def _start_phpmyadmin(self) -> None:
        assert self.db is not None
        server = self._php("phpmyadmin", ROOTS["phpmyadmin"])
        tmp = self.workdir / "pma-tmp"
        tmp.mkdir()
        # Guarded by our port: other php -S instances on this machine read the same conf.d.
        # Server 1 is the package's dbconfig server; ours replaces it (socket, cookie login, no pmadb).
        self._write(
            PMA_CONF_DIR / f"realapps-{server.port}.php",
            f"""<?php
if (($_SERVER['SERVER_PORT'] ?? '') === '{server.port}') {{
    $cfg['Servers'][1] = [
        'auth_type' => 'cookie',
        'host' => 'localhost',
        'connect_type' => 'socket',
        'socket' => '{self.db.socket}',
        'AllowNoPassword' => false,
    ];
    $cfg['blowfish_secret'] = '{"realapps-blowfish-" + str(server.port).rjust(14, "0")}';
    $cfg['TempDir'] = '{tmp}';
    $cfg['VersionCheck'] = false;
    $cfg['SendErrorReports'] = 'never';
    $cfg['ShowGitRevision'] = false;
}}
""",
        )
        server.start()

    def _start_adminer(self) -> None:
        self._php("adminer", ROOTS["adminer"]).start()

    def _start_wordpress(self) -> None:
        assert self.db is not None
        content = self.workdir / "wp-content"
        for sub in ("plugins", "themes", "uploads", "mu-plugins"):
            (content / sub).mkdir(parents=True)
        server = self._php("wordpress", ROOTS["wordpress"])
        name = f"realapps-{server.port}"
        prepend = self.workdir / "wp-prepend.php"
        # php -S passes no environment into $_SERVER; Debian's wp-config.php picks our file by this name.
        prepend.write_text(f"<?php $_SERVER['WORDPRESS_CONFIG'] = '{name}';\n")
        server.ini["auto_prepend_file"] = str(prepend)
        salts = "".join(
            f"define('{k}', '{k.lower()}-{server.port}-realapps-test-salt');\n"
            for k in (
                "AUTH_KEY",
                "SECURE_AUTH_KEY",
                "LOGGED_IN_KEY",
                "NONCE_KEY",
                "AUTH_SALT",
                "SECURE_AUTH_SALT",
                "LOGGED_IN_SALT",
                "NONCE_SALT",
            )
        )
        self._write(
            WP_CONF_DIR / f"config-{name}.php",
            f"""<?php
define('DB_NAME', 'wordpress');
define('DB_USER', '{DB_USER}');
define('DB_PASSWORD', '{DB_PASSWORD}');
define('DB_HOST', 'localhost:{self.db.socket}');
define('WP_HOME', '{server.origin}');
define('WP_SITEURL', '{server.origin}');
define('WP_CONTENT_DIR', '{content}');
define('WP_CONTENT_URL', '{server.origin}/wp-content');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);
{salts}""",
        )
        server.start()
        self._install_wordpress(server)

    def _install_wordpress(self, server: PhpServer) -> None:
        """The famous five-minute install, by HTTP as a person does it, then no avatars (no external images)."""
        with httpx.Client(base_url=server.origin, timeout=120, trust_env=False) as http:
            form = http.get("/wp-admin/install.php?step=1")
            if "already installed" not in form.text:
                done = http.post(
                    "/wp-admin/install.php?step=2",
                    data={
                        "weblog_title": "Redazione",
                        "user_name": WP_USER,
                        "admin_password": WP_PASSWORD,
                        "admin_password2": WP_PASSWORD,
                        "pw_weak": "on",
                        "admin_email": "redazione@example.invalid",
                        "blog_public": "0",
                        "language": "",
                        "Submit": "Install WordPress",
                    },
                )
                if "Success!" not in done.text:
                    text = re.sub(r"<[^>]+>", " ", done.text)
                    raise RuntimeError(f"WordPress install failed ({done.status_code}): {' '.join(text.split())[:800]}")
        assert self.db is not None
        self.db.sql("UPDATE wp_options SET option_value='0' WHERE option_name='show_avatars';", "wordpress")

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()
        if self.db is not None:
            self.db.stop()
        for path in self.written:
            path.unlink(missing_ok=True)
        self.written.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> RealApps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
