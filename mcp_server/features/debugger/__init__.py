"""The debugger feature: debug points that never freeze the page: logpoints, snapshots, exceptions, sources.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
