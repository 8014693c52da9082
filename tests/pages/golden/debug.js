function total(items) {
  let sum = 0;
  for (const n of items) sum += n;
  document.getElementById("sum").textContent = String(sum);
  return sum;
}
