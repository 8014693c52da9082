"""WordPress (Debian's package) on MariaDB, run privately by ``bench/realapps.py``, installed
non-interactively.

Debian's ``wp-config.php`` reads ``/etc/wordpress/config-<host>.php``; this site never does. Its
web root is made of symlinks into ``/usr/share/wordpress`` plus a ``wp-config.php`` of its own,
and PHP's ``auto_prepend_file`` defines ``ABSPATH`` as that root first: ``wp-load.php`` (its
``__DIR__`` resolved to the package's directory) then loads our config, not Debian's. Content
(uploads, no themes or plugins) lives in the same temporary directory.

WordPress fails in its own shapes: admin-ajax answers ``-1``/``0`` or an XML ``wp_ajax``
response with a ``<wp_error>``, REST answers ``{"code":"rest_…","message":…}``. The tag
:data:`TAG` exists: adding it again on Posts > Tags is the duplicate task, shown on the page as
``A term with the name provided already exists in this taxonomy.``
"""

from __future__ import annotations

import secrets
import urllib.parse
import urllib.request
from pathlib import Path

from . import realapps

__all__ = ["WordPress", "missing", "USER", "TAG", "TAG_EXISTS"]

WP_DIR = Path("/usr/share/wordpress")
USER = "redazione"
#: A tag the site already has
TAG = "fattura"
#: What WordPress answers (and shows) when a term of that name exists
TAG_EXISTS = "A term with the name provided already exists in this taxonomy."
_DB = "wordpress"
_DB_USER = "wp"

_SALTS = (
    "AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY",
    "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT",
)  # fmt: skip


def missing() -> str | None:
    """Why WordPress cannot run here (a package not installed), or None."""
    return realapps.missing(WP_DIR / "wp-login.php", "wordpress", ("mysqli_connect", "simplexml_load_string"))


class WordPress(realapps.PhpSite):
    """MariaDB + WordPress in one temporary directory; the person logs in as :data:`USER`."""

    name = "wordpress"
    ready_path = "/wp-login.php"

    def __init__(self) -> None:
        super().__init__()
        #: the database account of WordPress itself (not the person's)
        self._db_password = secrets.token_hex(12)

    def url(self, path: str = "") -> str:
        return self.base_url + path.lstrip("/")

    def seed(self) -> None:
        self.db.sql(
            f"CREATE DATABASE {_DB} CHARACTER SET utf8mb4;\n"
            f"CREATE USER '{_DB_USER}'@'localhost' IDENTIFIED BY '{self._db_password}';\n"
            f"GRANT ALL ON {_DB}.* TO '{_DB_USER}'@'localhost';\n"
        )

    def php_ini(self) -> dict[str, str]:
        return super().php_ini() | {"auto_prepend_file": str(self.dir / "abspath.php")}

    def web_root(self) -> None:
        for entry in WP_DIR.iterdir():
            if entry.name not in ("wp-config.php", "wp-content"):
                (self.root / entry.name).symlink_to(entry)
        content = self.root / "wp-content"
        for sub in ("plugins", "themes", "uploads"):
            (content / sub).mkdir(parents=True)
        (self.dir / "abspath.php").write_text(f"<?php define('ABSPATH', {str(self.root) + '/'!r});\n")
        origin = self.base_url.rstrip("/")
        salts = "".join(f"define('{k}', {secrets.token_hex(24)!r});\n" for k in _SALTS)
        (self.root / "wp-config.php").write_text(
            "<?php\n"
            f"define('DB_NAME', '{_DB}');\n"
            f"define('DB_USER', '{_DB_USER}');\n"
            f"define('DB_PASSWORD', '{self._db_password}');\n"
            f"define('DB_HOST', 'localhost:{self.socket}');\n"
            "define('DB_CHARSET', 'utf8mb4');\n"
            f"define('WP_HOME', '{origin}');\n"
            f"define('WP_SITEURL', '{origin}');\n"
            f"define('WP_CONTENT_DIR', {str(content)!r});\n"
            f"define('WP_CONTENT_URL', '{origin}/wp-content');\n"
            "define('WP_HTTP_BLOCK_EXTERNAL', true);\n"  # no calls home from a test machine
            "define('AUTOMATIC_UPDATER_DISABLED', true);\n"
            "define('DISABLE_WP_CRON', true);\n"
            "define('WP_DEBUG', false);\n"
            f"{salts}"
            "$table_prefix = 'wp_';\n"
            "require_once ABSPATH . 'wp-settings.php';\n"
        )

    def after_start(self) -> None:
        """The five-minute install by HTTP, as a person posts it; then no avatars (external
        images) and the tag :data:`TAG`."""
        form = urllib.parse.urlencode(
            {
                "weblog_title": "Redazione",
                "user_name": USER,
                "admin_password": self.password,
                "admin_password2": self.password,
                "pw_weak": "on",
                "admin_email": "redazione@example.invalid",
                "blog_public": "0",
                "language": "",
                "Submit": "Install WordPress",
            }
        ).encode()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(self.url("wp-admin/install.php?step=2"), data=form, timeout=180) as resp:
            page = resp.read().decode(errors="replace")
        if "Success!" not in page:
            raise RuntimeError(f"WordPress install did not succeed: {page[-600:]}")
        self.db.sql(
            f"UPDATE {_DB}.wp_options SET option_value='0' WHERE option_name='show_avatars';\n"
            f"INSERT INTO {_DB}.wp_terms (name, slug, term_group) VALUES ('{TAG}', '{TAG}', 0);\n"
            f"INSERT INTO {_DB}.wp_term_taxonomy (term_id, taxonomy, description, parent, count)"
            " VALUES (LAST_INSERT_ID(), 'post_tag', '', 0, 0);\n"
        )
