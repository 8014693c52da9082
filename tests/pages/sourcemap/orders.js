// orders.js: the order form's script as its authors wrote it. orders.min.js and its map
// are this file minified by terser (tests/pages/sourcemap/README.md says how); the tests
// check that stacks in the minified code are mapped back to these names and lines.

function formatAmount(value) {
  if (typeof value !== "number") {
    throw new TypeError("amount is not a number: " + value);
  }
  return value.toFixed(2);
}

function validateOrder(order) {
  if (!order.customer) {
    console.error("order without customer", order.id);
  }
  return formatAmount(order.amount);
}

function sendOrder(order) {
  return fetch("/sm/api/orders?id=" + order.id, { method: "POST", body: JSON.stringify(order) });
}

function pauseForDebugger() {
  window.ticks = (window.ticks || 0) + 1;
  debugger;
}

function submitOrder() {
  var order = { id: 7, customer: "", amount: "12,50" };
  pauseForDebugger();
  sendOrder(order);
  validateOrder(order);
}

window.submitOrder = submitOrder;
window.pauseForDebugger = pauseForDebugger;
setInterval(pauseForDebugger, 20);
setTimeout(function startOrder() { submitOrder(); }, 100);
