"""The navigation feature: moving a tab: navigate, back, forward, reload, and waiting for what the page shows.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
