// The page's entry: sends orders, runs a long loop, and keeps a MessageChannel heartbeat.
import { sommaLunga, validaOrdine } from "./ordini.js";

function inviaOrdine(ordine) {
  const esito = validaOrdine(ordine, "hunter2-segreto");
  return { esito, inviato: true };
}

function inviaLimite() {
  setTimeout(() => inviaOrdine({ cliente: "Rossi", limite: 10, righe: [{ prezzo: 7, quantita: 3 }] }), 0);
}

// A heartbeat that hidden tabs do not throttle (timers are): the longest gap between two ticks.
const battito = { ticks: 0, gap: 0, last: 0, running: false };
const canale = new MessageChannel();
canale.port1.onmessage = () => {
  if (!battito.running) return;
  const ora = performance.now();
  if (battito.last) battito.gap = Math.max(battito.gap, ora - battito.last);
  battito.last = ora;
  battito.ticks++;
  canale.port2.postMessage(0);
};

function avviaBattito() {
  Object.assign(battito, { ticks: 0, gap: 0, last: 0, running: true });
  canale.port2.postMessage(0);
}

function fermaBattito() {
  battito.running = false;
  return { ticks: battito.ticks, gap: battito.gap };
}

window.ordini = { inviaOrdine, inviaLimite, sommaLunga, avviaBattito, fermaBattito, battito };
