"""The flat legacy tools (``browser_navigate``, ``browser_click``...) kept for older clients: the
same handlers as the condensed actions where they can be, their own where the legacy contract
differs.

May import the other action rooms, ``facts``, ``input``, ``render``, ``core`` and ``guards``.
"""
