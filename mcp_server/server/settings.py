"""Server settings: environment variables first, command-line flags over them, validated once at start.

A bad value (``BROWSER_HEADLESS=maybe``, ``NETWORK_MAX_ENTRIES=-1``) stops the server with a
message naming the variable, instead of surfacing later as a confusing tool error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cdp_core.recorders.redact import DEFAULT_REDACT_HEADERS

if TYPE_CHECKING:
    from targets import TargetSettings

__all__ = ["Settings", "SettingsError", "ENV_NAMES"]

MiB = 1024 * 1024

#: attribute -> environment variable. The names are public (README, docs): never rename one.
ENV_NAMES: dict[str, str] = {
    "toolset": "BROWSER_TOOLSET",
    "headless": "BROWSER_HEADLESS",
    "default_target": "BROWSER_DEFAULT_TARGET",
    "cdp_url": "PLAYWRIGHT_CDP_URL",
    "allow_remote_cdp": "ALLOW_REMOTE_CDP",
    "allowed_urls": "ALLOWED_URLS",
    "allow_file_urls": "ALLOW_FILE_URLS",
    "allowed_file_roots": "ALLOWED_FILE_ROOTS",
    "upload_roots": "MCP_UPLOAD_ROOTS",
    "block_media": "BLOCK_MEDIA",
    "artifact_dir": "MCP_ARTIFACT_DIR",
    "network_max_entries": "NETWORK_MAX_ENTRIES",
    "network_buffer_bytes": "NETWORK_BUFFER_BYTES",
    "network_preview_bytes": "NETWORK_PREVIEW_BYTES",
    "network_redact_headers": "NETWORK_REDACT_HEADERS",
    "network_body_max_bytes": "NETWORK_BODY_MAX_BYTES",
    "download_max_bytes": "DOWNLOAD_MAX_BYTES",
    "network_eager_body_max_bytes": "NETWORK_EAGER_BODY_MAX_BYTES",
    "network_eager_body_budget": "NETWORK_EAGER_BODY_BUDGET",
    "console_max_entries": "CONSOLE_MAX_ENTRIES",
    "console_buffer_bytes": "CONSOLE_BUFFER_BYTES",
    "evaluate_enabled": "BROWSER_EVALUATE_ENABLED",
    "audit_log": "MCP_AUDIT_LOG",
    "max_answer_bytes": "MCP_MAX_ANSWER_BYTES",
    "chrome_path": "CHROME_PATH",
    "max_call_seconds": "MCP_MAX_CALL_SECONDS",
    "snapshot_engine": "MCP_SNAPSHOT_ENGINE",
    "http_token": "MCP_HTTP_TOKEN",
    "http_token_file": "MCP_HTTP_TOKEN_FILE",
}

_LIST_FIELDS = {"allowed_urls", "allowed_file_roots", "upload_roots", "network_redact_headers"}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class SettingsError(ValueError):
    """A setting has a bad value; the message names the variable and what is accepted."""


class Settings(BaseModel):
    """Everything configurable, with the documented defaults."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    toolset: Literal["condensed", "legacy", "all"] = "all"
    headless: bool = True
    default_target: Literal["launch", "cdp"] = "launch"
    cdp_url: str | None = None
    allow_remote_cdp: bool = False
    allowed_urls: list[str] = Field(default_factory=list)
    allow_file_urls: bool = False
    allowed_file_roots: list[str] = Field(default_factory=list)
    block_media: bool = False
    #: folders upload_file may take files from, besides <artifact_dir>/uploads/ (a page cannot
    #: talk the agent into uploading a file from anywhere else)
    upload_roots: list[str] = Field(default_factory=list)
    artifact_dir: Path = Path(".mcp-browser-artifacts")
    #: explicit cap on entries per page; None: only the byte budget (network_buffer_bytes) bounds the store
    network_max_entries: int | None = Field(None, ge=1)
    network_buffer_bytes: int = Field(32 * MiB, ge=64 * 1024)
    network_preview_bytes: int = Field(2048, ge=0)
    network_redact_headers: list[str] = Field(default_factory=lambda: list(DEFAULT_REDACT_HEADERS))
    network_body_max_bytes: int = Field(5 * MiB, ge=0)
    #: downloads larger than this are deleted instead of saved under downloads/ (0: no cap)
    download_max_bytes: int = Field(100 * MiB, ge=0)
    network_eager_body_max_bytes: int = Field(1 * MiB, ge=0)
    network_eager_body_budget: int = Field(64 * MiB, ge=0)
    console_max_entries: int | None = Field(None, ge=1)
    console_buffer_bytes: int = Field(16 * MiB, ge=64 * 1024)
    evaluate_enabled: bool = True
    audit_log: Path | None = None
    max_answer_bytes: int = Field(256 * 1024, ge=16 * 1024, le=64 * MiB)
    chrome_path: str | None = None
    #: every call answers within this many seconds (long waits answer "waiting" and are called
    #: again); under the 60 s request timeout of the TypeScript SDK's clients and Codex
    max_call_seconds: float = Field(50, ge=1, le=3600)
    #: who computes snapshot lines: the in-page collector, or Chrome's accessibility tree (slower on
    #: big pages; the reference the collector is tested against, and the way out if it misreads a page)
    snapshot_engine: Literal["page", "ax"] = "page"
    #: the HTTP transport's bearer secret, fixed (for a static client config); unset: see http_token_file
    http_token: str | None = Field(None, repr=False)
    #: where the HTTP transport's secret is read (or written once, 0600); unset: a new secret per
    #: start in <artifact_dir>/http-token (mcp_server/safety/http_auth.py)
    http_token_file: Path | None = None

    @field_validator("network_redact_headers")
    @classmethod
    def _lower_headers(cls, value: list[str]) -> list[str]:
        # Header names compare case-insensitively; store them lowered once.
        return [h.strip().lower() for h in value if h.strip()]

    @field_validator("allowed_urls")
    @classmethod
    def _parse_patterns(cls, value: list[str]) -> list[str]:
        # A pattern that cannot be parsed would otherwise surface at the first navigation.
        from targets.policies.policy import UrlPattern

        for raw in value:
            if raw.strip():
                UrlPattern.parse(raw)
        return value

    @field_validator("cdp_url")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("chrome_path")
    @classmethod
    def _executable_path(cls, value: str | None) -> str | None:
        # A Windows path pasted with its quotes ("C:\Program Files\...\chrome.exe") names the same file.
        from cdp_core.browser_paths import clean_executable_path

        return clean_executable_path(value or "") or None

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Build from ``env`` (default ``os.environ``) with ``overrides`` (CLI flags, None = unset) on top."""
        env = os.environ if env is None else env
        raw: dict[str, Any] = {}
        for attr, name in ENV_NAMES.items():
            value = env.get(name)
            if value is None or value.strip() == "":
                # Blank means unset: an empty NETWORK_REDACT_HEADERS must not switch redaction off.
                continue
            raw[attr] = _parse(cls, attr, name, value)
        raw.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**raw)
        except ValidationError as exc:
            raise SettingsError(_explain(exc)) from None

    def target_settings(self) -> TargetSettings:
        """The part the browser layer needs (``targets.TargetSettings``)."""
        from targets import TargetSettings

        return TargetSettings(
            headless=self.headless,
            default_target=self.default_target,
            cdp_url=self.cdp_url,
            allow_remote_cdp=self.allow_remote_cdp,
            allowed_urls=list(self.allowed_urls),
            allow_file_urls=self.allow_file_urls,
            allowed_file_roots=list(self.allowed_file_roots),
            block_media=self.block_media,
            chrome_path=self.chrome_path,
            downloads_dir=str(self.artifact_dir / "downloads"),
            download_max_bytes=self.download_max_bytes,
            private_paths=[str(p) for p in (self.artifact_dir, self.audit_log, self.http_token_file) if p is not None],
        )


def _parse(cls: type[Settings], attr: str, env_name: str, value: str) -> Any:
    """Turn one environment string into the field's type, or explain what is accepted."""
    annotation = cls.model_fields[attr].annotation
    if attr in _LIST_FIELDS:
        return [part.strip() for part in value.split(",") if part.strip()]
    if annotation is bool:
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise SettingsError(f"{env_name}={value!r} is not a boolean; use true or false")
    return value.strip()


def _explain(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        attr = str(err["loc"][0]) if err["loc"] else "?"
        name = ENV_NAMES.get(attr, attr)
        lines.append(f"{name} (--{attr.replace('_', '-')}): {err['msg']} (got {err.get('input')!r})")
    return "invalid settings: " + "; ".join(lines)
