"""What the server offers a client besides tool answers: resource links to the files answers wrote,
icons, and asking the person when an answer depends on them (elicitation).

Each is optional for a client; the tools' answers say the same without them.
"""
