"""What several features do on the selected tab: run a script, load, take a picture.

``js`` runs page scripts bounded in time and around the user's dialogs, and lists frames;
``loading`` waits for a load within the call bound; ``screenshots`` captures a PNG;
``snapshots`` takes an accessibility snapshot and keeps its uids; ``hidden`` is the note every
answer with timings of a background tab says first. The actions that use them
live in ``features``.

May import ``server``, ``evidence``, ``input``, ``answers`` and ``safety``.
"""
