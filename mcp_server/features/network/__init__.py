"""The network feature: every request: listed, read with payload and headers, bodies saved, HAR export.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
