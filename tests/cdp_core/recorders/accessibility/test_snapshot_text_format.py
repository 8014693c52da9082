"""Pure logic of snapshot text: rendering, budgets that keep errors, diffs by uid."""

from cdp_core.recorders.accessibility.format import Snapshot, SnapshotLine, apply_budget, diff_snapshots, render_line


def test_render_line_quotes_and_bounds():
    line = SnapshotLine(role="textbox", name='Say "hi"', uid=3, value="x" * 500, states=["required"], depth=1)
    text = render_line(line)
    assert text.startswith('  [uid=3] textbox "Say \\"hi\\"" value="xxx')
    assert text.endswith('…" required') and len(text) < 200


def test_budget_keeps_alerts_past_the_cut():
    lines = [SnapshotLine(role="text", name=f"riga {i}") for i in range(50)]
    lines.append(SnapshotLine(role="alert", name="Errore grave", uid=99))
    kept, omitted, cut_by = apply_budget(lines, max_lines=10, max_chars=None)
    assert len(kept) == 11 and kept[-1].name == "Errore grave"
    assert omitted == 40 and cut_by == "max_lines=10"
    kept, omitted, cut_by = apply_budget(lines, max_lines=None, max_chars=100)
    assert sum(len(render_line(line)) + 1 for line in kept[:-1]) <= 100 and cut_by == "max_chars=100"


def test_diff_matches_uids_and_counts_text():
    old = Snapshot("T", "u", [SnapshotLine("textbox", "A", 1, value="1"), SnapshotLine("text", "ciao")])
    new = Snapshot(
        "T",
        "u",
        [SnapshotLine("textbox", "A", 1, value="2"), SnapshotLine("button", "B", 2), SnapshotLine("text", "ciao")],
    )
    diff = diff_snapshots(old, new)
    assert diff["changed"] == [{"before": '[uid=1] textbox "A" value="1"', "after": '[uid=1] textbox "A" value="2"'}]
    assert diff["added"] == ['[uid=2] button "B"'] and diff["removed"] == []
