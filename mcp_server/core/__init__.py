"""What every action stands on: the action table, the context a handler gets, locks, progress.

``registry`` declares actions (``@action``) and their results, ``answers`` the models of what
they answer (the outputSchema's source), ``context`` what a handler receives, ``locking`` who
may run at the same time, ``progress`` the heartbeat of one call, ``settings`` the validated
configuration, ``version`` the server's name and version.

May import ``guards`` only (and ``targets``/``cdp_core`` below the package).
"""
