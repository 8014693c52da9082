"""The trace feature: performance traces: start, stop, and a summary of long tasks, paints and requests.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
