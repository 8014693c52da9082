"""A fill runs the field's change handler, as a user leaving the field does, when the page has one;
a value a date or number field cannot hold is refused with the format the field takes.

A customer number's ``onchange`` looks up the name, a delegated jQuery-style handler on the
document recomputes a total: before, a fill typed the value and stayed in the field, so neither
ran until the agent's next action, whose answer then carried the lookup. An autocomplete, which
listens to typing only, keeps the focus (leaving would close its suggestions). In a hidden tab
of the user's Chrome.
"""

from __future__ import annotations

from pathlib import Path

from background_tabs import agent_in_hidden_tab, interact, interact_err, uid_of
from httpserver import Reply
from lean_util import records

ORDER = """<!doctype html><title>Order entry</title>
<form method=post action="/fill/save">
<label>Customer no <input id=custno name=custno onchange="changes++; fetch('/fill/customer?no=' + this.value)
  .then(r => r.json()).then(d => { custname.value = d.name })"></label>
<label>Name <input id=custname name=custname></label>
<label>Qty <input id=qty name=qty></label>
<label>City <input id=city name=city autocomplete=off></label>
<label>Total <input id=total name=total readonly></label>
<button>Save</button>
</form>
<script>
var changes = 0, typed = 0;
document.addEventListener('change', e => {
  if (e.target.id === 'qty') total.value = String(Number(e.target.value) * 12.5);
});
city.addEventListener('input', () => { typed++ });
</script>"""


async def test_a_fill_runs_the_change_handlers_the_page_hangs_on_the_field(users_chrome, http_server, tmp_path: Path):
    http_server.route("/fill/order.html", Reply(200, ORDER))
    http_server.route("/fill/customer", Reply(200, '{"name": "ACME Ltd"}', content_type="application/json"))
    http_server.route("/fill/save", Reply(200, "<title>Saved</title>"))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/fill/order.html", "Order entry") as agent:
        looked_up = await interact(agent, "fill", selector="#custno", value="4711")
        (lookup,) = records(looked_up["followed"], "requests")
        assert lookup["url"] == "/fill/customer?no=4711" and lookup["status"] == 200, looked_up
        assert await agent.js("custname.value") == "ACME Ltd"

        snap = await agent.s("snapshot", interactive_only=True)
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Qty"), value="4")  # a delegated handler
        assert await agent.js("total.value") == "50"
        await interact(agent, "fill_form", fields=[{"uid": uid_of(snap, "textbox", "Customer no"), "value": "4712"}])
        assert await agent.js("changes") == 2  # once per fill that changed the value

        # A field watched only for typing (an autocomplete) keeps the focus and its suggestions.
        await interact(agent, "fill", selector="#city", value="Mil")
        assert await agent.js("[document.activeElement.id, typed]") == ["city", 1]

        # The caret is back in a field that was left: Enter still submits its form, and the field
        # does not fire its change a second time on the way out.
        await interact(agent, "fill", selector="#custno", value="4713")
        assert await agent.js("document.activeElement.id") == "custno"
        sent = await interact(agent, "press_key", key="Enter")
        assert sent["followed"]["navigation"]["to"].endswith("/fill/save"), sent
        posts = [r for r in records(await agent.s("network_list", method="POST"))]
        assert len(posts) == 1 and "custno=4713" in posts[0]["postDataPreview"], posts
        lookups = records(await agent.s("network_list", url_contains="/fill/customer"))
        assert [r["url"] for r in lookups] == [f"/fill/customer?no={n}" for n in (4711, 4712, 4713)], lookups


DATES = """<!doctype html><title>Delivery</title>
<label>Delivery date <input type=date id=day></label><label>Qty <input type=number id=qty></label>"""


async def test_a_value_a_date_or_number_field_cannot_hold_is_refused_with_the_format_it_takes(
    users_chrome, http_server, tmp_path: Path
):
    """The user's locale shows 15/03/2024; the field holds 2024-03-15. The refusal says which."""
    http_server.route("/fill/dates.html", Reply(200, DATES))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/fill/dates.html", "Delivery") as agent:
        day = uid_of(await agent.s("snapshot", interactive_only=True), "date", "Delivery date")
        refused = await interact_err(agent, "fill_uid", "INVALID_ARGUMENT", uid=day, value="15/03/2024")
        assert "YYYY-MM-DD" in refused["hint"], refused
        await interact(agent, "fill_uid", uid=day, value="2024-03-15")
        assert await agent.js("day.value") == "2024-03-15"
        refused = await interact_err(agent, "fill", "INVALID_ARGUMENT", selector="#qty", value="1.250,50")
        assert "1250.50" in refused["hint"], refused
        assert await agent.js("qty.value") == ""  # nothing half-typed is left behind


SUGGEST = """<!doctype html><title>Order entry</title>
<label>Customer <input id=cust autocomplete=off></label><input type=hidden id=custid name=custid>
<ul id=suggestions role=listbox aria-label=Suggestions></ul>
<script>
let debounce;
cust.addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => fetch('/fill/suggest?q=' + encodeURIComponent(cust.value)).then(r => r.json())
    .then(list => {
      suggestions.innerHTML = list.map(c => `<li role=option data-id=${c.id}>${c.name}</li>`).join('');
    }), 150);
});
suggestions.addEventListener('click', e => { cust.value = e.target.textContent; custid.value = e.target.dataset.id });
</script>"""


async def test_a_debounced_autocomplete_in_a_background_tab_answers_within_the_fill(
    users_chrome, http_server, tmp_path: Path
):
    """A hidden tab runs the page's timers once a second: the 150 ms debounce fires up to a second late."""
    http_server.route("/fill/suggest.html", Reply(200, SUGGEST))
    http_server.route(
        "/fill/suggest",
        Reply(200, '[{"id": 7, "name": "ACME Ltd"}, {"id": 9, "name": "ACME Corp"}]', "application/json"),
    )
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/fill/suggest.html", "Order entry") as agent:
        for value in ("ACM", "ACME"):  # twice: the second lands anywhere in the page's one-second rhythm
            typed = await interact(agent, "fill", selector="#cust", value=value)
            (asked,) = records(typed["followed"], "requests")
            assert asked["url"] == f"/fill/suggest?q={value}", typed
        assert await agent.js("document.activeElement.id") == "cust"  # the suggestions stay open
        found = await agent.s("snapshot", find="ACME Corp")
        (pick,) = [line for line in records(found, "lines") if line["role"] == "option"]
        await interact(agent, "click_uid", uid=pick["uid"])
        assert await agent.js("[cust.value, custid.value]") == ["ACME Corp", "9"]
