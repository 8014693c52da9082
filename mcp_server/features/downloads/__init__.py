"""The downloads feature: reading a file the page downloaded, from the downloads folder only.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
