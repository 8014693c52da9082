"""The snapshot feature: the accessibility snapshot with uids that stay stable across snapshots.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
