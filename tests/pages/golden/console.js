console.log("app started", 3);
console.warn("slow config: 2 retries");
function loadOrders() {
  try {
    throw new TypeError("orders is undefined");
  } catch (e) {
    console.error("could not render orders", e);
  }
}
loadOrders();
