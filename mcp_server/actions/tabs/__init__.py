"""Actions on browsers and tabs: attach and detach, capabilities and status, list and select pages,
navigation and loading, dialogs, emulation.

May import ``facts``, ``input``, ``render``, ``core``, ``guards`` and the sibling action rooms.
"""
