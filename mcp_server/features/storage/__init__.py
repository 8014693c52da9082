"""The storage feature: cookies and web storage, and a session's state exported and loaded.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
