"""The bundle feature: debug_bundle: console, network, server errors, dialogs and a snapshot in one answer.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
