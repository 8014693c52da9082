"""The memory feature: heap snapshots saved to a file, with a summary of what holds the memory.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
