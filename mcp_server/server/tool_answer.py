"""A tool's answer in our own light form: content blocks, ``structured_content``, ``is_error``.

Why not the SDK's ``CallToolResult``: a pydantic model validates and copies every value it holds,
and a list answer holds thousands of rows that the envelope has already made plain JSON. Every
answer is built, capped and written in this form; :meth:`ToolAnswer.wire_form` is the dict the SDK
puts on the wire for the same ``CallToolResult`` (tests/mcp_server/answers/test_lean_pass.py compares them), and
:meth:`ToolAnswer.to_sdk` makes the SDK's model where one is promised
(:meth:`BrowserMCP.call_tool <mcp_server.server.app.BrowserMCP.call_tool>`).

The attribute names are the SDK's (``content[i].text``, ``.mime_type``, ``structured_content``,
``is_error``), so code that reads an answer reads either form.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_server.server.mcp_features.resource_links import LinkBlock

if TYPE_CHECKING:
    import mcp_types

__all__ = ["TextBlock", "ImageBlock", "LinkBlock", "Block", "ToolAnswer"]


@dataclass(slots=True)
class TextBlock:
    """A ``text`` content block (the SDK's ``TextContent``, without annotations: ours have none)."""

    text: str
    type: Literal["text"] = "text"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):  # the SDK's model refuses it too; a handler's bug, not the wire's
            raise TypeError(f"a text block holds a str, not {type(self.text).__name__}")

    def wire(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(slots=True)
class ImageBlock:
    """An inline ``image`` content block: base64 ``data`` and its ``mime_type`` (the SDK's ``ImageContent``)."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"

    def __post_init__(self) -> None:
        if not isinstance(self.data, str) or not isinstance(self.mime_type, str):
            raise TypeError("an image block holds base64 text and a mime type (both str)")

    def wire(self) -> dict[str, Any]:
        return {"type": "image", "data": self.data, "mimeType": self.mime_type}


Block = TextBlock | ImageBlock | LinkBlock


@dataclass(slots=True)
class ToolAnswer:
    """One ``tools/call`` answer; ``structured_content`` is plain JSON already (the envelope makes it so)."""

    content: list[Block] = field(default_factory=list)
    structured_content: dict[str, Any] | None = None
    is_error: bool = False

    def wire_form(self) -> dict[str, Any]:
        """What ``CallToolResult.model_dump(by_alias=True, mode="json", exclude_none=True)`` gives, keys in its order.

        ``structuredContent`` goes in as it is (no walk over its values: the 2000 rows of a
        console list), last, as :func:`mcp_server.server.envelope.wire_form` always put it.
        """
        wire: dict[str, Any] = {
            "content": [block.wire() for block in self.content],
            "isError": self.is_error,
            "resultType": "complete",
        }
        if self.structured_content is not None:
            wire["structuredContent"] = self.structured_content
        return wire

    def to_sdk(self) -> mcp_types.CallToolResult:
        """The SDK's ``CallToolResult`` of this answer (imports ``mcp_types``: only where one is promised)."""
        import mcp_types as types

        content: list[types.ContentBlock] = []
        for block in self.content:
            if isinstance(block, TextBlock):
                content.append(types.TextContent(type="text", text=block.text))
            elif isinstance(block, ImageBlock):
                content.append(types.ImageContent(type="image", data=block.data, mime_type=block.mime_type))
            else:
                content.append(
                    types.ResourceLink(
                        type="resource_link", uri=block.uri, name=block.name, mime_type=block.mime_type, size=block.size
                    )
                )
        return types.CallToolResult(content=content, structured_content=self.structured_content, is_error=self.is_error)

    def replace(self, **changes: Any) -> ToolAnswer:
        """A copy with ``changes`` (``content``, ``structured_content``, ``is_error``): the SDK's ``model_copy``."""
        return dataclasses.replace(self, **changes)
