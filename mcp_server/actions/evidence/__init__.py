"""Actions over what was captured since attach: console and network lists and entries, bodies and
files, the debug bundle, traces, memory, storage.

May import ``facts``, ``input``, ``render``, ``core``, ``guards`` and the sibling action rooms.
"""
