"""The interact feature: input on the page: clicks, typing, forms, drag and upload, by snapshot uid or selector.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
