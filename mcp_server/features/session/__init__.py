"""The session feature: attaching to the user's Chrome or the internal browser, detaching, the
browser's status and the capabilities.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
