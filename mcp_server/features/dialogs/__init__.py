"""The dialogs feature: the page's JavaScript dialogs: accepting or dismissing the one that is open.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
