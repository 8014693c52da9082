"""The console feature: the console timeline: console.*, uncaught exceptions and browser messages, listed and read.

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
