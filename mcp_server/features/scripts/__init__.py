"""The scripts feature: the page's DOM as HTML (get_dom) and the agent's JavaScript (evaluate_js, off unless enabled).

Its actions, its two renderings and the facts only it needs live in this folder; it imports
no other feature (what two share lives in ``page``, ``evidence`` or ``answers``).
"""
