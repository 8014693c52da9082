"""Where an answer is shaped: rows, lines and the lean rules both renderings follow.

``lean`` holds the shape rules of every ``structuredContent`` (rows under ``columns``, no
empty keys); one ``*_render`` module per kind of answer (console, network, pages, snapshot,
bundle, listings) builds its text and its data together, so they say the same; ``followup_text``
and ``trace_text`` are the text of a follow-up and of a trace summary.

May import ``core`` and ``guards``; it reads data, it never talks to the browser.
"""
